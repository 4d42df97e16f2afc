// The worker threads of --worker-threads, with the built thread script: a body decoded on a thread
// is the same object, findings and DecodeError as decodeBody on the main thread; a value
// encrypted on a thread opens on the main thread and back; a thread that dies mid-job is logged
// and replaced, and its jobs are run on the main thread instead.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { decodeBody, DecodeError, type DecodeOptions } from '../../../../src/apiserver/decode.js';
import { ThreadPool, WorkerGoneError } from '../../../../src/apiserver/workers/thread-pool.js';
import { decodeOnPool } from '../../../../src/apiserver/workers/decode-job.js';
import { pooledProvider } from '../../../../src/apiserver/workers/cipher-job.js';
import { localProvider } from '../../../../src/apiserver/encryption/providers.js';
import { servedOnPool } from '../../../../src/apiserver/workers/served-job.js';
import { storedObjectOf } from '../../../../src/apiserver/storage/stored-object.js';
import { withServedKind } from '../../../../src/apiserver/registry/types.js';
import { encodeMessage, encodeWatchFrame } from '../../../../src/common/protobuf/codec.js';
import { frameOnPool } from '../../../../src/apiserver/workers/frame-job.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const ENTRY = fileURLToPath(
  new URL('../../../../src/apiserver/workers/thread-main.js', import.meta.url),
);
const pool = new ThreadPool({ count: 2, entry: ENTRY, logger: recordingLogger() });
after(() => pool.stop());

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const cm = (body: string, contentType = JSON_TYPE): DecodeOptions => ({
  body,
  contentType,
  kind: 'ConfigMap',
  apiVersion: 'v1',
});

/** decodeBody's outcome as plain data: the result, or the error's class and facts. */
function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    const l = err.limit;
    return {
      message: err.message,
      yamlConversion: err.yamlConversion,
      limit: l && {
        message: l.message,
        limit: l.limit,
        max: l.max,
        offset: l.offset,
        field: l.field,
        source: l.source,
      },
    };
  }
}

async function pooledOutcome(o: DecodeOptions): Promise<unknown> {
  try {
    return { ok: await decodeOnPool(pool, o) };
  } catch (err) {
    return outcome(() => {
      throw err;
    });
  }
}

const BODIES: readonly DecodeOptions[] = [
  cm('{"metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}'),
  cm('{"metadata":{"name":"a","bogus":1},"data":{"k":"v"},"extra":[1,2]}'),
  cm('{"metadata":{"name":"a","name":"b"},"data":{"k":"v","k":"w"}}'),
  cm('{"metadata":{"name":"a"},"data":{"k":1}}'),
  cm('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"a"}}'),
  cm('[1,2]'),
  cm('{"metadata":'),
  cm('{"a":'.repeat(20_000)),
  cm('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, x: 1}\ndata: {k: v}\n', YAML_TYPE),
  cm('metadata:\n  name: a\n  name: b\n', YAML_TYPE),
  cm('metadata: {name: a}\ndata: {k: .inf}\n', YAML_TYPE),
  cm('{[1]: a}\n', YAML_TYPE),
  cm('a: &x [*x]\n', YAML_TYPE),
  cm(
    '{"metadata":{"name":"a","creationTimestamp":"2026-12-01T10:00:00+02:00"},"__proto__":{"x":1}}',
  ),
];

test('a body decoded on a thread: the same object, findings and DecodeError as on the main thread', async () => {
  for (const o of BODIES) {
    assert.deepEqual(
      await pooledOutcome(o),
      outcome(() => decodeBody(o)),
      o.body.slice(0, 80),
    );
  }
});

test('a value encrypted on a thread opens on the main thread, and the other way round', async () => {
  const key = randomBytes(32);
  for (const kind of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const onPool = pooledProvider(pool, kind, 'k1', key);
    const here = localProvider(kind, 'k1', key);
    const context = '/registry/secrets/default/s1';
    const plain = Buffer.from(`{"kind":"Secret","data":{"a":"${kind}"}}`);
    assert.deepEqual(
      Buffer.from(await here.decrypt(await onPool.encrypt(plain, context), context)),
      plain,
    );
    assert.deepEqual(
      Buffer.from(await onPool.decrypt(await here.encrypt(plain, context), context)),
      plain,
    );
    assert.equal(onPool.prefix, `plat:enc:${kind}:v1:k1:`);
    // A value the key cannot open fails on the thread with the main thread's own words.
    const other = localProvider(kind, 'k1', randomBytes(32));
    const sealed = await other.encrypt(plain, context);
    // (the local providers throw at once rather than reject: a caller awaits either way)
    const words = await (async () => here.decrypt(sealed, context))().then(
      () => 'opened',
      (e: Error) => e.message,
    );
    assert.notEqual(words, 'opened');
    await assert.rejects(onPool.decrypt(sealed, context), { message: words });
  }
});

