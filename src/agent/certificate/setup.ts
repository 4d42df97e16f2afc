// Certificate start-up for the agent, in one call: TLS bootstrap (when needed), the REST client
// built from the resulting platconfig, the client-certificate rotation manager
// (--rotate-certificates) whose new certificates are swapped into that client, and the serving
// certificate source (--tls-cert-file/--tls-private-key-file, serving-certificate rotation, or a
// self-signed pair). Standalone mode (no --platconfig) makes no API call at all.
import type { Names } from '../../common/names.js';
import { hostname as osHostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import { loadConnection } from '../../common/platconfig/platconfig.js';
import { RestClient } from '../client/rest-client.js';
import { CsrClient } from '../client/csr-client.js';
import { bootstrapClientCertificate, CLIENT_PREFIX, type BootstrapResult } from './bootstrap.js';
import { clientUsages, servingSans, servingUsages } from './csr.js';
import { CertificateManager } from './manager.js';
import {
  FileServingSource,
  ManagedServingSource,
  StaticServingSource,
  type ServingCertificateSource,
} from './serving.js';
import { loadOrCreateSelfSigned } from './self-signed.js';
import { FileCertificateStore, ensureWritableDir } from './store.js';
import type { CertificateInfo } from './cert-info.js';

export const SERVER_PREFIX = 'nodeagent-server';

export interface StartCertificatesOptions {
  /** --platconfig; empty or unset: standalone mode (no API calls). */
  platconfigPath?: string;
  bootstrapPlatconfigPath?: string;
  certDir: string;
  nodeName: string;
  /** The host name put in serving certificates (default: nodeName). */
  hostname?: string;
  /** Node IPs (--node-ip, or the detected default). */
  nodeIPs: string[];
  names: Names;
  /** --rotate-certificates. */
  rotateCertificates: boolean;
  /** serverTLSBootstrap and the RotatePlatletServerCertificate gate, both on. */
  rotateServerCertificates: boolean;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  qps?: number;
  burst?: number;
  contentType?: string;
  clock: Clock;
  logger: Logger;
  /** Stops the managers and the client when aborted. */
  signal?: AbortSignal;
  /** Where the TTL gauges go (the agent's /metrics registry). */
  registry?: Registry;
  /** Called once if a certificate expired and cannot be renewed while the server answers. */
  onFatal?: (err: Error) => void;
  /** Tests and short-lived clusters: CSR expirationSeconds and the rotation fraction. */
  expirationSeconds?: number;
  rotationFraction?: () => number;
  deadlineFor?: (info: CertificateInfo) => Date;
  /** Bootstrap waits (tests). */
  healthzWaitMs?: number;
  /** Bootstrap has done its local work and waits on the API server (see BootstrapOptions). */
  onBootstrapWaiting?: () => void;
  /** false: the caller handles the serving certificate itself (no serving source is built). */
  servingCertificate?: boolean;
}

export interface CertificateSetup {
  bootstrap: BootstrapResult;
  /** The API client; undefined in standalone mode. */
  rest?: RestClient;
  /** The client-certificate manager (with --rotate-certificates). */
  client?: CertificateManager;
  /** The serving certificate for the agent's HTTPS servers (unless servingCertificate: false). */
  serving?: ServingCertificateSource;
  /** Resolves when the agent must exit (see CertificateManager.fatal); never in standalone mode. */
  fatal: Promise<Error>;
  stop(): Promise<void>;
}

/** The rotation options both managers take from the caller. */
function rotationOptions(o: StartCertificatesOptions): {
  expirationSeconds?: number;
  rotationFraction?: () => number;
  deadlineFor?: (info: CertificateInfo) => Date;
} {
  return {
    ...(o.expirationSeconds === undefined ? {} : { expirationSeconds: o.expirationSeconds }),
    ...(o.rotationFraction ? { rotationFraction: o.rotationFraction } : {}),
    ...(o.deadlineFor ? { deadlineFor: o.deadlineFor } : {}),
  };
}

/** The client side with --platconfig: bootstrap, the REST client, and its rotation manager. */
interface ApiClientSide {
  readonly bootstrap: BootstrapResult;
  readonly rest: RestClient;
  readonly clientManager: CertificateManager | undefined;
}

/** TLS bootstrap (when needed), then the REST client over the resulting platconfig. */
async function startApiClient(
  o: StartCertificatesOptions,
  platconfigPath: string,
): Promise<ApiClientSide> {
  const { clock, logger } = o;
  const bootstrap = await bootstrapClientCertificate({
    platconfigPath,
    ...(o.bootstrapPlatconfigPath ? { bootstrapPlatconfigPath: o.bootstrapPlatconfigPath } : {}),
    certDir: o.certDir,
    nodeName: o.nodeName,
    names: o.names,
    clock,
    logger,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.qps === undefined ? {} : { qps: o.qps }),
    ...(o.burst === undefined ? {} : { burst: o.burst }),
    ...(o.expirationSeconds === undefined ? {} : { expirationSeconds: o.expirationSeconds }),
    ...(o.healthzWaitMs === undefined ? {} : { healthzWaitMs: o.healthzWaitMs }),
    ...(o.onBootstrapWaiting ? { onWaitingForServer: o.onBootstrapWaiting } : {}),
  });
  const conn = await loadConnection(platconfigPath);
  const rest = new RestClient({
    connection: conn,
    clock,
    logger: logger.child({ part: 'client' }),
    ...(o.qps === undefined ? {} : { qps: o.qps }),
    ...(o.burst === undefined ? {} : { burst: o.burst }),
    ...(o.contentType === undefined ? {} : { contentType: o.contentType }),
  });
  const clientManager = o.rotateCertificates ? clientCertificateManager(o, rest, conn) : undefined;
  return { bootstrap, rest, clientManager };
}

