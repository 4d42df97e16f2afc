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
import { FileCertificateStore, ensureWritableDir } from '../certificate/store.js';
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

export async function servingCertificate(
  o: ServingCertificateOptions,
): Promise<ServingCertificate> {
  const { clock, logger } = o;
  if (o.tlsCertFile !== '' && o.tlsPrivateKeyFile !== '') {
    const files = await FileServingSource.open({
      certFile: o.tlsCertFile,
      keyFile: o.tlsPrivateKeyFile,
      clock,
      logger,
    });
    o.signal.addEventListener('abort', () => void files.stop(), { once: true });
    return {
      source: pemPairSource(() => files.current()),
      ttlSeconds: () => undefined,
      stop: () => files.stop(),
    };
  }
  await ensureWritableDir(o.certDir);
  const sans = servingSans([o.nodeName, 'localhost'], [...o.nodeIps, '127.0.0.1']);
  const selfSigned = await loadOrCreateSelfSigned({
    certDir: o.certDir,
    hostname: o.nodeName,
    dnsNames: sans.dnsNames,
    ipAddresses: sans.ipAddresses,
    clock,
    logger,
  });
  const selfTtl = (): number => (selfSigned.info.notAfter.getTime() - clock.nowMs()) / 1000;
  if (!o.serverTLSBootstrap || o.rest === undefined) {
    if (o.serverTLSBootstrap)
      logger.warn(
        {},
        'serving certificate rotation needs an API server (--platconfig); using a self-signed serving certificate',
      );
    return {
      source: pemPairSource(() => selfSigned),
      ttlSeconds: selfTtl,
      stop: () => Promise.resolve(),
    };
  }
  const nodeRef: ObjectReference = { kind: 'Node', name: o.nodeName, uid: o.nodeName };
  const rest = o.rest;
  const manager = new CertificateManager({
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
        nodeRef,
        'Normal',
        'CertificateRotated',
        `Rotated the serving certificate; the new one expires ${pair.info.notAfter.toISOString()}`,
      ),
  });
  await manager.start();
  o.signal.addEventListener('abort', () => void manager.stop(), { once: true });
  manager.fatal.then(
    (err) =>
      o.events.event(
        nodeRef,
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
    ttlSeconds: () => manager.ttlSeconds() ?? selfTtl(),
    stop: () => manager.stop(),
  };
}
