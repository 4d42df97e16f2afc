// Large request bodies and Secrets encrypted at rest: the work --worker-threads takes off the main
// thread. Measures, per server:
// - creates of large ConfigMaps (BENCH_BODY_KEYS keys, about 128 bytes each: 256 KiB by default),
//   4 concurrent, and the latency of GETs of the namespace made one at a time meanwhile, which
//   the decoding of each large body delays on a server that decodes on its request thread;
// - creates of Secrets (16 KiB of data each, 16 concurrent) and a list of them all, which with
//   BENCH_SECRETBOX=1 both servers this run starts store with one secretbox key (written by
//   the benchmark into a temporary --encryption-provider-config): every create encrypts and the
//   list decrypts each Secret.
// Compare one build with and without threads: BENCH_BUILD_ARGS=--worker-threads=1
// BENCH_COMPARE_ARGS=--worker-threads=0 BENCH_COMPARE_BIN=$PWD/bin/plat-apiserver.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  concurrently,
  percentile,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
  firstThreadCpuMs,
  readsDuring,
} from './apiserver-harness.js';

const KEYS = positiveInt('BENCH_BODY_KEYS', process.env['BENCH_BODY_KEYS'] ?? '2000');
const LARGE = positiveInt('BENCH_LARGE_BODIES', process.env['BENCH_LARGE_BODIES'] ?? '120');
const SECRETS = positiveInt('BENCH_SECRETS', process.env['BENCH_SECRETS'] ?? '1000');

function largeConfigMap(name: string, ns: string): unknown {
  const data: Record<string, string> = {};
  for (let k = 0; k < KEYS; k++) data[`key-${k}`] = `${name}-${k}-`.padEnd(120, 'x');
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

const SECRET_VALUE = randomBytes(12 * 1024).toString('base64');

function secret(name: string, ns: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    data: { v: SECRET_VALUE },
  };
}

async function creates(
  s: Session,
  n: number,
  concurrency: number,
  make: (i: number) => [string, unknown],
): Promise<number> {
  const t = performance.now();
  await concurrently(n, concurrency, async (i) => {
    const [path, body] = make(i);
    const r = await s.call('POST', path, body);
    if (r.status !== 201)
      throw new Error(`create ${i} at ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  });
  return n / ((performance.now() - t) / 1000);
}

async function measure(s: Session): Promise<Figure[]> {
  const ns = s.namespace;
  const large = creates(s, LARGE, 4, (i) => [
    `/api/v1/namespaces/${ns}/configmaps`,
    largeConfigMap(`large-${i}`, ns),
  ]);
  const [[reads, largePerSec], largeMs] = await firstThreadCpuMs(s, () =>
    Promise.all([readsDuring(s, large), large]),
  );
  const [secretsPerSec, secretMs] = await firstThreadCpuMs(s, () =>
    creates(s, SECRETS, 16, (i) => [`/api/v1/namespaces/${ns}/secrets`, secret(`s-${i}`, ns)]),
  );
  const t = performance.now();
  const list = await s.call('GET', `/api/v1/namespaces/${ns}/secrets`);
  const listMs = performance.now() - t;
  if (list.status !== 200) throw new Error(`list: ${list.status} ${list.text.slice(0, 300)}`);
  const [p50, p99] = [percentile(reads, 0.5), percentile(reads, 0.99)];
  const kib = Math.round(JSON.stringify(largeConfigMap('large-0', ns)).length / 1024);
  return [
    {
      name: 'large creates/s',
      value: largePerSec,
      unit: '/s',
      text: `${LARGE} creates of a ${kib} KiB ConfigMap, 4 concurrent: ${largePerSec.toFixed(1)}/s`,
    },
    {
      name: 'first thread ms per large create',
      value: largeMs / LARGE,
      unit: 'ms',
      text: `  the server's first thread meanwhile: ${(largeMs / LARGE).toFixed(2)} ms of CPU per create, the reads included`,
    },
    {
      name: 'read p50 during large creates',
      value: p50,
      unit: 'ms',
      text: `GET of the namespace meanwhile (n=${reads.length}): p50 ${p50.toFixed(2)} ms`,
    },
    {
      name: 'read p99 during large creates',
      value: p99,
      unit: 'ms',
      text: `  and p99 ${p99.toFixed(2)} ms`,
    },
    {
      name: 'secret creates/s',
      value: secretsPerSec,
      unit: '/s',
      text: `${SECRETS} creates of a 16 KiB Secret, 16 concurrent: ${secretsPerSec.toFixed(0)}/s`,
    },
    {
      name: 'first thread us per secret create',
      value: (secretMs * 1000) / SECRETS,
      unit: 'us',
      text: `  the server's first thread meanwhile: ${((secretMs * 1000) / SECRETS).toFixed(0)} us of CPU per create`,
    },
    {
      name: 'secret list ms',
      value: listMs,
      unit: 'ms',
      text: `a list of the ${SECRETS} Secrets: ${listMs.toFixed(1)} ms`,
    },
  ];
}

/** BENCH_SECRETBOX=1: an --encryption-provider-config with one secretbox key for Secrets, given to both servers. */
function withSecretbox(): () => void {
  if (process.env['BENCH_SECRETBOX'] !== '1') return () => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-secretbox-'));
  const file = join(dir, 'encryption.yaml');
  writeFileSync(
    file,
    'apiVersion: apiserver.config.platform.io/v1\nkind: EncryptionConfiguration\nresources:\n' +
      '- resources: [secrets]\n  providers:\n  - secretbox:\n      keys:\n      - name: bench\n' +
      `        secret: ${randomBytes(32).toString('base64')}\n`,
    { mode: 0o600 },
  );
  for (const v of ['BENCH_BUILD_ARGS', 'BENCH_COMPARE_ARGS'])
    process.env[v] = `${process.env[v] ?? ''} --encryption-provider-config=${file}`.trim();
  return () => rmSync(dir, { recursive: true, force: true });
}

const cleanup = withSecretbox();
try {
  await runRounds('apiserver-bodies', 20, measure);
} finally {
  cleanup();
}
