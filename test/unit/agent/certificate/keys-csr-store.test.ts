import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdtemp,
  rm,
  readFile,
  readlink,
  stat,
  readdir,
  writeFile,
  chmod,
  symlink,
} from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  generatePrivateKey,
  parsePrivateKey,
  publicKeyDer,
} from '../../../../src/agent/certificate/keys.js';
import {
  bootstrapCsrName,
  clientUsages,
  createCsrPem,
  pemToDer,
  requestPublicKeyDer,
  servingSans,
  type CsrTemplate,
} from '../../../../src/agent/certificate/csr.js';
import { ipAddressBytes } from '../../../../src/agent/certificate/ip-bytes.js';
import { repoRoot } from '../../../helpers/apiserver.js';
import { BlockList } from 'node:net';
import { verify } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import fc from 'fast-check';
import {
  FileCertificateStore,
  ensureWritableDir,
  timestampName,
} from '../../../../src/agent/certificate/store.js';
import { loadOrCreateSelfSigned } from '../../../../src/agent/certificate/self-signed.js';
import { parseCertificate } from '../../../../src/agent/certificate/cert-info.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { TestCa } from '../../../helpers/test-ca.js';
import { NOBODY, asUser, tempDirReachableBy } from '../../../helpers/as-user.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cert-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return d;
}

