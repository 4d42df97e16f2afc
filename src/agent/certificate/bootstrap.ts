// TLS bootstrap of the client certificate, as the reference does it:
//  1. a valid --platconfig (loads, has a client certificate not past notAfter) skips bootstrap;
//  2. the cert dir must be writable (checked before anything is generated);
//  3. the key: the current certificate's, else <cert-dir>/nodeagent-client.key.tmp (loaded or
//     generated), so a restart after a crash reuses the same key and so the same CSR name;
//  4. /healthz is polled every 2 s (1 s timeout) for up to a minute (only logged); the request
//     (PKCS#10) is built and a new key written to disk while the first answer is on its way: the
//     server still sees /healthz first, and the key is on disk before the CSR is sent;
//  5. the CSR `node-csr-<digest>` is created or reused, then list+watch until issued (1 h);
//     The bootstrap client speaks JSON whatever --plat-api-content-type says: the reference builds
//     it from the bootstrap kubeconfig alone (client-go's default, application/json); the
//     content type applies to the client built from the resulting platconfig (setup.ts).
//  6. the chain and key go to the store (timestamped file + current symlink), the platconfig is
//     written pointing at the symlink, and the .tmp key is removed.
import type { Names } from '../../common/names.js';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CertificateError, PlatconfigError, userMessage } from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import {
  clientCertPlatconfig,
  loadConnection,
  writePlatconfig,
  type ConnectionConfig,
} from '../../common/platconfig/platconfig.js';
import { writeFileAtomic } from '../../common/util/atomic-file.js';
import { RestClient } from '../client/rest-client.js';
import { CsrClient } from '../client/csr-client.js';
import { parseCertificate } from './cert-info.js';
import { asn1lib, bootstrapCsrName, clientUsages, createCsrPem } from './csr.js';
import { generatePrivateKey, parsePrivateKey, type PrivateKey } from './keys.js';
import { requestCertificate, type IssuedCertificate } from './request.js';
import { FileCertificateStore, ensureWritableDir } from './store.js';
import { errnoCode } from '../../common/util/errno.js';

export const CLIENT_PREFIX = 'nodeagent-client';
export const TMP_KEY_FILE = 'nodeagent-client.key.tmp';
/** The reference's bootstrap client content type (see step 5 above). */
export const BOOTSTRAP_CONTENT_TYPE = 'application/json';

export interface BootstrapOptions {
  platconfigPath: string;
  bootstrapPlatconfigPath?: string;
  certDir: string;
  nodeName: string;
  /** The naming profile's names (CSR group and signer). */
  names: Names;
  /** spec.expirationSeconds of the CSR; unset: the signer decides. */
  expirationSeconds?: number;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /** Client tuning (--plat-api-qps/burst; the content type is the reference's JSON). */
  qps?: number;
  burst?: number;
  /** Overrides for tests; defaults are the reference's. */
  healthzIntervalMs?: number;
  healthzTimeoutMs?: number;
  healthzWaitMs?: number;
  certificateWaitMs?: number;
  reminderMs?: number;
  onCsrCreated?: (name: string) => void;
  /** Called once the local work (key, request) is done and bootstrap waits on the API server. */
  onWaitingForServer?: () => void;
}

export interface BootstrapResult {
  /** False when a valid platconfig made bootstrap unnecessary. */
  bootstrapped: boolean;
  csrName?: string;
  certFile?: string;
}

/** Is the platconfig usable as is: loads, holds a client certificate, not expired? */
export async function isPlatconfigValid(
  path: string,
  clock: Clock,
  logger: Logger,
): Promise<boolean> {
  let conn: ConnectionConfig;
  try {
    conn = await loadConnection(path);
  } catch (err) {
    if (!(err instanceof PlatconfigError) || !err.message.includes('does not exist'))
      logger.info({ err: userMessage(err) }, 'existing platconfig is not usable');
    return false;
  }
  if (!conn.certPem || !conn.keyPem) {
    logger.info({ platconfig: path }, 'existing platconfig holds no client certificate');
    return false;
  }
  try {
    const info = parseCertificate(conn.certPem, conn.certFile ?? path);
    parsePrivateKey(conn.keyPem, conn.keyFile ?? path);
    if (info.notAfter.getTime() <= clock.nowMs()) {
      logger.info(
        { platconfig: path, notAfter: info.notAfter.toISOString() },
        'client certificate of the existing platconfig has expired',
      );
      return false;
    }
  } catch (err) {
    logger.info(
      { err: userMessage(err) },
      'client certificate of the existing platconfig is not usable',
    );
    return false;
  }
  return true;
}

/** The key to request with, and its save to disk (settled at once for a key read from disk). */
interface BootstrapKey {
  readonly key: PrivateKey;
  readonly saved: Promise<void>;
}