/** --rotate-certificates: the client certificate's manager, its new pairs swapped into `client`. */
function clientCertificateManager(
  o: StartCertificatesOptions,
  client: RestClient,
  conn: { certFile?: string; keyFile?: string },
): CertificateManager {
  const { clock, logger, names } = o;
  const store = new FileCertificateStore({
    certDir: o.certDir,
    prefix: CLIENT_PREFIX,
    ...(conn.certFile ? { certFile: conn.certFile } : {}),
    ...(conn.keyFile ? { keyFile: conn.keyFile } : {}),
    clock,
    logger,
  });
  return new CertificateManager({
    kind: 'client',
    store,
    csrClient: new CsrClient({ client, names, clock, logger }),
    signerName: names.signers.agentClient,
    template: () => ({ commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'] }),
    usages: clientUsages,
    clock,
    logger: logger.child({ part: 'certificate-manager', kind: 'client' }),
    bootstrapCredentialsInUse: () => client.connectionConfig.certPem === undefined,
    onRotated: (pair) =>
      client.setClientCertificate(pair.certPem, pair.keyPem, pair.info.commonName),
    serverAnswers: async () => (await client.healthz(1000)).ok,
    ...rotationOptions(o),
  });
}

/** Serving-certificate rotation through the CSR API (serverTLSBootstrap). */
function servingCertificateManager(
  o: StartCertificatesOptions,
  rest: RestClient,
): CertificateManager {
  const { clock, logger, names } = o;
  const host = (o.hostname ?? o.nodeName).toLowerCase();
  return new CertificateManager({
    kind: 'server',
    store: new FileCertificateStore({ certDir: o.certDir, prefix: SERVER_PREFIX, clock, logger }),
    csrClient: new CsrClient({ client: rest, names, clock, logger }),
    signerName: names.signers.agentServing,
    template: () => {
      const sans = servingSans([host], o.nodeIPs);
      // The reference never asks for a serving certificate without at least one IP.
      if (sans.ipAddresses.length === 0) return undefined;
      return { commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'], ...sans };
    },
    usages: servingUsages,
    clock,
    logger: logger.child({ part: 'certificate-manager', kind: 'server' }),
    serverAnswers: async () => (await rest.healthz(1000)).ok,
    ...rotationOptions(o),
  });
}

/**
 * The serving certificate: the files given, a rotated one (its manager joins `managers`), or
 * self-signed.
 */
async function servingSource(
  o: StartCertificatesOptions,
  rest: RestClient | undefined,
  managers: CertificateManager[],
): Promise<ServingCertificateSource | undefined> {
  const { clock, logger } = o;
  if (o.servingCertificate === false) return undefined;
  if (o.tlsCertFile && o.tlsPrivateKeyFile)
    return FileServingSource.open({
      certFile: o.tlsCertFile,
      keyFile: o.tlsPrivateKeyFile,
      clock,
      logger,
    });
  if (o.rotateServerCertificates && rest) {
    await ensureWritableDir(o.certDir);
    const manager = servingCertificateManager(o, rest);
    managers.push(manager);
    return new ManagedServingSource(manager, clock);
  }
  if (o.rotateServerCertificates)
    logger.warn(
      'serving certificate rotation needs --platconfig; using a self-signed serving certificate',
    );
  await ensureWritableDir(o.certDir);
  const host = (o.hostname ?? o.nodeName).toLowerCase();
  const sans = servingSans([host, 'localhost'], [...o.nodeIPs, '127.0.0.1']);
  return new StaticServingSource(
    await loadOrCreateSelfSigned({
      certDir: o.certDir,
      hostname: host,
      dnsNames: sans.dnsNames,
      ipAddresses: sans.ipAddresses,
      clock,
      logger,
    }),
    clock,
  );
}

/**
 * The stop of everything started, once; run on the caller's signal or when the API client closes.
 */
function stopper(
  o: StartCertificatesOptions,
  managers: readonly CertificateManager[],
  serving: ServingCertificateSource | undefined,
  rest: RestClient | undefined,
): () => Promise<void> {
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(managers.map((m) => m.stop()));
    await serving?.stop();
    await rest?.close();
  };
  // Stop with the caller's signal, or when the caller closes the API client (whichever first).
  const stopSignals = [...(o.signal ? [o.signal] : []), ...(rest ? [rest.closedSignal] : [])];
  if (stopSignals.length) {
    AbortSignal.any(stopSignals).addEventListener(
      'abort',
      () => {
        stop().catch((err: unknown) =>
          o.logger.warn({ err: userMessage(err) }, 'stopping the certificate managers failed'),
        );
      },
      { once: true },
    );
  }
  return stop;
}

export async function startCertificates(o: StartCertificatesOptions): Promise<CertificateSetup> {
  const { clock } = o;
  const api =
    o.platconfigPath !== undefined && o.platconfigPath !== ''
      ? await startApiClient(o, o.platconfigPath)
      : undefined;
  const rest = api?.rest;
  const clientManager = api?.clientManager;
  const managers: CertificateManager[] = clientManager ? [clientManager] : [];
  const serving = await servingSource(o, rest, managers);
  const fatals: Promise<Error>[] = [];
  for (const m of managers) {
    await m.start();
    fatals.push(m.fatal);
  }
  if (o.registry) {
    // prom-client loads only for a registry (it is not needed on the bootstrap path).
    const { registerCertificateMetrics } = await import('./metrics.js');
    registerCertificateMetrics(
      o.registry,
      {
        ...(clientManager ? { client: clientManager } : {}),
        ...(serving ? { server: serving } : {}),
      },
      clock,
    );
  }
  const fatal = fatals.length ? Promise.race(fatals) : new Promise<Error>(() => undefined);
  if (o.onFatal) {
    const cb = o.onFatal;
    fatal.then(cb, () => undefined);
  }
  const stop = stopper(o, managers, serving, rest);
  return {
    bootstrap: api?.bootstrap ?? { bootstrapped: false },
    ...(rest ? { rest } : {}),
    ...(clientManager ? { client: clientManager } : {}),
    ...(serving ? { serving } : {}),
    fatal,
    stop,
  };
}

/** Node name as the reference derives it: --hostname-override, else the host name, lower-cased. */
export function defaultNodeName(hostnameOverride: string | undefined): string {
  const n =
    hostnameOverride && hostnameOverride.trim() !== '' ? hostnameOverride.trim() : osHostname();
  if (!n) throw new CertificateError('cannot determine the node name; set --hostname-override');
  return n.toLowerCase();
}
