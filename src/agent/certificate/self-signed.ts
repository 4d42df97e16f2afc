// Self-signed serving pair (no --tls-cert-file and no serving-certificate rotation): a small CA
// of its own and a leaf for the node's names and addresses, as the reference does. The
// certificate file holds the leaf then that CA (0644); the key is 0600.
import { randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { writeFileAtomic, removeStaleTempFiles } from '../../common/util/atomic-file.js';
import type { Extension } from '@peculiar/x509';
import { x509lib } from './csr.js';
import { generatePrivateKey, toCryptoKeyPair, type PrivateKey } from './keys.js';
import { pairFromPem, type CertificatePair } from './store.js';
import { userMessage } from '../../common/util/errors.js';
import { errnoCode } from '../../common/util/errno.js';

export interface IssueOptions {
  /** Signer: its certificate PEM and key; omit for self-signed. */
  issuer?: { certPem: string; key: PrivateKey };
  subjectKey: PrivateKey;
  /** Certify this public key instead of subjectKey's (signing someone else's CSR). */
  subjectPublicKey?: KeyObject;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  isCa?: boolean;
  usages: ('server auth' | 'client auth')[];
  notBefore: Date;
  notAfter: Date;
}

/** Issues one certificate (a CA or a leaf) with @peculiar/x509; returns its PEM. */
export async function issueCertificate(o: IssueOptions): Promise<string> {
  const x509 = await x509lib();
  const subjectKeys = await toCryptoKeyPair(o.subjectKey);
  const signer = o.issuer ? await toCryptoKeyPair(o.issuer.key) : subjectKeys;
  const publicKey = o.subjectPublicKey
    ? await webcrypto.subtle.importKey(
        'spki',
        o.subjectPublicKey.export({ type: 'spki', format: 'der' }),
        subjectKeys.algorithm,
        true,
        ['verify'],
      )
    : subjectKeys.publicKey;
  const issuerName = o.issuer ? new x509.X509Certificate(o.issuer.certPem).subject : undefined;
  const exts: Extension[] = [];
  exts.push(new x509.BasicConstraintsExtension(o.isCa === true, undefined, true));
  const ku = o.isCa
    ? x509.KeyUsageFlags.keyCertSign |
      x509.KeyUsageFlags.digitalSignature |
      x509.KeyUsageFlags.cRLSign
    : x509.KeyUsageFlags.digitalSignature |
      (o.subjectKey.type === 'rsa' ? x509.KeyUsageFlags.keyEncipherment : 0);
  // An OR of KeyUsageFlags is a number to TypeScript; the library takes the bit set.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  exts.push(new x509.KeyUsagesExtension(ku, true));
  if (o.usages.length) {
    exts.push(
      new x509.ExtendedKeyUsageExtension(
        o.usages.map((u) =>
          u === 'server auth' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
        ),
        false,
      ),
    );
  }
  const names = [
    ...(o.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(o.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length) exts.push(new x509.SubjectAlternativeNameExtension(names, false));
  const subject = [{ CN: [o.commonName] }, ...(o.organizations ?? []).map((v) => ({ O: [v] }))];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '01' + randomBytes(15).toString('hex'),
    subject,
    issuer: issuerName ?? subject,
    notBefore: o.notBefore,
    notAfter: o.notAfter,
    signingAlgorithm: signer.algorithm,
    publicKey,
    signingKey: signer.privateKey,
    extensions: exts,
  });
  return cert.toString('pem') + '\n';
}

export interface SelfSignedOptions {
  certDir: string;
  hostname: string;
  dnsNames: string[];
  ipAddresses: string[];
  clock: Clock;
  logger: Logger;
}

/** Loads `<dir>/nodeagent.crt` + `nodeagent.key` if they are valid, else generates them. */
export async function loadOrCreateSelfSigned(o: SelfSignedOptions): Promise<CertificatePair> {
  const certFile = join(o.certDir, 'nodeagent.crt');
  const keyFile = join(o.certDir, 'nodeagent.key');
  await mkdir(o.certDir, { recursive: true, mode: 0o700 });
  await removeStaleTempFiles(o.certDir);
  try {
    const pair = pairFromPem(
      await readFile(certFile, 'utf8'),
      await readFile(keyFile, 'utf8'),
      certFile,
    );
    if (pair.info.notAfter.getTime() > o.clock.nowMs()) return pair;
    o.logger.info(
      { file: certFile },
      'self-signed serving certificate expired; generating a new one',
    );
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT')
      o.logger.warn(
        { file: certFile, err: userMessage(err) },
        'self-signed serving certificate unusable; generating a new one',
      );
  }
  const now = o.clock.now();
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const caKey = await generatePrivateKey();
  const caPem = await issueCertificate({
    subjectKey: caKey,
    commonName: `${o.hostname}-ca@${Math.floor(now.getTime() / 1000)}`,
    isCa: true,
    usages: [],
    notBefore,
    notAfter: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
  });
  const key = await generatePrivateKey();
  const leafPem = await issueCertificate({
    issuer: { certPem: caPem, key: caKey },
    subjectKey: key,
    commonName: `${o.hostname}@${Math.floor(now.getTime() / 1000)}`,
    dnsNames: o.dnsNames,
    ipAddresses: o.ipAddresses,
    usages: ['server auth'],
    notBefore,
    notAfter: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
  });
  await writeFileAtomic(keyFile, key.pem, { mode: 0o600 });
  await writeFileAtomic(certFile, leafPem + caPem, { mode: 0o644 });
  o.logger.info({ cert: certFile, key: keyFile }, 'generated a self-signed serving certificate');
  return pairFromPem(leafPem + caPem, key.pem, certFile);
}
