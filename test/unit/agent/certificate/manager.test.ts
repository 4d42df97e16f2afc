import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import {
  CertificateManager,
  type CertificateManagerOptions,
} from '../../../../src/agent/certificate/manager.js';
import { FileCertificateStore } from '../../../../src/agent/certificate/store.js';
import { clientUsages } from '../../../../src/agent/certificate/csr.js';
import {
  rotationBackoffMs,
  referenceBackoff,
  rotationDeadline,
  matchesTemplate,
  jitteredFraction,
} from '../../../../src/agent/certificate/rotation.js';
import { registerCertificateMetrics } from '../../../../src/agent/certificate/metrics.js';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { CsrClient } from '../../../../src/agent/client/csr-client.js';
import { FakeCsrApi } from '../../../helpers/fake-csr-api.js';
import { TestCa } from '../../../helpers/test-ca.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { namesFor } from '../../../../src/common/names.js';

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('rotation timing: deadline in 70-90 % of the lifetime; back-off 2 s x2 +10 % for 5 steps, then 32 s', () => {
  const info = { notBefore: new Date(0), notAfter: new Date(1000_000) };
  assert.equal(rotationDeadline(info, 0.8).getTime(), 800_000);
  for (let i = 0; i < 100; i++) {
    const f = jitteredFraction();
    assert.ok(f >= 0.7 && f < 0.9);
  }
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => rotationBackoffMs(referenceBackoff, n, () => 0)),
    [2000, 4000, 8000, 16000, 32000, 32000, 32000],
  );
  assert.equal(
    rotationBackoffMs(referenceBackoff, 1, () => 0.999),
    2200,
  );
  const cert = {
    commonName: 'a',
    organizations: ['o'],
    dnsNames: ['x', 'y'],
    ipAddresses: ['10.0.0.1'],
  } as Parameters<typeof matchesTemplate>[0];
  assert.equal(
    matchesTemplate(cert, {
      commonName: 'a',
      organizations: ['o'],
      dnsNames: ['y', 'x'],
      ipAddresses: ['10.0.0.1'],
    }),
    true,
  );
  assert.equal(
    matchesTemplate(cert, {
      commonName: 'a',
      organizations: ['o'],
      dnsNames: ['y', 'x'],
      ipAddresses: ['10.0.0.2'],
    }),
    false,
  );
});

