// The CSR controllers survive a storage that fails and then recovers: a read error other than
// NotFound (here a decryption failure, as a KMS plugin that is down gives) is logged, the CSR is
// requeued with back-off on the clock, and it is approved / signed once reads work again. (They
// used to swallow every read error: the CSR was dropped without a word and never handled.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCsrApproving } from '../../../../src/apiserver/controllers/csr-approving.js';
import { runCsrSigning } from '../../../../src/apiserver/controllers/csr-signing.js';
import { generateCa } from '../../../../src/apiserver/csr/ca.js';
import type { TransformerRegistry } from '../../../../src/apiserver/interfaces.js';
import { trackedManagedFields } from '../../../../src/apiserver/registry/managed-fields.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { csrDef } from '../../../../src/apiserver/registry/resources/csr.js';
import type { Obj } from '../../../../src/apiserver/registry/types.js';
import { namesFor } from '../../../../src/common/names.js';
import { Store } from '../../../../src/apiserver/storage/store.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger, type LogLine } from '../../../helpers/recording-logger.js';
import { b64, makeCsrPem } from '../csr/fixtures.js';

const domain = 'platform.io';
const def = csrDef(domain);
const node = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

/** Reads fail (as a decryption error) while `failing` is above zero; each failed read counts it down. */
function flakyTransformers(): TransformerRegistry & { failing: number } {
  const t = {
    failing: 0,
    transformerFor: () => ({
      toStorage: (p: Uint8Array) => Promise.resolve(p),
      fromStorage: (s: Uint8Array) => {
        if (t.failing > 0) {
          t.failing--;
          return Promise.reject(new Error('KMS plugin unavailable: connection refused'));
        }
        return Promise.resolve({ data: s, stale: false });
      },
    }),
  };
  return t;
}

async function setup(): Promise<{
  clock: ManualClock;
  transformers: ReturnType<typeof flakyTransformers>;
  registry: Registry;
  lines: LogLine[];
}> {
  const clock = new ManualClock(new Date());
  const lines: LogLine[] = [];
  const transformers = flakyTransformers();
  const store = new Store({
    transformers,
    logger: recordingLogger(lines),
    clock,
    compactionIntervalMs: 60_000,
  });
  const registry = new Registry({
    store,
    platformDomain: domain,
    names: namesFor('platform', domain),
    clock,
    logger: recordingLogger(lines),
    admission: [],
    managedFields: trackedManagedFields(),
  });
  const csrPem = await makeCsrPem({ cn: 'system:node:n1', o: ['system:nodes'] });
  const body = {
    metadata: { name: 'node-csr' },
    spec: {
      request: b64(csrPem),
      signerName: `${domain}/plat-apiserver-client-platlet`,
      usages: ['digital signature', 'client auth'],
    },
  };
  await registry.create(def, '', body, {
    user: node,
    dryRun: false,
    fieldManager: 'test',
    subresource: '',
  });
  return { clock, transformers, registry, lines };
}

/** Resolves with the first stored CSR state that passes `done`; rejects after a deadline. */
function waitForCsr(registry: Registry, done: (o: Obj) => boolean, what: string): Promise<Obj> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the CSR was never ${what}`));
    }, 10_000);
    const stop = registry.store.subscribe((c) => {
      if (!done(c.object)) return;
      clearTimeout(timer);
      stop();
      resolve(c.object);
    });
  });
}

/** Waits until the queue parks `key` in a back-off sleep, within a deadline. */
async function waitForBackoff(
  clock: ManualClock,
  lines: LogLine[],
  attempt: number,
): Promise<void> {
  const deadline = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`attempt ${attempt} was never retried (the error was swallowed)`)),
      10_000,
    ).unref(),
  );
  await Promise.race([clock.waitForSleepers(1), deadline]);
  const warn = lines.filter(
    (l) => l.level === 'warn' && l.msg.includes('processing failed; will retry'),
  );
  assert.equal(warn.length, attempt, JSON.stringify(lines.map((l) => l.msg)));
  assert.equal(warn[attempt - 1]?.fields['key'], 'node-csr');
  assert.match(
    String((warn[attempt - 1]?.fields['err'] as Error | undefined)?.message),
    /KMS plugin unavailable/,
  );
}

const approved = (o: Obj): boolean =>
  ((o['status'] as Obj | undefined)?.['conditions'] as Obj[] | undefined)?.some(
    (c) => c['type'] === 'Approved',
  ) === true;

test('csrapproving: a read error is logged and retried with back-off until the CSR is approved', async (t) => {
  const { clock, transformers, registry, lines } = await setup();
  const stop = new AbortController();
  t.after(() => stop.abort());
  transformers.failing = 2;
  const done = waitForCsr(registry, approved, 'approved');
  const loop = runCsrApproving(
    {
      registry,
      def,
      authorizer: { authorize: () => Promise.resolve({ decision: 'allow' }) },
      clock,
      logger: recordingLogger(lines),
    },
    stop.signal,
  );
  await waitForBackoff(clock, lines, 1);
  assert.deepEqual(clock.sleeps, [100]);
  clock.advance(100);
  await waitForBackoff(clock, lines, 2);
  assert.deepEqual(clock.sleeps, [100, 200], 'the back-off doubles');
  clock.advance(200);
  const csr = await done;
  assert.ok(approved(csr));
  stop.abort();
  await loop;
});

test('csrsigning: a read error is logged and retried with back-off until the certificate is issued', async (t) => {
  const { clock, transformers, registry, lines } = await setup();
  await registry.update(
    def,
    '',
    'node-csr',
    {
      user: { username: 'admin', groups: ['system:masters'] },
      dryRun: false,
      fieldManager: 'test',
      subresource: 'approval',
    },
    (cur) => ({
      ...(cur ?? {}),
      status: {
        conditions: [
          { type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' },
        ],
      },
    }),
  );
  const ca = await generateCa({ commonName: 'plat-ca', validityDays: 30, now: clock.now() });
  const stop = new AbortController();
  t.after(() => stop.abort());
  transformers.failing = 1;
  const done = waitForCsr(
    registry,
    (o) => typeof (o['status'] as Obj | undefined)?.['certificate'] === 'string',
    'signed',
  );
  const loop = runCsrSigning(
    { registry, def, ca, maxDurationSeconds: 86_400, clock, logger: recordingLogger(lines) },
    stop.signal,
  );
  await waitForBackoff(clock, lines, 1);
  clock.advance(100);
  const csr = await done;
  assert.match(
    Buffer.from(String((csr['status'] as Obj)['certificate']), 'base64').toString(),
    /BEGIN CERTIFICATE/,
  );
  stop.abort();
  await loop;
});
