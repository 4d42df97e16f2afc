// The certificates plat-apiserver needs at start, created in --cert-dir when not given: the
// cluster signing CA (ca.crt/ca.key), a self-signed serving CA and serving certificate
// (apiserver-ca.crt, apiserver.crt/apiserver.key) for localhost, 127.0.0.1 and the host name, and
// admin.platconfig: a kubeconfig-layout file with a system:masters client certificate.

import { readFile } from 'node:fs/promises';
import { ensureDirSync } from './storage/ensure-dir.js';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { X509Certificate } from '@peculiar/x509';
import { generateCa, generateClientCert, generateServingCert, type CertAndKey } from './csr/ca.js';
import { writeFileAtomic, writePlatconfig, type Platconfig } from '../common/platconfig/index.js';
import { CertificateError, userMessage } from '../common/util/errors.js';
import type { Clock } from '../common/util/clock.js';

export interface ServerCertificates {
  /** The cluster signing CA: signs CSRs, and client certificates it issued authenticate. */
  readonly clusterCa: CertAndKey;
  readonly serving: CertAndKey;
  /** PEM the clients must trust to reach the server (the serving CA, or the given serving cert). */
  readonly servingCaPem: string;
  readonly servingCaFile: string;
}

async function readPair(certFile: string, keyFile: string, what: string): Promise<CertAndKey> {
  let certPem: string;
  let keyPem: string;
  try {
    certPem = await readFile(certFile, 'utf8');
  } catch (err) {
    throw new CertificateError(`cannot read ${what} certificate ${certFile}: ${userMessage(err)}`, {
      file: certFile,
    });
  }
  try {
    keyPem = await readFile(keyFile, 'utf8');
  } catch (err) {
    throw new CertificateError(`cannot read ${what} key ${keyFile}: ${userMessage(err)}`, {
      file: keyFile,
    });
  }
  try {
    new X509Certificate(certPem);
  } catch (err) {
    throw new CertificateError(
      `${what} certificate ${certFile} is not a PEM certificate: ${userMessage(err)}`,
      { file: certFile },
    );
  }
  if (!keyPem.includes('PRIVATE KEY'))
    throw new CertificateError(`${what} key ${keyFile} is not a PEM private key`, {
      file: keyFile,
    });
  return { certPem, keyPem };
}

async function writePair(dir: string, base: string, pair: CertAndKey): Promise<void> {
  await writeFileAtomic(join(dir, `${base}.key`), pair.keyPem, { mode: 0o600 });
  await writeFileAtomic(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
}

async function loadOrCreateCa(
  dir: string,
  base: string,
  commonName: string,
  clock: Clock,
): Promise<CertAndKey> {
  const crt = join(dir, `${base}.crt`);
  const key = join(dir, `${base}.key`);
  if (existsSync(crt) && existsSync(key)) {
    const pair = await readPair(crt, key, base);
    if (new X509Certificate(pair.certPem).notAfter.getTime() > clock.nowMs() + 24 * 3600 * 1000)
      return pair;
  }
  const now = clock.now();
  const ca = await generateCa({
    commonName: `${commonName}@${Math.floor(now.getTime() / 1000)}`,
    validityDays: 3650,
    now,
  });
  await writePair(dir, base, ca);
  return ca;
}

export function servingHosts(bindAddress: string): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1', hostname()];
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::' && !hosts.includes(bindAddress))
    hosts.push(bindAddress);
  return [...new Set(hosts)];
}

export async function prepareCertificates(o: {
  certDir: string;
  bindAddress: string;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  clusterSigningCertFile: string | undefined;
  clusterSigningKeyFile: string | undefined;
  clock: Clock;
}): Promise<ServerCertificates> {
  try {
    ensureDirSync(o.certDir, 0o700);
  } catch (err) {
    throw new CertificateError(`cannot create --cert-dir ${o.certDir}: ${userMessage(err)}`, {
      file: o.certDir,
    });
  }
  const clusterCa =
    o.clusterSigningCertFile !== undefined && o.clusterSigningKeyFile !== undefined
      ? await readPair(
          o.clusterSigningCertFile,
          o.clusterSigningKeyFile,
          '--cluster-signing-cert-file',
        )
      : await loadOrCreateCa(o.certDir, 'ca', 'plat-apiserver-signer', o.clock);
  if (o.tlsCertFile !== undefined && o.tlsPrivateKeyFile !== undefined) {
    const serving = await readPair(o.tlsCertFile, o.tlsPrivateKeyFile, '--tls-cert-file');
    return { clusterCa, serving, servingCaPem: serving.certPem, servingCaFile: o.tlsCertFile };
  }
  const servingCa = await loadOrCreateCa(
    o.certDir,
    'apiserver-ca',
    'plat-apiserver-serving-ca',
    o.clock,
  );
  const hosts = servingHosts(o.bindAddress);
  const serving = await generateServingCert({ ca: servingCa, hosts, now: o.clock.now() });
  await writePair(o.certDir, 'apiserver', serving);
  return {
    clusterCa,
    serving,
    servingCaPem: servingCa.certPem,
    servingCaFile: join(o.certDir, 'apiserver-ca.crt'),
  };
}

/** Writes `<certDir>/admin.platconfig` (0600, atomically) for a system:masters admin. */
export async function writeAdminPlatconfig(o: {
  certDir: string;
  server: string;
  certs: ServerCertificates;
  clock: Clock;
}): Promise<string> {
  const admin = await generateClientCert({
    ca: o.certs.clusterCa,
    commonName: 'plat-admin',
    organizations: ['system:masters'],
    now: o.clock.now(),
  });
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const config: Platconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'plat-apiserver',
        cluster: { server: o.server, 'certificate-authority-data': b64(o.certs.servingCaPem) },
      },
    ],
    users: [
      {
        name: 'plat-admin',
        user: {
          'client-certificate-data': b64(admin.certPem),
          'client-key-data': b64(admin.keyPem),
        },
      },
    ],
    contexts: [
      {
        name: 'plat-admin@plat-apiserver',
        context: { cluster: 'plat-apiserver', user: 'plat-admin' },
      },
    ],
    'current-context': 'plat-admin@plat-apiserver',
  };
  const path = join(o.certDir, 'admin.platconfig');
  await writePlatconfig(path, config);
  return path;
}
