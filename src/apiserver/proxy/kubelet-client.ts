// The credentials plat-apiserver uses towards node agents, as the reference's kubelet client:
// --kubelet-client-certificate/--kubelet-client-key when given; otherwise a client certificate
// issued by the cluster CA at start into --cert-dir (kubeadm's apiserver-kubelet-client: CN
// `<product>-apiserver-kubelet-client`, O system:masters), renewed when it nears expiry.
// The given files are re-read when they change (common/util/pem-file-pair.ts, as the agent's
// --tls-cert-file): connections to agents opened after a change present the new certificate.
// --kubelet-certificate-authority verifies the agents' serving certificates; without it they are
// not verified (the reference's default), which is said once at start.

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import 'reflect-metadata';
import { X509Certificate } from '@peculiar/x509';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { PemFilePair } from '../../common/util/pem-file-pair.js';
import { writeFileAtomic } from '../../common/platconfig/index.js';
import { CertificateError, FlagError, userMessage } from '../../common/util/errors.js';
import { generateClientCert, type CertAndKey } from '../csr/ca.js';
import type { AgentTls } from './agent-dial.js';

export interface KubeletClientFlags {
  readonly certDir: string;
  readonly kubeletClientCertificate: string | undefined;
  readonly kubeletClientKey: string | undefined;
  readonly kubeletCertificateAuthority: string | undefined;
}

const BASE = 'apiserver-kubelet-client';

async function readFlagFile(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new FlagError(`--${flag} ${path}: ${userMessage(err)}`, { flag });
  }
}

function checkCert(pem: string, file: string, flag: string): void {
  try {
    new X509Certificate(pem);
  } catch (err) {
    throw new CertificateError(`--${flag} ${file} is not a PEM certificate: ${userMessage(err)}`, {
      file,
    });
  }
}

async function generated(
  certDir: string,
  ca: CertAndKey,
  product: string,
  logger: Logger,
  clock: Clock,
): Promise<CertAndKey> {
  const crt = join(certDir, `${BASE}.crt`);
  const key = join(certDir, `${BASE}.key`);
  const commonName = `${product}-apiserver-kubelet-client`;
  if (existsSync(crt) && existsSync(key)) {
    try {
      const pair = { certPem: await readFile(crt, 'utf8'), keyPem: await readFile(key, 'utf8') };
      const cert = new X509Certificate(pair.certPem);
      const fresh = cert.notAfter.getTime() > clock.nowMs() + 30 * 24 * 3600 * 1000;
      if (
        fresh &&
        cert.subject.includes(`CN=${commonName}`) &&
        (await cert.verify({
          publicKey: new X509Certificate(ca.certPem).publicKey,
          signatureOnly: true,
        }))
      )
        return pair;
      logger.info(
        { file: crt },
        'the kubelet client certificate is near expiry, for another name or from ' +
          'another CA: issuing a new one',
      );
    } catch (err) {
      logger.warn(
        { file: crt, err: userMessage(err) },
        'cannot read the kubelet client certificate: issuing a new one',
      );
    }
  }
  const pair = await generateClientCert({
    ca,
    commonName,
    organizations: ['system:masters'],
    now: clock.now(),
  });
  await writeFileAtomic(key, pair.keyPem, { mode: 0o600 });
  await writeFileAtomic(crt, pair.certPem, { mode: 0o644 });
  logger.info(
    { file: crt, user: commonName },
    'issued the kubelet client certificate from the cluster CA',
  );
  return pair;
}

/** AgentTls over the reloaded files: each dial reads the pair current then. */
class ReloadedAgentTls implements AgentTls {
  constructor(
    private readonly files: PemFilePair,
    readonly caPem: string | undefined,
  ) {}

  get certPem(): string {
    return this.files.current().certPem;
  }

  get keyPem(): string {
    return this.files.current().keyPem;
  }
}

export interface KubeletClientRuntime {
  readonly logger: Logger;
  readonly clock: Clock;
  /** Ends the checks of the given files. */
  readonly signal: AbortSignal;
  /** How often the given files are looked at (default 30 s). */
  readonly checkIntervalMs?: number;
}

export async function prepareKubeletClient(
  f: KubeletClientFlags,
  ca: CertAndKey,
  product: string,
  r: KubeletClientRuntime,
): Promise<AgentTls> {
  const { logger } = r;
  let caPem: string | undefined;
  if (f.kubeletCertificateAuthority !== undefined) {
    caPem = await readFlagFile(f.kubeletCertificateAuthority, 'kubelet-certificate-authority');
    checkCert(caPem, f.kubeletCertificateAuthority, 'kubelet-certificate-authority');
  } else {
    logger.info(
      {},
      "no --kubelet-certificate-authority: the agents' serving certificates are not " +
        'verified (logs, exec, attach, port-forward, nodes/proxy)',
    );
  }
  const cert = f.kubeletClientCertificate;
  const key = f.kubeletClientKey;
  if (cert !== undefined && key !== undefined) {
    const files = new PemFilePair({
      certFile: cert,
      keyFile: key,
      what: 'kubelet client certificate',
      flags: ['--kubelet-client-certificate', '--kubelet-client-key'],
      logger,
      clock: r.clock,
      ...(r.checkIntervalMs !== undefined ? { checkIntervalMs: r.checkIntervalMs } : {}),
    });
    await files.start(r.signal);
    return new ReloadedAgentTls(files, caPem);
  }
  const pair = await generated(f.certDir, ca, product, logger, r.clock);
  return { certPem: pair.certPem, keyPem: pair.keyPem, caPem };
}