test('list items served on threads, as JSON text or protobuf: what the main thread serves, and none for a value that does not read back', async () => {
  const stored = [
    '{"metadata":{"name":"a","namespace":"n"},"data":{"k":"v"}}',
    '{"kind":"Old","apiVersion":"v0","metadata":{"name":"b","resourceVersion":"9"}}',
    '{"data":{}}',
    '[1]',
    'not json',
  ];
  const bytes = [...stored.map((s) => Buffer.from(s)), Buffer.from([0xff, 0xfe])];
  const rows = bytes.map((plain, i) => ({ plain, rv: 100 + i }));
  const here = rows.map((r) => {
    try {
      return JSON.stringify(withServedKind(storedObjectOf(r.plain, r.rv), 'ConfigMap', 'v1'));
    } catch {
      return undefined;
    }
  });
  assert.deepEqual(
    here.slice(0, 3).map((t) => t === undefined),
    [false, false, false],
  );
  assert.deepEqual(await servedOnPool(pool, 'json', 'ConfigMap', 'v1', rows), here);
  // The same rows as protobuf messages: the main thread's encoding, byte for byte.
  const messages = here.map((t) =>
    t === undefined
      ? undefined
      : encodeMessage(JSON.parse(t) as Record<string, unknown>, 'v1', 'ConfigMap'),
  );
  const onThreads = await servedOnPool(pool, 'protobuf', 'ConfigMap', 'v1', rows);
  assert.deepEqual(
    onThreads.map((m) => (m === undefined ? undefined : Buffer.from(m as Uint8Array))),
    messages.map((m) => (m === undefined ? undefined : Buffer.from(m))),
  );
  // A value that does not fit its message (a string where the message has a map) comes back none.
  const unfit = await servedOnPool(pool, 'protobuf', 'ConfigMap', 'v1', [
    { plain: Buffer.from('{"metadata":{"name":"u"},"data":"text"}'), rv: 1 },
  ]);
  assert.deepEqual(unfit, [undefined]);
  assert.equal(
    here[1],
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","resourceVersion":"101"}}',
  );
});

test("a live change's protobuf watch frame made on a thread: the main thread's bytes", async () => {
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', resourceVersion: '5' },
      data: { k: 'v' },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'n', labels: { a: 'b' }, resourceVersion: '6' },
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] },
      status: { phase: 'Pending' },
    },
  ];
  for (const o of objects) {
    for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
      const there = await frameOnPool(pool, type, o, o.kind, o.apiVersion);
      assert.deepEqual(there, encodeWatchFrame(type, o, o.apiVersion, o.kind));
    }
  }
  // An object its message cannot carry: none from the thread, so the watch encodes it itself.
  const unfit = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: 'text' };
  assert.equal(await frameOnPool(pool, 'ADDED', unfit, 'ConfigMap', 'v1'), undefined);
});

test('a thread that dies mid-job: logged, replaced after its back-off, its jobs run on the main thread', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'worker-threads-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A thread script that takes every job and exits before answering.
  const dying = join(dir, 'dying.mjs');
  writeFileSync(
    dying,
    "import { parentPort } from 'node:worker_threads';\n" +
      "parentPort.on('message', (m) => { if (m.job) process.exit(7); });\n",
  );
  const logger = recordingLogger();
  const clock = new ManualClock();
  const dyingPool = new ThreadPool({ count: 1, entry: dying, logger, clock });
  t.after(() => dyingPool.stop());
  const o = BODIES[1] as DecodeOptions;
  const job = {
    kind: 'decode',
    body: '{}',
    contentType: JSON_TYPE,
    objectKind: 'ConfigMap',
    apiVersion: 'v1',
    exactGvk: false,
  } as const;
  await assert.rejects(
    dyingPool.run(job) ?? Promise.reject(new Error('no thread')),
    WorkerGoneError,
  );
  const exited = logger.lines.filter((l) => l.msg.startsWith('a worker thread exited'));
  assert.equal(exited.length, 1);
  assert.equal(exited[0]?.fields['code'], 7);
  assert.equal(exited[0]?.fields['restartInMs'], 1000);
  // No thread runs until the back-off passes: the job is done here, with the same answer.
  assert.equal(dyingPool.size, 0);
  assert.equal(dyingPool.run(job), undefined);
  assert.equal(await dyingPool.tryRun(job), undefined);
  assert.deepEqual(await decodeOnPool(dyingPool, o), decodeBody(o));
  clock.advance(1000);
  assert.equal(dyingPool.size, 1);
  // The replacement dies too, and decodeOnPool still answers from the main thread.
  assert.deepEqual(await decodeOnPool(dyingPool, o), decodeBody(o));
});
