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
// server of the reference's protocol. With an external server, BENCH_WITH_BUILD=1 measures this
// build beside it, alternately in the same run (a side-by-side figure against the reference),
// and BENCH_SERVER_PIDS / BENCH_SERVER_DATA_DIR tell the benchmarks that read them where its
// processes and its storage are. BENCH_BUILD_ARGS and BENCH_COMPARE_ARGS (space-separated) are
// flags given to this build and to the compared build alone. BENCH_SERVER_NODE_ARGS (e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/prof`, space-separated) go to the started servers' node;
// BENCH_DATA_DIR=1 starts them with `--data-dir` (SQLite on disk, every write durable before it
// is answered) instead of in memory.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConnection, type ConnectionConfig } from '../src/common/platconfig/platconfig.js';
import { repoRoot, startApiServer, type StartedApiServer } from '../test/helpers/apiserver.js';
import { onProcessEnd } from '../test/helpers/end-on-signal.js';
import { slowFsyncEnv } from './slow-fsync.js';
import { withChildren } from './proc-usage.js';

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
  | {
      readonly kind: 'spawn';
      readonly label: string;
      readonly bin: string;
      /** Flags of this target alone (BENCH_BUILD_ARGS, BENCH_COMPARE_ARGS). */
      readonly args: readonly string[];
    };

/** Space-separated flags from the environment. */
export function argsFrom(name: string): string[] {
  return (process.env[name] ?? '').split(' ').filter((a) => a !== '');
}

/** A started or reached server; stop() ends what was started (nothing for an external server). */
export interface Reached {
  readonly endpoint: Endpoint;
  /** The server's processes (CPU and RSS are read from /proc): BENCH_SERVER_PIDS for an external one. */
  readonly pids: readonly number[];
  /** Where it keeps its objects on disk: BENCH_SERVER_DATA_DIR for an external one. */
  readonly dataDir: string | undefined;
  /** A started server's admin platconfig (for programs the benchmark starts against it). */
  readonly adminPlatconfig: string | undefined;
  stop(): Promise<void>;
}

/** How a started plat-apiserver runs (an external server is as it is). */
export interface ReachOptions {
  /** `--data-dir` in a new temporary directory, whatever BENCH_DATA_DIR says. */
  readonly dataDir?: boolean;
  /** Its `--controllers` value; default every controller but the CSR ones. */
  readonly controllers?: string;
  /** More flags (e.g. `--platform-profile=kubernetes`, for the reference's names). */
  readonly args?: readonly string[];
}

/** BENCH_SERVER_PIDS: comma-separated pids of an external server's processes (e.g. kube-apiserver and etcd). */
function externalPids(): number[] {
  const text = process.env['BENCH_SERVER_PIDS'] ?? '';
  if (text === '') return [];
  return text.split(',').map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`BENCH_SERVER_PIDS=${text}: expected comma-separated process ids`);
    return n;
  });
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
  const build: TargetSpec = {
    kind: 'spawn',
    label: 'this build',
    bin: `${repoRoot()}/bin/plat-apiserver`,
    args: argsFrom('BENCH_BUILD_ARGS'),
  };
  if (Object.keys(g).length > 0) {
    const endpoint = await externalEndpoint(g);
    const external: TargetSpec = { kind: 'external', label: endpoint.url, endpoint };
    return process.env['BENCH_WITH_BUILD'] === '1' ? [build, external] : [external];
  }
  const specs: TargetSpec[] = [build];
  const compare = process.env['BENCH_COMPARE_BIN'];
  if (compare !== undefined && compare !== '')
    specs.push({
      kind: 'spawn',
      label: `compared (${compare})`,
      bin: compare,
      args: argsFrom('BENCH_COMPARE_ARGS'),
    });
  return specs;
}

/**
 * Starts (or reaches) one target. A started plat-apiserver keeps its objects in memory unless
 * BENCH_DATA_DIR=1, and runs without the CSR controllers (the reference runs them in another
 * process, kube-controller-manager, which the reference's figures did not include).
 */
export async function reach(spec: TargetSpec, opts: ReachOptions = {}): Promise<Reached> {
  if (spec.kind === 'external')
    return {
      endpoint: spec.endpoint,
      pids: externalPids(),
      dataDir: process.env['BENCH_SERVER_DATA_DIR'],
      adminPlatconfig: undefined,
      stop: async () => undefined,
    };
  const dataDir =
    opts.dataDir === true || process.env['BENCH_DATA_DIR'] === '1'
      ? mkdtempSync(join(tmpdir(), 'pa-bench-data-'))
      : undefined;
  const removeDataDir = (): void => {
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  const nodeArgs = argsFrom('BENCH_SERVER_NODE_ARGS');
  const api: StartedApiServer = await startApiServer({
    bin: spec.bin,
    args: [
      `--controllers=${opts.controllers ?? '-csrapproving,-csrsigning'}`,
      ...(opts.args ?? []),
      ...spec.args,
    ],
    ...(dataDir === undefined ? {} : { dataDir }),
    nodeArgs,
    env: slowFsyncEnv(),
  }).catch((err: unknown) => {
    removeDataDir();
    throw err;
  });
  // After the server's own clean-up, so a killed benchmark ends the server first.
  const forgetDataDir = onProcessEnd(removeDataDir);
  const conn = await loadConnection(api.adminPlatconfig);
  const endpoint: Endpoint = {
    url: api.url,
    ca: conn.caPem,
    cert: conn.certPem,
    key: conn.keyPem,
    token: undefined,
    servername: undefined,
  };
  const pid = api.process.pid;
  return {
    endpoint,
    // with the TLS front processes it started (--tls-processes), which do part of its work
    pids: pid === undefined ? [] : withChildren(pid),
    dataDir,
    adminPlatconfig: api.adminPlatconfig,
    stop: async () => {
      await api.stop();
      removeDataDir();
      forgetDataDir();
    },
  };
}
