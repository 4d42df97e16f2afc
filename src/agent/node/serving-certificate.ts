// The agent server's certificate, as the reference chooses it: --tls-cert-file and
// --tls-private-key-file (re-read when they change); else, with --rotate-server-certificates
// (serverTLSBootstrap) and an API server, a certificate requested by CSR from the
// profile's agent-serving signer and rotated by the certificate manager, with a self-signed
// pair served until the first one is issued; else a self-signed pair in --cert-dir. Rotations
// and failures are reported as node events.

import type { Names } from '../../common/names.js';
import { CsrClient } from '../client/csr-client.js';
import type { RestClient } from '../client/rest-client.js';
import { servingSans, servingUsages } from '../certificate/csr.js';
import { CertificateManager } from '../certificate/manager.js';
import { loadOrCreateSelfSigned } from '../certificate/self-signed.js';
import {
  FileCertificateStore,
  ensureWritableDir,
  type CertificatePair,
} from '../certificate/store.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { FileServingSource } from '../certificate/serving.js';
import { pemPairSource } from '../server/serving-source.js';
import type { ServingTlsSource } from '../server/types.js';
import type { ObjectReference } from './events/types.js';

export interface ServingCertificateOptions {
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  serverTLSBootstrap: boolean;
  certDir: string;
  nodeName: string;
  nodeIps: readonly string[];
  names: Names;
  rest: RestClient | undefined;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  events: {
    event(obj: ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): void;
  };
}

export interface ServingCertificate {
  source: ServingTlsSource;
  ttlSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** --tls-cert-file and --tls-private-key-file, re-read when they change. */
async function fromFiles(o: ServingCertificateOptions): Promise<ServingCertificate> {
  const files = await FileServingSource.open({
    certFile: o.tlsCertFile,
    keyFile: o.tlsPrivateKeyFile,
    clock: o.clock,
    logger: o.logger,
  });
  o.signal.addEventListener('abort', () => void files.stop(), { once: true });
  return {
    source: pemPairSource(() => files.current()),
    ttlSeconds: () => undefined,
    stop: () => files.stop(),
  };
}

/** The self-signed pair in --cert-dir, made when absent, for the node's names and addresses. */
async function selfSignedPair(o: ServingCertificateOptions): Promise<CertificatePair> {
  await ensureWritableDir(o.certDir);
  const sans = servingSans([o.nodeName, 'localhost'], [...o.nodeIps, '127.0.0.1']);
  return loadOrCreateSelfSigned({
    certDir: o.certDir,
    hostname: o.nodeName,
    dnsNames: sans.dnsNames,
    ipAddresses: sans.ipAddresses,
    clock: o.clock,
    logger: o.logger,
  });
}

/** The certificate manager requesting serving certificates from the agent-serving signer. */
function servingManager(o: ServingCertificateOptions, rest: RestClient): CertificateManager {
  const { clock, logger } = o;
  return new CertificateManager({
    kind: 'server',
    store: new FileCertificateStore({
      certDir: o.certDir,
      prefix: 'nodeagent-server',
      clock,
      logger,
    }),
    csrClient: new CsrClient({ client: rest, names: o.names, clock, logger }),
    signerName: o.names.signers.agentServing,
    template: () => {
      const s = servingSans([o.nodeName], [...o.nodeIps]);
      // The reference never asks for a serving certificate without at least one IP.
      if (s.ipAddresses.length === 0) return undefined;
      return { commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'], ...s };
    },
    usages: servingUsages,
    clock,
    logger: logger.child({ part: 'certificate-manager', kind: 'server' }),
    serverAnswers: async () => (await rest.healthz(1000)).ok,
    onRotated: (pair) =>
      o.events.event(
        nodeRefOf(o),
        'Normal',
        'CertificateRotated',
        `Rotated the serving certificate; the new one expires ${pair.info.notAfter.toISOString()}`,
      ),
  });
}

function nodeRefOf(o: ServingCertificateOptions): ObjectReference {
  return { kind: 'Node', name: o.nodeName, uid: o.nodeName };
}

/** A rotated certificate, the self-signed pair served until the first one is issued. */
async function rotating(
  o: ServingCertificateOptions,
  rest: RestClient,
  selfSigned: CertificatePair,
): Promise<ServingCertificate> {
  const manager = servingManager(o, rest);
  await manager.start();
  o.signal.addEventListener('abort', () => void manager.stop(), { once: true });
  manager.fatal.then(
    (err) =>
      o.events.event(
        nodeRefOf(o),
        'Warning',
        'CertificateRotationFailed',
        `Cannot renew the serving certificate: ${err.message}`,
      ),
    () => undefined,
  );
  return {
    source: pemPairSource(
      () => manager.current(),
      () => selfSigned,
    ),
    ttlSeconds: () => manager.ttlSeconds() ?? ttlOf(selfSigned, o.clock),
    stop: () => manager.stop(),
  };
}

function ttlOf(pair: CertificatePair, clock: Clock): number {
  return (pair.info.notAfter.getTime() - clock.nowMs()) / 1000;
}

export async function servingCertificate(
  o: ServingCertificateOptions,
): Promise<ServingCertificate> {
  if (o.tlsCertFile !== '' && o.tlsPrivateKeyFile !== '') return fromFiles(o);
  const selfSigned = await selfSignedPair(o);
  if (o.serverTLSBootstrap && o.rest !== undefined) return rotating(o, o.rest, selfSigned);
  if (o.serverTLSBootstrap)
    o.logger.warn(
      {},
      'serving certificate rotation needs an API server (--platconfig); using a ' +
        'self-signed serving certificate',
    );
  return {
    source: pemPairSource(() => selfSigned),
    ttlSeconds: () => ttlOf(selfSigned, o.clock),
    stop: () => Promise.resolve(),
  };
}