async function loadOrGenerateTmpKey(path: string, logger: Logger): Promise<BootstrapKey> {
  try {
    const key = parsePrivateKey(await readFile(path, 'utf8'), path);
    logger.debug({ file: path }, 'reusing the private key of an unfinished bootstrap');
    return { key, saved: Promise.resolve() };
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT')
      logger.warn(
        { file: path, err: userMessage(err) },
        'the saved bootstrap key is unusable; generating a new one',
      );
  }
  const key = await generatePrivateKey();
  const saved = writeFileAtomic(path, key.pem, { mode: 0o600 });
  // Awaited before the CSR is sent; this only keeps a failure meanwhile from going unhandled.
  saved.catch(() => undefined);
  return { key, saved };
}

/** Polls /healthz until it answers ok or the wait ends; never fails (the reference only logs). */
export async function waitForHealthz(
  client: RestClient,
  o: {
    intervalMs: number;
    timeoutMs: number;
    waitMs: number;
    clock: Clock;
    logger: Logger;
    signal?: AbortSignal;
  },
): Promise<boolean> {
  const end = o.clock.nowMs() + o.waitMs;
  let last = '';
  for (;;) {
    const r = await client.healthz(o.timeoutMs, o.signal);
    if (r.ok) return true;
    o.signal?.throwIfAborted();
    last = r.detail;
    if (o.clock.nowMs() + o.intervalMs > end) break;
    await o.clock.sleep(o.intervalMs, o.signal);
  }
  o.logger.warn(
    { server: client.server, err: last },
    `API server ${client.server} did not answer /healthz within ` +
      `${Math.round(o.waitMs / 1000)} s; continuing`,
  );
  return false;
}

/**
 * The --bootstrap-platconfig connection; a file that cannot be read is an error naming the flag.
 */
async function loadBootstrapConnection(path: string): Promise<ConnectionConfig> {
  try {
    return await loadConnection(path);
  } catch (err) {
    throw new PlatconfigError(`--bootstrap-platconfig: ${userMessage(err)}`, {
      file: path,
      cause: err,
    });
  }
}

/** The key to request with: the current certificate's, else the kept (or a new) bootstrap key. */
async function bootstrapKey(
  store: FileCertificateStore,
  tmpKeyPath: string,
  logger: Logger,
): Promise<BootstrapKey> {
  let key: PrivateKey | undefined;
  try {
    key = (await store.current())?.key;
  } catch (err) {
    logger.warn({ err: userMessage(err) }, 'current client certificate unreadable; ignoring it');
  }
  if (key) return { key, saved: Promise.resolve() };
  logger.info(
    'No valid private key and/or certificate found, reusing existing private key or ' +
      'creating a new one',
  );
  return loadOrGenerateTmpKey(tmpKeyPath, logger);
}

/** The client certificate's subject, as the reference asks for it. */
function clientSubject(nodeName: string): { commonName: string; organizations: string[] } {
  return { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] };
}

/**
 * Waits for the server's /healthz while the request is built and the key saved (the first
 * /healthz answer takes a TCP and TLS handshake: the local work fits in it); an error of the local
 * work stops the wait.
 */
async function healthyWithRequest(
  o: BootstrapOptions,
  client: RestClient,
  key: BootstrapKey,
): Promise<string> {
  const { clock, logger } = o;
  const stopWaiting = new AbortController();
  const healthy = waitForHealthz(client, {
    intervalMs: o.healthzIntervalMs ?? 2000,
    timeoutMs: o.healthzTimeoutMs ?? 1000,
    waitMs: o.healthzWaitMs ?? 60_000,
    clock,
    logger,
    signal: o.signal ? AbortSignal.any([o.signal, stopWaiting.signal]) : stopWaiting.signal,
  });
  healthy.catch(() => undefined);
  let csrPem: string;
  try {
    // After one turn of the event loop, so that the /healthz connection is on its way first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    csrPem = await createCsrPem(key.key, clientSubject(o.nodeName));
    await key.saved;
  } catch (err) {
    stopWaiting.abort(err);
    throw err;
  }
  o.onWaitingForServer?.();
  await healthy;
  return csrPem;
}

/**
 * Waits for the server's /healthz (building the CSR meanwhile), then submits it and waits for the
 * certificate.
 */
