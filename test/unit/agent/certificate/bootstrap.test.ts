import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, readFile, readlink, stat, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bootstrapClientCertificate,
  TMP_KEY_FILE,
  type BootstrapOptions,
} from '../../../../src/agent/certificate/bootstrap.js';
import { startCertificates } from '../../../../src/agent/certificate/setup.js';
import { namesFor } from '../../../../src/common/names.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { parseCertificate } from '../../../../src/agent/certificate/cert-info.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { CertificateError } from '../../../../src/common/util/errors.js';
import { FakeCsrApi, type FakeCsrApiOptions } from '../../../helpers/fake-csr-api.js';
import { TestCa } from '../../../helpers/test-ca.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

interface Env {
  dir: string;
  api: FakeCsrApi;
  ca: TestCa;
  opts(
    extra?: Partial<BootstrapOptions>,
  ): BootstrapOptions & { logger: ReturnType<typeof recordingLogger> };
}

async function setup(
  t: { after(fn: () => Promise<void>): void },
  apiOpts: Partial<FakeCsrApiOptions> = {},
): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'boot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await TestCa.create();
  const api = await FakeCsrApi.start({ ca, autoApprove: true, ...apiOpts });
  t.after(() => api.stop());
  await writeFile(join(dir, 'ca.crt'), ca.certPem);
  await writeFile(
    join(dir, 'b.conf'),
    `clusters: [{name: c, cluster: {server: "${api.url}", certificate-authority: ca.crt}}]\nusers: [{name: boot, user: {token: abcdef.0123456789abcdef}}]\ncontexts: [{name: x, context: {cluster: c, user: boot}}]\ncurrent-context: x\n`,
  );
  return {
    dir,
    api,
    ca,
    opts: (extra = {}) =>
      ({
        platconfigPath: join(dir, 'p.conf'),
        bootstrapPlatconfigPath: join(dir, 'b.conf'),
        certDir: join(dir, 'pki'),
        nodeName: 'node-1',
        names: namesFor('platform'),
        clock: systemClock,
        logger: recordingLogger(),
        healthzWaitMs: 2000,
        healthzIntervalMs: 50,
        ...extra,
      }) as BootstrapOptions & { logger: ReturnType<typeof recordingLogger> },
  };
}

const infos = (l: ReturnType<typeof recordingLogger>): string[] =>
  l.lines.filter((x) => x.level === 'info').map((x) => x.msg);

