// --worker-threads on the real plat-apiserver: bodies decoded on worker threads get the same
// answers as on the main thread (a server without threads in the same run: status, message,
// warnings, the stored object), a Secret encrypted on a thread is unreadable at rest and reads
// back, alone and in a list; -1 starts one thread per CPU beyond the first and says so. Its
// servers take no TEST_APISERVER_ARGS: they are the flag's own test.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { request } from 'undici';
import { decodeEnvelope, decodeWatchEvent } from '../../../src/common/protobuf/codec.js';
import { encryptionFile, key, MARK, rawValues } from './config/encryption-fixtures.js';

// Nothing writes a pod's status between the reads compared here.
const NO_SCHEDULER = '--controllers=*,-scheduler';
let threads: StartedApiServer;
let plain: StartedApiServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-threads-'));
  const enc = encryptionFile(dir, 'enc.yaml', [
    {
      resources: ['secrets'],
      providers: [{ secretbox: { keys: [{ name: 'k1', secret: key(3) }] } }],
    },
  ]);
  [threads, plain] = await Promise.all([
    startApiServer({
      args: ['--worker-threads=2', `--encryption-provider-config=${enc}`, NO_SCHEDULER],
      dataDir: join(dir, 'data'),
      suiteArgs: false,
    }),
    startApiServer({ args: ['--worker-threads=0', NO_SCHEDULER], suiteArgs: false }),
  ]);
});
after(async () => {
  await Promise.all([threads?.stop(), plain?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const CMS = '/api/v1/namespaces/default/configmaps';

/** What a client sees of an answer, less what differs between two servers by design. */
function seen(r: ApiResponse): unknown {
  const j = r.json;
  const meta = j?.['metadata'] as Record<string, unknown> | undefined;
  if (meta !== undefined)
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields'])
      delete meta[k];
  return { status: r.status, warning: r.headers['warning'], body: j ?? r.text };
}

const BODIES: readonly { name: string; path: string; body: string; contentType?: string }[] = [
  { name: 'valid', path: CMS, body: '{"metadata":{"name":"c1"},"data":{"k":"v"}}' },
  {
    name: 'unknown and duplicate fields, Warn',
    path: `${CMS}?fieldValidation=Warn`,
    body: '{"metadata":{"name":"c2","bogus":1,"name":"c2"},"data":{"k":"v"}}',
  },
  {
    name: 'unknown field, Strict',
    path: `${CMS}?fieldValidation=Strict`,
    body: '{"metadata":{"name":"c3","bogus":1}}',
  },
  { name: 'wrong type', path: CMS, body: '{"metadata":{"name":"c4"},"data":{"k":1}}' },
  { name: 'too deep', path: CMS, body: '{"a":'.repeat(12_000) + '1' + '}'.repeat(12_000) },
  { name: 'not JSON', path: CMS, body: '{"metadata":' },
  {
    name: 'YAML',
    path: CMS,
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c5}\ndata: {k: v}\n',
    contentType: 'application/yaml',
  },
  {
    name: 'YAML .inf',
    path: CMS,
    body: 'metadata: {name: c6}\ndata: {k: .inf}\n',
    contentType: 'application/yaml',
  },
  {
    name: 'a review',
    path: '/apis/authorization.platform.io/v1/selfsubjectaccessreviews',
    body: '{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}},"x":1}',
  },
];

test('a body decoded on a worker thread gets the answer the main thread gives', async () => {
  for (const b of BODIES) {
    const opts = { body: b.body, contentType: b.contentType ?? 'application/json' };
    const [there, here] = await Promise.all([
      threads.request('POST', b.path, opts),
      plain.request('POST', b.path, opts),
    ]);
    assert.deepEqual(seen(there), seen(here), b.name);
  }
  // The reference's words for a Strict refusal (kube-apiserver 1.32).
  const strict = await threads.request('POST', `${CMS}?fieldValidation=Strict`, {
    body: '{"metadata":{"name":"c7","bogus":1}}',
  });
  assert.equal(strict.status, 400);
  assert.equal(
    strict.json?.['message'],
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ' +
      'unknown field "metadata.bogus"',
  );
});

test('Secrets encrypted on worker threads: nothing readable at rest, every one read back', async () => {
  const secrets = '/api/v1/namespaces/default/secrets';
  const value = Buffer.from(MARK).toString('base64');
  const created = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      threads.request('POST', secrets, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, data: { v: value } },
      }),
    ),
  );
  assert.deepEqual(new Set(created.map((r) => r.status)), new Set([201]));
  const one = await threads.request('GET', `${secrets}/s7`);
  assert.deepEqual((one.json?.['data'] as Record<string, string>)['v'], value);
  const list = await threads.request('GET', secrets);
  const items = list.json?.['items'] as { data: { v: string } }[];
  assert.equal(items.length, 100);
  assert.ok(items.every((s) => s.data.v === value));
  const stored = rawValues(join(dir, 'data'));
  assert.ok(!stored.some((v) => v.includes(MARK)), 'a Secret is readable at rest');
  assert.equal(stored.filter((v) => v.startsWith('plat:enc:secretbox:v1:k1:')).length, 100);
});