test('keys: P-256 PKCS#8 generated; EC and PKCS#8 PEM parsed', async () => {
  const k = await generatePrivateKey();
  assert.match(k.pem, /^-----BEGIN PRIVATE KEY-----/);
  assert.equal(k.privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const ecPem = k.privateKey.export({ type: 'sec1', format: 'pem' }).toString();
  assert.match(ecPem, /EC PRIVATE KEY/);
  assert.ok(publicKeyDer(parsePrivateKey(ecPem)).equals(publicKeyDer(k)));
  assert.throws(() => parsePrivateKey('nothing', '/x.key'), /\/x.key holds no PEM private key/);
});

test('CSR: subject, SANs and signature verified by openssl', async (t) => {
  const d = await tempDir(t);
  const k = await generatePrivateKey();
  const pem = await createCsrPem(k, {
    commonName: 'system:node:n1',
    organizations: ['system:nodes'],
    dnsNames: ['n1'],
    ipAddresses: ['10.0.0.1'],
  });
  await writeFile(join(d, 'r.csr'), pem);
  const out = execFileSync(
    'openssl',
    ['req', '-in', join(d, 'r.csr'), '-noout', '-verify', '-subject', '-text'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  assert.match(out, /subject=CN\s*=\s*system:node:n1, O\s*=\s*system:nodes/);
  assert.match(out, /DNS:n1, IP Address:10.0.0.1/);
});

const GOLDEN_TEMPLATES: Record<string, CsrTemplate> = {
  client: { commonName: 'system:node:n1', organizations: ['system:nodes'] },
  serving: {
    commonName: 'system:node:N\u00f6de_1',
    organizations: ['system:nodes', 'extra org'],
    dnsNames: ['n1', 'n1.example'],
    ipAddresses: ['10.0.0.1', 'fd00::1'],
  },
};

/** The request's three parts: CertificationRequestInfo, signatureAlgorithm, signature (DER, asn1js). */
async function requestParts(pem: string): Promise<Buffer[]> {
  const asn1js = await import('asn1js');
  const der = pemToDer(pem, 'CERTIFICATE REQUEST');
  assert.ok(der);
  const seq = asn1js.fromBER(der).result;
  assert.ok(seq instanceof asn1js.Sequence);
  return seq.valueBlock.value.map((v) => Buffer.from(v.valueBeforeDecodeView));
}

test('CSR: the request info and algorithm are byte for byte what the @peculiar/asn1-csr encoder wrote; the signature verifies', async () => {
  const golden = JSON.parse(
    await readFile(join(repoRoot(), 'test/fixtures/csr/request-info.golden.json'), 'utf8'),
  ) as {
    cases: { key: string; template: string; requestInfo: string; signatureAlgorithm: string }[];
  };
  assert.equal(golden.cases.length, 4);
  for (const c of golden.cases) {
    const key = parsePrivateKey(
      await readFile(join(repoRoot(), 'test/fixtures/csr', c.key), 'utf8'),
    );
    const template = GOLDEN_TEMPLATES[c.template];
    assert.ok(template, c.template);
    const pem = await createCsrPem(key, template);
    const [info, algorithm, signature] = await requestParts(pem);
    assert.equal(info?.toString('hex'), c.requestInfo, `${c.key} ${c.template}`);
    assert.equal(algorithm?.toString('hex'), c.signatureAlgorithm, `${c.key} ${c.template}`);
    // BIT STRING: tag, length, unused-bits octet, then the signature
    const sig = (signature ?? Buffer.alloc(0)).subarray(
      (signature?.[1] ?? 0) & 0x80 ? 3 + ((signature?.[1] ?? 0) & 0x7f) : 3,
    );
    assert.ok(
      verify('sha256', info ?? Buffer.alloc(0), key.publicKey, sig),
      `${c.key} ${c.template}: signature`,
    );
    assert.ok(
      (await requestPublicKeyDer(pemToDer(pem, 'CERTIFICATE REQUEST') ?? Buffer.alloc(0))).equals(
        publicKeyDer(key),
      ),
    );
  }
});

test('CSR: read back by @peculiar/x509 (what plat-apiserver reads requests with): subject, SANs, self-signature', async () => {
  const k = await generatePrivateKey();
  const req = new x509.Pkcs10CertificateRequest(
    await createCsrPem(k, GOLDEN_TEMPLATES.serving ?? { commonName: '', organizations: [] }),
  );
  assert.equal(req.subject, 'CN=system:node:N\u00f6de_1, O=system:nodes, O=extra org');
  const raw = req.getExtension('2.5.29.17');
  assert.ok(raw);
  assert.deepEqual(new x509.SubjectAlternativeNameExtension(raw.rawData).names.toJSON(), [
    { type: 'dns', value: 'n1' },
    { type: 'dns', value: 'n1.example' },
    { type: 'ip', value: '10.0.0.1' },
    { type: 'ip', value: 'fd00::1' },
  ]);
  x509.cryptoProvider.set(globalThis.crypto);
  assert.equal(await req.verify(), true);
});

test('CSR: a request that is not PKCS#10 is refused when its public key is read', async () => {
  await assert.rejects(
    requestPublicKeyDer(Buffer.from('3003020100', 'hex')),
    /not a PKCS#10 certification request/,
  );
  await assert.rejects(
    requestPublicKeyDer(Buffer.from('not der')),
    /not a PKCS#10 certification request/,
  );
});

test('IP address bytes: 4 for IPv4, 16 for IPv6 (any text form), read as the same address by node:net', () => {
  assert.equal(ipAddressBytes('10.0.0.1').toString('hex'), '0a000001');
  assert.equal(ipAddressBytes('fd00::1').toString('hex'), 'fd000000000000000000000000000001');
  assert.equal(
    ipAddressBytes('::ffff:1.2.3.4').toString('hex'),
    '00000000000000000000ffff01020304',
  );
  assert.throws(() => ipAddressBytes('fe80::1%eth0'), /is not an IP address/);
  assert.throws(() => ipAddressBytes('n1'), /is not an IP address/);
  fc.assert(
    fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
      const b = ipAddressBytes(ip);
      const v6 = b.length === 16;
      const text = v6
        ? [...Array(8).keys()].map((i) => b.readUInt16BE(i * 2).toString(16)).join(':')
        : [...b].join('.');
      const list = new BlockList();
      list.addAddress(ip, v6 ? 'ipv6' : 'ipv4');
      return list.check(text, v6 ? 'ipv6' : 'ipv4');
    }),
    { numRuns: 500 },
  );
});

test('deterministic CSR name: same inputs same name, any change a different one', async () => {
  const k = await generatePrivateKey();
  const k2 = await generatePrivateKey();
  const u = clientUsages(k);
  assert.deepEqual(u, ['digital signature', 'client auth']);
  const a = bootstrapCsrName(k, 'system:node:n1', ['system:nodes'], u);
  assert.match(a, /^node-csr-[A-Za-z0-9_-]{43}$/);
  assert.equal(bootstrapCsrName(parsePrivateKey(k.pem), 'system:node:n1', ['system:nodes'], u), a);
  assert.notEqual(bootstrapCsrName(k2, 'system:node:n1', ['system:nodes'], u), a);
  assert.notEqual(bootstrapCsrName(k, 'system:node:n2', ['system:nodes'], u), a);
  assert.notEqual(bootstrapCsrName(k, 'system:node:n1', ['system:nodes'], ['client auth']), a);
});

test('serving SANs: deduped, sorted, split into DNS names and IPs', () => {
  assert.deepEqual(
    servingSans(['Node-1', 'node-1'], ['10.0.0.2', '10.0.0.1', '10.0.0.2', 'fd00::1']),
    { dnsNames: ['node-1'], ipAddresses: ['10.0.0.1', '10.0.0.2', 'fd00::1'] },
  );
});

test('store: timestamped 0600 file with chain then key, absolute current symlink swapped', async (t) => {
  const d = await tempDir(t);
  const clock = new ManualClock(Date.UTC(2026, 4, 6, 7, 8, 9));
  const ca = await TestCa.create(clock.now());
  const store = new FileCertificateStore({
    certDir: join(d, 'pki'),
    prefix: 'nodeagent-client',
    clock,
  });
  assert.equal(await store.current(), undefined);
  const k = await generatePrivateKey();
  const cert = await ca.sign(k, {
    commonName: 'system:node:n1',
    organizations: ['system:nodes'],
    notBefore: clock.now(),
    notAfter: new Date(clock.nowMs() + 3600_000),
  });
  const pair = await store.update(cert + ca.certPem, k.pem);
  assert.equal(pair.file, join(d, 'pki', 'nodeagent-client-2026-05-06-07-08-09.pem'));
  assert.equal((await stat(pair.file)).mode & 0o777, 0o600);
  assert.equal(await readlink(join(d, 'pki', 'nodeagent-client-current.pem')), pair.file);
  const text = await readFile(pair.file, 'utf8');
  assert.ok(text.indexOf('BEGIN CERTIFICATE') < text.indexOf('BEGIN PRIVATE KEY'));
  assert.equal((text.match(/BEGIN CERTIFICATE/g) ?? []).length, 2);
  const cur = await store.current();
  assert.equal(cur?.info.commonName, 'system:node:n1');
  assert.deepEqual(cur?.info.organizations, ['system:nodes']);
  // key match via openssl
  const pubFromKey = execFileSync('openssl', ['pkey', '-in', pair.file, '-pubout'], {
    encoding: 'utf8',
  });
  const pubFromCert = execFileSync('openssl', ['x509', '-in', pair.file, '-noout', '-pubkey'], {
    encoding: 'utf8',
  });
  assert.equal(pubFromKey, pubFromCert);
  clock.advance(61_000);
  const k2 = await generatePrivateKey();
  const cert2 = await ca.sign(k2, {
    commonName: 'system:node:n1',
    organizations: ['system:nodes'],
    notBefore: clock.now(),
    notAfter: new Date(clock.nowMs() + 3600_000),
  });
  const p2 = await store.update(cert2, k2.pem);
  assert.equal(await readlink(store.currentPath), p2.file);
  assert.deepEqual((await readdir(join(d, 'pki'))).sort(), [
    'nodeagent-client-2026-05-06-07-08-09.pem',
    'nodeagent-client-2026-05-06-07-09-10.pem',
    'nodeagent-client-current.pem',
  ]);
  await assert.rejects(store.update(cert2, k.pem), /does not match/);
  assert.equal(timestampName(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))), '2026-01-02-03-04-05');
});