async function requestClientCertificate(
  o: BootstrapOptions,
  client: RestClient,
  bootKey: BootstrapKey,
): Promise<IssuedCertificate> {
  const { clock, logger } = o;
  const { key } = bootKey;
  const { commonName, organizations } = clientSubject(o.nodeName);
  const usages = clientUsages(key);
  const name = bootstrapCsrName(key, commonName, organizations, usages);
  const csrPem = await healthyWithRequest(o, client, bootKey);
  const csrClient = new CsrClient({ client, names: o.names, clock, logger });
  const signerName = csrClient.names.signers.agentClient;
  logger.info({ csr: name, signerName }, 'Waiting for client certificate to be issued');
  return requestCertificate({
    csrClient,
    csrPem,
    key,
    signerName,
    usages,
    name,
    timeoutMs: o.certificateWaitMs ?? 3600_000,
    clock,
    logger,
    what: 'client certificate',
    onCreated: (n) => {
      logger.info(
        { csr: n },
        `certificate signing request ${n} submitted; if it is not approved ` +
          `automatically, approve it with: kubectl certificate approve ${n}`,
      );
      o.onCsrCreated?.(n);
    },
    ...(o.expirationSeconds === undefined ? {} : { expirationSeconds: o.expirationSeconds }),
    ...(o.reminderMs === undefined ? {} : { reminderMs: o.reminderMs }),
    ...(o.signal ? { signal: o.signal } : {}),
  });
}

/**
 * Stores the issued pair, checks it, writes the platconfig that points at it and drops the
 * bootstrap key.
 */
async function saveClientCertificate(
  o: BootstrapOptions,
  store: FileCertificateStore,
  issued: IssuedCertificate,
  key: PrivateKey,
  bootConn: ConnectionConfig,
  tmpKeyPath: string,
): Promise<BootstrapResult> {
  const { clock, logger } = o;
  const { commonName } = clientSubject(o.nodeName);
  const pair = await store.update(issued.certPem, key.pem);
  if (pair.info.notBefore.getTime() > clock.nowMs()) {
    logger.warn(
      { notBefore: pair.info.notBefore.toISOString(), now: clock.now().toISOString() },
      `the issued client certificate is not valid until ` +
        `${pair.info.notBefore.toISOString()}, which is in the future: this node's clock ` +
        `is behind the signer's; fix the clock (NTP) or TLS calls may fail until then`,
    );
  }
  if (pair.info.commonName !== commonName)
    throw new CertificateError(
      `the issued certificate names ${pair.info.commonName}, not ${commonName}`,
    );
  const cfg = clientCertPlatconfig({
    server: bootConn.server,
    ...(bootConn.caFile
      ? { caFile: bootConn.caFile }
      : bootConn.caPem
        ? { caPem: bootConn.caPem }
        : {}),
    ...(bootConn.insecureSkipTlsVerify ? { insecureSkipTlsVerify: true } : {}),
    ...(bootConn.tlsServerName ? { tlsServerName: bootConn.tlsServerName } : {}),
    certFile: store.currentPath,
    keyFile: store.currentPath,
  });
  await writePlatconfig(o.platconfigPath, cfg);
  await unlink(tmpKeyPath).catch((err: unknown) => {
    if (!(err instanceof Error && 'code' in err && err.code === 'ENOENT'))
      logger.warn(
        { file: tmpKeyPath, err: userMessage(err) },
        'could not remove the bootstrap key',
      );
  });
  logger.info(
    { platconfig: o.platconfigPath, certificate: pair.file },
    'client certificate issued and platconfig written',
  );
  return { bootstrapped: true, csrName: issued.csrName, certFile: pair.file };
}

export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<BootstrapResult> {
  const { clock, logger } = o;
  if (await isPlatconfigValid(o.platconfigPath, clock, logger)) {
    logger.info(
      { platconfig: o.platconfigPath },
      'Platconfig exists and is valid, skipping bootstrap',
    );
    return { bootstrapped: false };
  }
  if (!o.bootstrapPlatconfigPath) return { bootstrapped: false };
  logger.info(
    { bootstrapPlatconfig: o.bootstrapPlatconfigPath },
    'Using bootstrap platconfig to generate TLS client cert, key and platconfig file',
  );
  // Load asn1js (for the CSR) while the files are read.
  const lib = asn1lib();
  lib.catch(() => undefined);
  const bootConn = await loadBootstrapConnection(o.bootstrapPlatconfigPath);
  await ensureWritableDir(o.certDir);
  const store = new FileCertificateStore({
    certDir: o.certDir,
    prefix: CLIENT_PREFIX,
    clock,
    logger,
  });
  const tmpKeyPath = join(o.certDir, TMP_KEY_FILE);
  const bootKey = await bootstrapKey(store, tmpKeyPath, logger);
  const client = new RestClient({
    connection: bootConn,
    clock,
    logger,
    ...(o.qps === undefined ? {} : { qps: o.qps }),
    ...(o.burst === undefined ? {} : { burst: o.burst }),
    contentType: BOOTSTRAP_CONTENT_TYPE,
    // One call at a time (/healthz, create, list), so they share one connection; the watch
    // takes a second.
    callConnections: 1,
  });
  try {
    const issued = await requestClientCertificate(o, client, bootKey);
    return await saveClientCertificate(o, store, issued, bootKey.key, bootConn, tmpKeyPath);
  } finally {
    await client.close();
  }
}