const PB = 'application/vnd.kubernetes.protobuf';

test('lists and watches in protobuf made on the threads carry what the JSON answers carry', async () => {
  const pods = '/api/v1/namespaces/default/pods';
  const podBody = (name: string): unknown => ({
    metadata: { name, labels: { app: 'pb' } },
    spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] },
  });
  for (let i = 0; i < 40; i++)
    assert.equal((await threads.request('POST', pods, { body: podBody(`p${i}`) })).status, 201);
  const json = await threads.request('GET', pods);
  const list = await request(`${threads.url}${pods}`, {
    headers: { accept: PB },
    dispatcher: threads.adminAgent,
  });
  assert.equal(list.headers['content-type'], PB);
  const fromPb = decodeEnvelope(Buffer.from(await list.body.arrayBuffer())).object;
  // A list's items carry no kind and apiVersion in protobuf; fields come in the message's order.
  const untyped = (items: unknown): unknown[] =>
    (items as Record<string, unknown>[]).map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  assert.deepEqual(untyped(fromPb['items']), untyped(json.json?.['items']));
  // A live change's frame, made on a thread, decodes to the object the JSON watch serves.
  const rv = String((json.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  const ac = new AbortController();
  const res = await request(`${threads.url}${pods}?watch=true&resourceVersion=${rv}`, {
    headers: { accept: PB },
    dispatcher: threads.adminAgent,
    signal: ac.signal,
  });
  const jsonWatch = await threads.watch(`${pods}?watch=true&resourceVersion=${rv}`);
  try {
    assert.equal((await threads.request('POST', pods, { body: podBody('live') })).status, 201);
    let buf = Buffer.alloc(0);
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) break;
    }
    const frame = decodeWatchEvent(buf.subarray(4, 4 + buf.readUInt32BE(0)));
    const seenJson = await jsonWatch.next();
    assert.equal(frame.type, 'ADDED');
    assert.deepEqual(frame.object, seenJson.object);
  } finally {
    ac.abort();
    jsonWatch.close();
  }
});

test('--worker-threads=-1: one thread per CPU beyond the first, said at start', async () => {
  const auto = await startApiServer({ args: ['--worker-threads=-1'], suiteArgs: false });
  try {
    const n = Math.min(8, availableParallelism() - 1);
    assert.match(
      auto.logs(),
      n === 0
        ? /--worker-threads=-1 on a single CPU: bodies and encryption on the main thread/
        : new RegExp(`--worker-threads=-1: ${n} worker threads`),
    );
    const r = await auto.request('POST', CMS, { body: '{"metadata":{"name":"auto"}}' });
    assert.equal(r.status, 201);
  } finally {
    await auto.stop();
  }
});