test('store: a dangling current symlink reads as no certificate', async (t) => {
  const d = await tempDir(t);
  const store = new FileCertificateStore({
    certDir: d,
    prefix: 'nodeagent-client',
    clock: new ManualClock(),
  });
  await symlink(join(d, 'gone.pem'), store.currentPath);
  assert.equal(await store.current(), undefined);
});

test('an unwritable cert dir is reported with its path', async (t) => {
  if (process.getuid?.() !== 0) {
    const d = await tempDir(t);
    await chmod(d, 0o555);
    await assert.rejects(ensureWritableDir(join(d, 'pki')), /cert dir .*pki is not writable/);
    return;
  }
  // Root writes anywhere: the check runs as nobody, to whom d is read-only (this process switches
  // its effective user, so neither the checkout nor the node binary has to be reachable by nobody).
  const dir = await tempDirReachableBy(NOBODY, 'cert-');
  t.after(dir.cleanup);
  const d = dir.path;
  await chmod(d, 0o555);
  await assert.rejects(
    asUser(NOBODY, () => ensureWritableDir(join(d, 'pki'))),
    /cert dir .*pki is not writable \(EACCES\)/,
  );
  // the same directory writable by nobody: the refusal above came from its mode, nothing else
  await chmod(d, 0o777);
  await asUser(NOBODY, () => ensureWritableDir(join(d, 'pki')));
  assert.equal((await stat(join(d, 'pki'))).uid, NOBODY.uid);
});

