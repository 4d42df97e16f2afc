// Which API server the plat-apiserver benchmarks measure, from flags or the environment:
//
//   --kubeconfig=FILE / BENCH_KUBECONFIG   a kubeconfig or platconfig: server, CA, client
//                                          certificate and key or a token (its current-context)
//   --server=URL / BENCH_SERVER            the server (overrides the file's)
//   --certificate-authority=FILE / BENCH_CA, --client-certificate=FILE / BENCH_CLIENT_CERT,
//   --client-key=FILE / BENCH_CLIENT_KEY, --token=T / BENCH_TOKEN   the same without a file
//
// With none of them, the shipped program (this tree's bin/plat-apiserver, the bundle) is started
// as its own process on 127.0.0.1 with an ephemeral port, and BENCH_COMPARE_BIN=<another build's
// bin/plat-apiserver> adds that build, measured alternately in the same run. Every benchmark then
// talks to the server through its public HTTPS API only, so it runs unchanged against any API
// server of the reference's protocol. BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/prof`, space-separated) go to the started servers' node; BENCH_DATA_DIR=1
// starts them with `--data-dir` (SQLite on disk, every write durable before it is answered)
// instead of in memory.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConnection, type ConnectionConfig } from '../src/common/platconfig/platconfig.js';
import { repoRoot, startApiServer, type StartedApiServer } from '../test/helpers/apiserver.js';

/** Where to send requests and with which credentials. */
export interface Endpoint {
  readonly url: string;
  readonly ca: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  readonly token: string | undefined;
  readonly servername: string | undefined;
}

/** A server to measure: an external one, or a build of plat-apiserver started for the run. */
export type TargetSpec =
  | { readonly kind: 'external'; readonly label: string; readonly endpoint: Endpoint }
  | { readonly kind: 'spawn'; readonly label: string; readonly bin: string };

/** A started or reached server; stop() ends what was started (nothing for an external server). */
export interface Reached {
  readonly endpoint: Endpoint;
  stop(): Promise<void>;
}

const FLAGS = {
  kubeconfig: { type: 'string' },
  server: { type: 'string' },
  'certificate-authority': { type: 'string' },
  'client-certificate': { type: 'string' },
  'client-key': { type: 'string' },
  token: { type: 'string' },
} as const;

const ENV: Record<keyof typeof FLAGS, string> = {
  kubeconfig: 'BENCH_KUBECONFIG',
  server: 'BENCH_SERVER',
  'certificate-authority': 'BENCH_CA',
  'client-certificate': 'BENCH_CLIENT_CERT',
  'client-key': 'BENCH_CLIENT_KEY',
  token: 'BENCH_TOKEN',
};

type Given = Partial<Record<keyof typeof FLAGS, string>>;

function given(argv: readonly string[]): Given {
  const { values } = parseArgs({
    args: [...argv],
    options: FLAGS,
    strict: true,
    allowPositionals: false,
  });
  const out: Given = {};
  for (const k of Object.keys(FLAGS) as (keyof typeof FLAGS)[]) {
    const v = values[k] ?? process.env[ENV[k]];
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out;
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `${what} ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

async function externalEndpoint(g: Given): Promise<Endpoint> {
  const conn: Partial<ConnectionConfig> =
    g.kubeconfig === undefined ? {} : await loadConnection(g.kubeconfig);
  const server = g.server ?? conn.server;
  if (server === undefined)
    throw new Error('no server: give --server (BENCH_SERVER) or --kubeconfig (BENCH_KUBECONFIG)');
  const url = new URL(server);
  if (url.protocol !== 'https:') throw new Error(`--server ${server}: expected an https:// URL`);
  const cert =
    g['client-certificate'] === undefined
      ? conn.certPem
      : readPem(g['client-certificate'], '--client-certificate');
  const key =
    g['client-key'] === undefined ? conn.keyPem : readPem(g['client-key'], '--client-key');
  const token = g.token ?? conn.token;
  if ((cert === undefined) !== (key === undefined))
    throw new Error('give both --client-certificate and --client-key, or neither');
  if (cert === undefined && token === undefined)
    throw new Error(
      'no credentials: give a kubeconfig with a user, --client-certificate/--client-key, or --token',
    );
  const ca =
    g['certificate-authority'] === undefined
      ? conn.caPem
      : readPem(g['certificate-authority'], '--certificate-authority');
  return { url: server.replace(/\/+$/, ''), ca, cert, key, token, servername: conn.tlsServerName };
}

/** The servers this run measures, from the command line and the environment. */
export async function targetSpecs(
  argv: readonly string[] = process.argv.slice(2),
): Promise<TargetSpec[]> {
  const g = given(argv);
  if (Object.keys(g).length > 0) {
    const endpoint = await externalEndpoint(g);
    return [{ kind: 'external', label: endpoint.url, endpoint }];
  }
  const specs: TargetSpec[] = [
    { kind: 'spawn', label: 'this build', bin: `${repoRoot()}/bin/plat-apiserver` },
  ];
  const compare = process.env['BENCH_COMPARE_BIN'];
  if (compare !== undefined && compare !== '')
    specs.push({ kind: 'spawn', label: `compared (${compare})`, bin: compare });
  return specs;
}

/**
 * Starts (or reaches) one target. A started plat-apiserver keeps its objects in memory unless
 * BENCH_DATA_DIR=1, and runs without the CSR controllers (the reference runs them in another
 * process, kube-controller-manager, which the reference's figures did not include).
 */
export async function reach(spec: TargetSpec): Promise<Reached> {
  if (spec.kind === 'external') return { endpoint: spec.endpoint, stop: async () => undefined };
  const dataDir =
    process.env['BENCH_DATA_DIR'] === '1'
      ? mkdtempSync(join(tmpdir(), 'pa-bench-data-'))
      : undefined;
  const nodeArgs = (process.env['BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const api: StartedApiServer = await startApiServer({
    bin: spec.bin,
    args: ['--controllers=-csrapproving,-csrsigning'],
    ...(dataDir === undefined ? {} : { dataDir }),
    nodeArgs,
  });
  const conn = await loadConnection(api.adminPlatconfig);
  const endpoint: Endpoint = {
    url: api.url,
    ca: conn.caPem,
    cert: conn.certPem,
    key: conn.keyPem,
    token: undefined,
    servername: undefined,
  };
  return {
    endpoint,
    stop: async () => {
      await api.stop();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