async function env(
  t: { after(fn: () => Promise<void>): void },
  clock: ManualClock,
  lifetimeMs = 3600_000,
) {
  const dir = await mkdtemp(join(tmpdir(), 'mgr-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await TestCa.create(clock.now());
  const api = await FakeCsrApi.start({
    ca,
    autoApprove: true,
    validity: () => ({ notBefore: clock.now(), notAfter: new Date(clock.nowMs() + lifetimeMs) }),
  });
  t.after(() => api.stop());
  const rest = new RestClient({
    connection: {
      server: api.url,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
    clock,
  });
  t.after(() => rest.close());
  const logger = recordingLogger();
  const store = new FileCertificateStore({ certDir: dir, prefix: 'nodeagent-client', clock });
  let template = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
  const rotated: string[] = [];
  const make = (extra: Partial<CertificateManagerOptions> = {}): CertificateManager =>
    new CertificateManager({
      kind: 'client',
      store,
      csrClient: new CsrClient({ client: rest, names: namesFor('platform'), clock }),
      signerName: 'platform.io/plat-apiserver-client-platlet',
      template: () => template,
      usages: clientUsages,
      clock,
      logger,
      rotationFraction: () => 0.8,
      onRotated: (p) => rotated.push(p.file),
      random: () => 0,
      ...extra,
    });
  return {
    dir,
    api,
    logger,
    store,
    make,
    rotated,
    setTemplate: (t2: typeof template) => (template = t2),
  };
}

test('manager: first certificate at once, rotation at the deadline, before expiry; template change rotates at once', async (t) => {
  const clock = new ManualClock(new Date());
  const e = await env(t, clock);
  const m = e.make();
  await m.start();
  t.after(() => m.stop());
  const first = await m.ready();
  assert.equal(first.info.commonName, 'system:node:n1');
  assert.equal(e.rotated.length, 1);
  assert.ok(Math.abs((m.ttlSeconds() ?? 0) - 3600) <= 1);
  assert.equal(m.rotationDeadline()?.getTime(), first.info.notBefore.getTime() + 0.8 * 3600_000);
  // Just before the deadline nothing happens; at the deadline a new certificate comes.
  const sleeping = clock.pendingSleepers;
  clock.advance(0.8 * 3600_000 - 5000);
  await clock.waitForSleepers(sleeping); // woken, checked, asleep again
  assert.equal(e.rotated.length, 1);
  clock.advance(60_000);
  await until(() => e.rotated.length === 2, 'the second certificate');
  const second = m.current();
  assert.ok(second && second.info.notAfter > first.info.notAfter);
  assert.ok(clock.nowMs() < first.info.notAfter.getTime(), 'rotated before expiry');
  assert.equal((await readdir(e.dir)).filter((f) => /^nodeagent-client-\d/.test(f)).length, 2);
  e.setTemplate({ commonName: 'system:node:n2', organizations: ['system:nodes'] });
  m.recheck();
  await until(() => e.rotated.length === 3, 'rotation after a template change');
  assert.equal(m.current()?.info.commonName, 'system:node:n2');
  assert.ok(e.logger.lines.some((l) => l.msg.includes('no longer matches the template')));
  const csrNames = [...e.api.csrs.keys()];
  assert.ok(csrNames.every((n) => n.startsWith('csr-')));
});

test('manager: failures back off per the schedule; expired certificate with an answering server is fatal', async (t) => {
  const clock = new ManualClock(new Date());
  const e = await env(t, clock, 600_000);
  const m = e.make({ serverAnswers: async () => true });
  await m.start();
  t.after(() => m.stop());
  const first = await m.ready();
  e.api.mode = 'forbidden';
  clock.set(m.rotationDeadline()?.getTime() ?? 0);
  const expected = [2000, 4000, 8000, 16000, 32000, 32000];
  for (let i = 0; i < expected.length; i++) {
    await until(
      () =>
        clock.sleeps.includes(expected[i] ?? 0) &&
        clock.sleeps.filter((s) => s === expected[i]).length >=
          expected.slice(0, i + 1).filter((x) => x === expected[i]).length,
      `back-off ${i}`,
    );
    clock.advance(expected[i] ?? 0);
  }
  const failures = e.logger.lines.filter((l) => l.msg.includes('certificate rotation failed'));
  assert.ok(failures.length >= 6);
  assert.match(
    failures[0]?.msg ?? '',
    /retrying in 2 s\. Check pending CSRs with: kubectl get csr/,
  );
  let fatal: Error | undefined;
  void m.fatal.then((err) => (fatal = err));
  clock.set(first.info.notAfter.getTime() + 1000);
  await until(() => fatal !== undefined, 'the fatal signal');
  assert.match(
    fatal?.message ?? '',
    /client certificate expired at .* exiting so the agent restarts into bootstrap/,
  );
});

test('metrics: ttl gauges per certificate', async (t) => {
  const clock = new ManualClock(new Date());
  const e = await env(t, clock);
  const m = e.make();
  await m.start();
  t.after(() => m.stop());
  await m.ready();
  const reg = new Registry();
  registerCertificateMetrics(reg, { client: m }, clock);
  const text = await reg.metrics();
  assert.match(text, /nodeagent_certificate_manager_client_ttl_seconds 3(600|599)\n/);
  assert.match(text, /nodeagent_certificate_manager_client_expiration_timestamp_seconds \d+/);
  assert.doesNotMatch(text, /server_ttl/);
});