test('bootstrap with auto-approval: files, symlink, platconfig, log lines in order; then skipped', async (t) => {
  const env = await setup(t);
  const o = env.opts();
  const r = await bootstrapClientCertificate(o);
  assert.equal(r.bootstrapped, true);
  assert.match(r.csrName ?? '', /^node-csr-/);
  const msgs = infos(o.logger);
  const order = [
    'Using bootstrap platconfig to generate TLS client cert, key and platconfig file',
    'No valid private key and/or certificate found, reusing existing private key or creating a new one',
    'Waiting for client certificate to be issued',
    `certificate signing request ${r.csrName ?? ''} is approved, waiting to be issued`,
    `certificate signing request ${r.csrName ?? ''} is issued`,
  ];
  let at = -1;
  for (const m of order) {
    const i = msgs.indexOf(m);
    assert.ok(i > at, `log line "${m}" missing or out of order in ${JSON.stringify(msgs)}`);
    at = i;
  }
  assert.ok(msgs.some((m) => m.includes(`kubectl certificate approve ${r.csrName ?? ''}`)));
  const pki = join(env.dir, 'pki');
  assert.equal((await stat(pki)).mode & 0o777, 0o700);
  const files = (await readdir(pki)).sort();
  assert.equal(files.length, 2);
  assert.match(files[0] ?? '', /^nodeagent-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
  assert.equal(files[1], 'nodeagent-client-current.pem');
  assert.equal(
    await readlink(join(pki, 'nodeagent-client-current.pem')),
    join(pki, files[0] ?? ''),
  );
  assert.equal((await stat(join(pki, files[0] ?? ''))).mode & 0o777, 0o600);
  assert.equal((await stat(o.platconfigPath)).mode & 0o777, 0o600);
  const conn = await loadConnection(o.platconfigPath);
  assert.equal(conn.server, env.api.url);
  assert.equal(conn.certFile, join(pki, 'nodeagent-client-current.pem'));
  assert.equal(conn.keyFile, conn.certFile);
  assert.equal(conn.caFile, join(env.dir, 'ca.crt'));
  const info = parseCertificate(conn.certPem ?? '');
  assert.equal(info.commonName, 'system:node:node-1');
  assert.deepEqual(info.organizations, ['system:nodes']);
  assert.ok(env.ca.verifies(conn.certPem ?? ''));
  const csr = env.api.csrs.get(r.csrName ?? '');
  assert.equal(csr?.spec.signerName, 'platform.io/plat-apiserver-client-platlet');
  assert.deepEqual(csr?.spec.usages, ['digital signature', 'client auth']);
  assert.equal(csr?.spec.expirationSeconds, undefined);
  // The outcome is read by a list restricted to the CSR's name (a watch follows only when the
  // list shows it pending: see the approval-by-hand test).
  assert.ok(
    env.api.requests.some((q) => q.url.includes('fieldSelector=metadata.name%3Dnode-csr-')),
  );
  assert.ok(env.api.requests.every((q) => q.auth === 'Bearer abcdef.0123456789abcdef'));
  // One call at a time (/healthz, create, list) on one connection, and the watch (made only
  // when the list shows the request still pending) on a second: no connection opened per call.
  const calls = env.api.requests.map(
    (q) => `${q.method} ${/watch=true/.test(q.url) ? 'watch' : (q.url.split('?')[0] ?? '')}`,
  );
  const watched = calls.length === 4;
  assert.deepEqual(calls, [
    'GET /healthz',
    'POST /apis/certificates.platform.io/v1/certificatesigningrequests',
    'GET /apis/certificates.platform.io/v1/certificatesigningrequests',
    ...(watched ? ['GET watch'] : []),
  ]);
  const ports = env.api.requests.map((q) => q.port);
  assert.equal(new Set(ports.slice(0, 3)).size, 1, `connections by port: ${ports.join(' ')}`);
  if (watched) assert.notEqual(ports[3], ports[0]);

  const before = env.api.requests.length;
  const o2 = env.opts();
  assert.deepEqual(await bootstrapClientCertificate(o2), { bootstrapped: false });
  assert.deepEqual(infos(o2.logger), ['Platconfig exists and is valid, skipping bootstrap']);
  assert.equal(env.api.requests.length, before);
});

test('approval by hand: logs how to approve, finishes once approved', async (t) => {
  const env = await setup(t, { autoApprove: false });
  const o = env.opts({ reminderMs: 50 });
  let name = '';
  const p = bootstrapClientCertificate({ ...o, onCsrCreated: (n) => (name = n) });
  const until = Date.now() + 10_000;
  while (
    !o.logger.lines.some((l) => l.msg.startsWith('still waiting for approval')) &&
    Date.now() < until
  )
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(name);
  assert.ok(
    o.logger.lines.some(
      (l) =>
        l.msg ===
        `still waiting for approval of certificate signing request ${name} (signer platform.io/plat-apiserver-client-platlet); approve it by hand with: kubectl certificate approve ${name}`,
    ),
  );
  env.api.approve(name);
  const r = await p;
  assert.equal(r.csrName, name);
  // Pending at the first look, so the outcome came through a watch on that one name.
  assert.ok(
    env.api.requests.some(
      (q) =>
        q.url.includes(`fieldSelector=metadata.name%3D${encodeURIComponent(name)}`) &&
        q.url.includes('watch=true'),
    ),
  );
});

for (const [kind, expected] of [
  [
    'Denied',
    /certificate signing request node-csr-\S+ was denied: reason "NotAllowed", message "no nodes today"/,
  ],
  [
    'Failed',
    /certificate signing request node-csr-\S+ failed: reason "SignerError", message "CA expired"/,
  ],
] as const) {
  test(`a ${kind} CSR stops bootstrap quoting reason and message; nothing written`, async (t) => {
    const env = await setup(t, { autoApprove: false });
    const o = env.opts();
    const p = bootstrapClientCertificate({
      ...o,
      onCsrCreated: (n) =>
        setImmediate(() =>
          env.api.setCondition(
            n,
            kind,
            kind === 'Denied' ? 'NotAllowed' : 'SignerError',
            kind === 'Denied' ? 'no nodes today' : 'CA expired',
          ),
        ),
    });
    await assert.rejects(
      p,
      (e: unknown) => e instanceof CertificateError && expected.test(e.message),
    );
    await assert.rejects(stat(o.platconfigPath));
    assert.deepEqual(await readdir(join(env.dir, 'pki')), [TMP_KEY_FILE]);
  });
}

test('a CSR deleted while waiting is an error', async (t) => {
  const env = await setup(t, { autoApprove: false });
  const o = env.opts();
  await assert.rejects(
    bootstrapClientCertificate({
      ...o,
      onCsrCreated: (n) => setImmediate(() => env.api.remove(n)),
    }),
    /was deleted while waiting/,
  );
});

test('403 names the refused identity', async (t) => {
  const env = await setup(t);
  env.api.mode = 'forbidden';
  await assert.rejects(
    bootstrapClientCertificate(env.opts()),
    /refused POST .* for the bootstrap token "abcdef" \(user "system:bootstrap:abcdef"\) of user "boot"/,
  );
});

test('API server down at start: keeps waiting and says so, then succeeds', async (t) => {
  const env = await setup(t);
  env.api.mode = 'down';
  const o = env.opts({ healthzWaitMs: 100, reminderMs: 100 });
  const p = bootstrapClientCertificate(o);
  const until = Date.now() + 10_000;
  while (!o.logger.lines.some((l) => l.msg.includes('is not answering')) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(
    o.logger.lines.some((l) => l.level === 'warn' && l.msg.includes('did not answer /healthz')),
  );
  env.api.mode = 'ok';
  assert.equal((await p).bootstrapped, true);
});

test('killed after the CSR was made: the restart reuses the .tmp key and the same CSR', async (t) => {
  const env = await setup(t, { autoApprove: false });
  const ac = new AbortController();
  let first = '';
  const p = bootstrapClientCertificate({
    ...env.opts(),
    signal: ac.signal,
    onCsrCreated: (n) => {
      first = n;
      setImmediate(() => ac.abort(new Error('killed')));
    },
  });
  await assert.rejects(p, /killed/);
  const tmpKey = await readFile(join(env.dir, 'pki', TMP_KEY_FILE), 'utf8');
  assert.equal((await stat(join(env.dir, 'pki', TMP_KEY_FILE))).mode & 0o777, 0o600);
  const o = env.opts();
  const p2 = bootstrapClientCertificate({
    ...o,
    onCsrCreated: (n) => setImmediate(() => env.api.approve(n)),
  });
  const r = await p2;
  assert.equal(r.csrName, first);
  assert.equal(env.api.csrs.size, 1);
  assert.ok(
    o.logger.lines.some((l) => l.msg === `reusing existing certificate signing request ${first}`),
  );
  const conn = await loadConnection(o.platconfigPath);
  assert.ok(conn.keyPem?.includes(tmpKey.trim()));
  await assert.rejects(stat(join(env.dir, 'pki', TMP_KEY_FILE)), /ENOENT/);
});

test('an unwritable cert dir is reported before any key or request', async (t) => {
  const env = await setup(t);
  await writeFile(join(env.dir, 'blocker'), '');
  await assert.rejects(
    bootstrapClientCertificate(env.opts({ certDir: join(env.dir, 'blocker', 'pki') })),
    /cert dir .*blocker\/pki is not writable/,
  );
  assert.equal(env.api.requests.length, 0);
});

test('a missing or malformed bootstrap platconfig is one clear error', async (t) => {
  const env = await setup(t);
  await assert.rejects(
    bootstrapClientCertificate(env.opts({ bootstrapPlatconfigPath: join(env.dir, 'nope.conf') })),
    /--bootstrap-platconfig: platconfig .*nope.conf does not exist/,
  );
  await writeFile(join(env.dir, 'bad.conf'), 'clusters: {');
  await assert.rejects(
    bootstrapClientCertificate(env.opts({ bootstrapPlatconfigPath: join(env.dir, 'bad.conf') })),
    /--bootstrap-platconfig: platconfig .*bad.conf is not valid YAML/,
  );
  assert.equal(env.api.requests.length, 0);
});

test('clock skew: a certificate not yet valid gives a warning', async (t) => {
  const env = await setup(t, {
    validity: () => ({
      notBefore: new Date(Date.now() + 3600_000),
      notAfter: new Date(Date.now() + 7200_000),
    }),
  });
  const o = env.opts();
  await bootstrapClientCertificate(o);
  assert.ok(
    o.logger.lines.some(
      (l) => l.level === 'warn' && /not valid until .* this node's clock is behind/.test(l.msg),
    ),
  );
});

test('API server not listening at start (connection refused): keeps trying, says so, then succeeds', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'boot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  await writeFile(
    join(dir, 'b.conf'),
    `clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: boot, user: {token: abcdef.0123456789abcdef}}]\ncontexts: [{name: x, context: {cluster: c, user: boot}}]\ncurrent-context: x\n`,
  );
  const logger = recordingLogger();
  const p = bootstrapClientCertificate({
    platconfigPath: join(dir, 'p.conf'),
    bootstrapPlatconfigPath: join(dir, 'b.conf'),
    certDir: join(dir, 'pki'),
    nodeName: 'node-1',
    names: namesFor('platform'),
    clock: systemClock,
    logger,
    healthzWaitMs: 200,
    healthzIntervalMs: 50,
    reminderMs: 100,
  });
  const until = Date.now() + 15_000;
  while (!logger.lines.some((l) => l.msg.includes('is not answering')) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  const line = logger.lines.find((l) => l.msg.includes('is not answering'));
  assert.match(
    String(line?.fields.err ?? ''),
    /connection refused \(is the API server running\?\)/,
  );
  assert.ok(
    logger.lines.some((l) => l.level === 'warn' && l.msg.includes('did not answer /healthz')),
  );
  const ca = await TestCa.create();
  const api = await FakeCsrApi.start({ ca, autoApprove: true, port });
  t.after(() => api.stop());
  assert.equal((await p).bootstrapped, true);
});

test('the bootstrap client speaks JSON, as the reference does, whatever --plat-api-content-type says', async (t) => {
  // The reference (pkg/kubelet/certificate/bootstrap, LoadClientCert) builds its CSR client with
  // clientset.NewForConfig from the bootstrap kubeconfig alone; client-go's content type is then
  // "application/json" (the kubelet's --kube-api-content-type only reaches the client built after
  // bootstrap). So the CSR is created as JSON and answers are asked for as JSON.
  const env = await setup(t);
  const o = env.opts();
  const certs = await startCertificates({
    platconfigPath: o.platconfigPath,
    bootstrapPlatconfigPath: o.bootstrapPlatconfigPath ?? '',
    certDir: o.certDir,
    nodeName: o.nodeName,
    nodeIPs: ['10.0.0.2'],
    names: namesFor('platform', 'platform.io'),
    rotateCertificates: false,
    rotateServerCertificates: false,
    servingCertificate: false,
    contentType: 'application/vnd.kubernetes.protobuf',
    healthzWaitMs: 2000,
    clock: systemClock,
    logger: o.logger,
  });
  t.after(() => certs.stop());
  assert.equal(certs.bootstrap.bootstrapped, true);
  assert.ok(env.api.requests.length >= 3, JSON.stringify(env.api.requests));
  for (const q of env.api.requests)
    assert.equal(q.accept, 'application/json', `${q.method} ${q.url}`);
  const create = env.api.requests.find((q) => q.method === 'POST');
  assert.equal(create?.contentType, 'application/json');
});

test('stopped while it watches for approval: bootstrap ends with the stop, it does not watch again', async (t) => {
  const env = await setup(t, { autoApprove: false });
  const ac = new AbortController();
  const p = bootstrapClientCertificate({ ...env.opts(), signal: ac.signal });
  const until = Date.now() + 10_000;
  while (!env.api.requests.some((q) => q.url.includes('watch=true')) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 10));
  assert.ok(
    env.api.requests.some((q) => q.url.includes('watch=true')),
    'bootstrap watches the pending CSR',
  );
  ac.abort(new Error('stopping'));
  await assert.rejects(p, /stopping/);
  const watches = env.api.requests.filter((q) => q.url.includes('watch=true')).length;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(
    env.api.requests.filter((q) => q.url.includes('watch=true')).length,
    watches,
    'no watch after the stop',
  );
});
