// --admission-control-config-file with EventRateLimit, --tracing-config-file with a local OTLP
// receiver, and --validate-config, on the real plat-apiserver.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js';
import { runValidate, startPlatApiserver, tempDir } from './plat-apiserver.js';

const V = 'apiserver.config.platform.io/v1';

test('EventRateLimit: a burst of events is throttled with 429 and the reference message', async (t) => {
  const tmp = tempDir('erl-it-');
  t.after(() => tmp.cleanup());
  const limits = join(tmp.dir, 'eventratelimit.yaml');
  writeFileSync(
    limits,
    stringify({
      apiVersion: 'eventratelimit.admission.platform.io/v1alpha1',
      kind: 'Configuration',
      limits: [{ type: 'Namespace', qps: 1, burst: 5 }],
    }),
  );
  const adm = join(tmp.dir, 'admission.yaml');
  writeFileSync(
    adm,
    stringify({
      apiVersion: V,
      kind: 'AdmissionConfiguration',
      plugins: [{ name: 'EventRateLimit', path: 'eventratelimit.yaml' }],
    }),
  );
  const s = await startPlatApiserver(tmp.dir, [
    '--enable-admission-plugins',
    'EventRateLimit',
    '--admission-control-config-file',
    adm,
  ]);
  t.after(() => s.stop());
  assert.equal(
    (
      await s.call('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'burst' } },
      })
    ).status,
    201,
  );
  const codes: number[] = [];
  let last: Record<string, unknown> = {};
  const t0 = Date.now();
  for (let i = 0; i < 12; i++) {
    const r = await s.call('POST', '/api/v1/namespaces/burst/events', {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `e${i}` },
        involvedObject: { kind: 'Pod', namespace: 'burst', name: 'p' },
        reason: 'R',
        message: 'm',
      },
    });
    codes.push(r.status);
    if (r.status === 429) last = r.body;
  }
  const elapsedSec = (Date.now() - t0) / 1000;
  assert.deepEqual(codes.slice(0, 5), [201, 201, 201, 201, 201], 'the burst is admitted');
  // After the burst only refills pass: qps 1 means at most one more per elapsed second.
  const admitted = codes.filter((c) => c === 201).length;
  assert.ok(
    admitted <= 5 + Math.ceil(elapsedSec) + 1,
    `${admitted} admitted in ${elapsedSec}s: ${codes.join(',')}`,
  );
  assert.ok(codes.includes(429), codes.join(','));
  assert.ok(
    codes.every((c) => c === 201 || c === 429),
    codes.join(','),
  );
  assert.equal(last.reason, 'TooManyRequests');
  assert.equal(last.message, 'Too many requests: limit reached on type Namespace for key burst');
});

test('tracing: request spans reach the OTLP receiver', async (t) => {
  const tmp = tempDir('trace-it-');
  t.after(() => tmp.cleanup());
  const rx = await startOtlpReceiver();
  t.after(() => rx.stop());
  const cfg = join(tmp.dir, 'tracing.yaml');
  writeFileSync(
    cfg,
    stringify({
      apiVersion: V,
      kind: 'TracingConfiguration',
      endpoint: rx.endpoint,
      samplingRatePerMillion: 1000000,
    }),
  );
  const s = await startPlatApiserver(tmp.dir, ['--tracing-config-file', cfg]);
  for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', '/api/v1/namespaces')).status, 200);
  const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  await s.call('GET', '/api/v1/nodes', { headers: { traceparent: parent } });
  // Shutdown flushes the batch.
  await s.stop();
  await rx.waitForSpans(4);
  assert.ok(
    rx.spans.some(
      (sp) =>
        sp.traceId === '4bf92f3577b34da6a3ce929d0e0e4736' && sp.parentSpanId === '00f067aa0ba902b7',
    ),
  );
});

test('--validate-config prints every error and exits 1, or exits 0', async (t) => {
  const tmp = tempDir('validate-it-');
  t.after(() => tmp.cleanup());
  const secret = Buffer.alloc(20, 1).toString('base64');
  const bad = join(tmp.dir, 'enc.yaml');
  writeFileSync(
    bad,
    stringify({
      apiVersion: V,
      kind: 'EncryptionConfiguration',
      resources: [
        {
          resources: ['*.*', 'events'],
          providers: [{ aesgcm: { keys: [{ name: 'k', secret }] } }],
        },
      ],
    }),
  );
  const good = join(tmp.dir, 'tracing.yaml');
  writeFileSync(good, stringify({ apiVersion: V, kind: 'TracingConfiguration' }));
  const r = await runValidate([bad, good]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /enc\.yaml: resources\[0\]\.resources\[1\]: Invalid value: "events": resource overlaps with "\*\.\*"/,
  );
  assert.match(
    r.stderr,
    /enc\.yaml: resources\[0\]\.providers\[0\]\.aesgcm\.keys\[0\]\.secret: Invalid value: REDACTED: secret is not of the expected length, got 20/,
  );
  assert.ok(!r.stderr.includes(secret), 'the key is never printed');
  const ok = await runValidate([good]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /tracing\.yaml: valid TracingConfiguration/);
});