test('an unwritable cert dir (a file in the way) is reported before anything else', async (t) => {
  const d = await tempDir(t);
  await writeFile(join(d, 'file'), '');
  await assert.rejects(
    ensureWritableDir(join(d, 'file', 'pki')),
    /cert dir .*file\/pki is not writable \(ENOTDIR\)/,
  );
  await ensureWritableDir(join(d, 'ok'));
  assert.equal((await stat(join(d, 'ok'))).mode & 0o777, 0o700);
});

test('self-signed serving pair: leaf + own CA 0644, key 0600, verified by openssl, reused', async (t) => {
  const d = await tempDir(t);
  const clock = new ManualClock(new Date());
  const pair = await loadOrCreateSelfSigned({
    certDir: d,
    hostname: 'node-1',
    dnsNames: ['node-1'],
    ipAddresses: ['127.0.0.1'],
    clock,
    logger: silentLogger(),
  });
  assert.equal((await stat(join(d, 'nodeagent.crt'))).mode & 0o777, 0o644);
  assert.equal((await stat(join(d, 'nodeagent.key'))).mode & 0o777, 0o600);
  const crt = await readFile(join(d, 'nodeagent.crt'), 'utf8');
  const blocks = crt.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
  assert.equal(blocks.length, 2);
  await writeFile(join(d, 'ca.pem'), blocks[1] ?? '');
  await writeFile(join(d, 'leaf.pem'), blocks[0] ?? '');
  const v = execFileSync(
    'openssl',
    ['verify', '-CAfile', join(d, 'ca.pem'), '-purpose', 'sslserver', join(d, 'leaf.pem')],
    { encoding: 'utf8' },
  );
  assert.match(v, /OK/);
  assert.deepEqual(pair.info.dnsNames, ['node-1']);
  assert.deepEqual(pair.info.ipAddresses, ['127.0.0.1']);
  const again = await loadOrCreateSelfSigned({
    certDir: d,
    hostname: 'node-1',
    dnsNames: ['node-1'],
    ipAddresses: ['127.0.0.1'],
    clock,
    logger: silentLogger(),
  });
  assert.equal(again.certPem, pair.certPem);
  assert.equal(parseCertificate(again.certPem).commonName.startsWith('node-1@'), true);
});
