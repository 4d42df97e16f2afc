// Requesting a certificate through the CertificateSigningRequest API and waiting for it: used by
// bootstrap (deterministic name, reused after a crash) and by rotation (generateName csr-).
// The wait is list+watch on the one name; Denied, Failed, deletion and a changed UID end it with
// an error that quotes the condition's reason and message.
import {
  ApiError,
  CertificateError,
  isAlreadyExists,
  isForbidden,
  isUnauthorized,
  userMessage,
} from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import {
  csrCondition,
  issuedCertificate,
  type CertificateSigningRequest,
  type CsrClient,
} from '../client/csr-client.js';
import { publicKeyDer, type PrivateKey } from './keys.js';
import { pemToDer, requestPublicKeyDer } from './csr.js';

export interface RequestCertificateOptions {
  csrClient: CsrClient;
  csrPem: string;
  key: PrivateKey;
  signerName: string;
  usages: string[];
  expirationSeconds?: number;
  /** A fixed name (bootstrap) or a generateName prefix (rotation). */
  name?: string;
  generateName?: string;
  /** How long to wait for issuance. */
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /** Interval of "still waiting" lines (and of "API server unreachable" lines). */
  reminderMs?: number;
  /** What is being requested, for log lines ("client certificate", "serving certificate"). */
  what?: string;
  /** Called with the name once the CSR exists (tests and logs). */
  onCreated?: (name: string) => void;
}

export interface IssuedCertificate {
  certPem: string;
  csrName: string;
}

/** Errors that mean "try again later" rather than "stop". */
export function isTransient(err: unknown): boolean {
  if (err instanceof ApiError) return err.status >= 500 || err.status === 429;
  return !(err instanceof CertificateError) && !(err instanceof Error && err.name === 'AbortError');
}

function conditionText(csr: CertificateSigningRequest, type: string): string {
  const c = csrCondition(csr, type);
  return `reason ${JSON.stringify(c?.reason ?? '')}, message ${JSON.stringify(c?.message ?? '')}`;
}

/** Checks that an existing CSR of our deterministic name is ours to reuse. */
export async function ensureCompatible(
  csr: CertificateSigningRequest,
  o: { key: PrivateKey; signerName: string; usages: string[]; commonName?: string },
): Promise<void> {
  const name = csr.metadata?.name ?? '';
  let theirs: Buffer;
  try {
    const pem = Buffer.from(csr.spec.request, 'base64').toString('utf8');
    const der = pemToDer(pem, 'CERTIFICATE REQUEST') ?? pemToDer(pem, 'NEW CERTIFICATE REQUEST');
    if (!der) throw new Error('no PEM CERTIFICATE REQUEST block');
    theirs = await requestPublicKeyDer(der);
  } catch (err) {
    throw new CertificateError(
      `existing certificate signing request ${name} holds an unreadable request; delete ` +
        `it (kubectl delete csr ${name}) and restart`,
      { cause: err },
    );
  }
  if (!theirs.equals(publicKeyDer(o.key)))
    throw new CertificateError(
      `existing certificate signing request ${name} was made for a different key; ` +
        `delete it (kubectl delete csr ${name}) and restart`,
    );
  if (csr.spec.signerName !== o.signerName)
    throw new CertificateError(
      `existing certificate signing request ${name} asks signer ${csr.spec.signerName}, ` +
        `not ${o.signerName}`,
    );
  const a = [...(csr.spec.usages ?? [])].sort().join(',');
  const b = [...o.usages].sort().join(',');
  if (a !== b)
    throw new CertificateError(
      `existing certificate signing request ${name} asks usages [${a}], not [${b}]`,
    );
}

/** Creates the CSR (or reuses ours), then waits for the certificate. */
export async function requestCertificate(o: RequestCertificateOptions): Promise<IssuedCertificate> {
  const what = o.what ?? 'certificate';
  const reminderMs = o.reminderMs ?? 30_000;
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = o.clock.nowMs() + o.timeoutMs;
  // an object: the flag is set in the timer's callback, which TypeScript's narrowing does not see
  const deadlineState = { timedOut: false };
  const timer = o.clock.sleep(o.timeoutMs, ac.signal).then(
    () => {
      deadlineState.timedOut = true;
      ac.abort(
        new CertificateError(
          `timed out after ${Math.round(o.timeoutMs / 1000)} s waiting for the ${what} ` +
            `of certificate signing request ${o.name ?? o.generateName ?? ''}`,
        ),
      );
    },
    () => undefined,
  );
  try {
    const created = await createOrReuse(o, ac.signal, reminderMs);
    const name = created.metadata?.name ?? '';
    const uid = created.metadata?.uid;
    o.onCreated?.(name);
    const cert = await waitForCertificate(o, name, uid, ac.signal, reminderMs, deadline);
    return { certPem: cert, csrName: name };
  } catch (err) {
    if (deadlineState.timedOut && ac.signal.reason instanceof Error) throw ac.signal.reason;
    throw err;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    ac.abort();
    await timer;
  }
}

async function createOrReuse(
  o: RequestCertificateOptions,
  signal: AbortSignal,
  reminderMs: number,
): Promise<CertificateSigningRequest> {
  const body: CertificateSigningRequest = {
    metadata: o.name ? { name: o.name } : { generateName: o.generateName ?? 'csr-' },
    spec: {
      request: Buffer.from(o.csrPem).toString('base64'),
      signerName: o.signerName,
      usages: o.usages,
    },
  };
  if (o.expirationSeconds !== undefined) body.spec.expirationSeconds = o.expirationSeconds;
  let lastLog = -Infinity;
  const backoff = new BackoffSequence({ clock: o.clock, policy: { initialMs: 500, maxMs: 5000 } });
  const name = o.name;
  for (;;) {
    signal.throwIfAborted();
    try {
      return await o.csrClient.create(body, { signal });
    } catch (err) {
      if (signal.aborted) throw abortReason(signal, err);
      if (name && isAlreadyExists(err)) {
        const existing = await o.csrClient.get(name, { signal });
        await ensureCompatible(existing, o);
        o.logger.info({ csr: name }, `reusing existing certificate signing request ${name}`);
        return existing;
      }
      if (isUnauthorized(err) || isForbidden(err)) throw err;
      if (!isTransient(err)) throw err;
      if (o.clock.nowMs() - lastLog >= reminderMs) {
        lastLog = o.clock.nowMs();
        o.logger.warn(
          { server: o.csrClient.rest.server, err: userMessage(err) },
          `API server ${o.csrClient.rest.server} is not answering; still trying to ` +
            `create the certificate signing request`,
        );
      }
      await backoff.sleep(signal);
    }
  }
}

/** One wait for a CSR's certificate: what it waits for, and what it has said so far. */
interface CertificateWait {
  readonly o: RequestCertificateOptions;
  readonly name: string;
  readonly uid: string | undefined;
  readonly what: string;
  readonly reminderMs: number;
  readonly deadline: number;
  approvedLogged: boolean;
  lastReminder: number;
}

/**
 * The certificate of an observed CSR, or undefined to keep waiting; throws when it can never come.
 */
function checkCsr(
  w: CertificateWait,
  csr: CertificateSigningRequest,
  deleted: boolean,
): string | undefined {
  const { name, uid, what } = w;
  if (csr.metadata?.name !== name) return undefined;
  if (deleted)
    throw new CertificateError(
      `certificate signing request ${name} was deleted while waiting for the ${what}; ` +
        `restart to create a new one`,
    );
  if (uid && csr.metadata.uid && csr.metadata.uid !== uid)
    throw new CertificateError(
      `certificate signing request ${name} was replaced (its UID changed from ${uid} to ` +
        `${csr.metadata.uid}) while waiting for the ${what}`,
    );
  if (csrCondition(csr, 'Denied'))
    throw new CertificateError(
      `certificate signing request ${name} was denied: ${conditionText(csr, 'Denied')}`,
    );
  if (csrCondition(csr, 'Failed'))
    throw new CertificateError(
      `certificate signing request ${name} failed: ${conditionText(csr, 'Failed')}`,
    );
  if (csrCondition(csr, 'Approved')) {
    // The approval is reported when first seen, even when the signer was so quick that the
    // certificate arrives in the same observation: operators read the two steps in order.
    if (!w.approvedLogged) {
      w.approvedLogged = true;
      w.o.logger.info(
        { csr: name },
        `certificate signing request ${name} is approved, waiting to be issued`,
      );
    }
    const cert = issuedCertificate(csr);
    if (cert) {
      w.o.logger.info({ csr: name }, `certificate signing request ${name} is issued`);
      return cert;
    }
  }
  return undefined;
}

function remind(w: CertificateWait): void {
  const { o, name } = w;
  if (o.clock.nowMs() - w.lastReminder < w.reminderMs) return;
  w.lastReminder = o.clock.nowMs();
  const left = Math.max(0, Math.round((w.deadline - o.clock.nowMs()) / 1000));
  o.logger.info(
    { csr: name, secondsLeft: left },
    w.approvedLogged
      ? `still waiting for the signer to issue certificate signing request ${name}`
      : `still waiting for approval of certificate signing request ${name} (signer ` +
          `${o.signerName}); approve it by hand with: kubectl certificate approve ${name}`,
  );
}

/** Reminders also fire when nothing arrives on the watch. */
async function remindEvery(w: CertificateWait, signal: AbortSignal): Promise<void> {
  for (;;) {
    // An aborted signal ends the sleep at once.
    await w.o.clock.sleep(w.reminderMs, signal).catch(() => undefined);
    if (signal.aborted) return;
    remind(w);
  }
}

function abortReason(signal: AbortSignal, fallback?: unknown): unknown {
  return signal.reason instanceof Error ? signal.reason : (fallback ?? new Error('stopped'));
}

/** Watches the CSR until its certificate is issued, resuming the watch after transient failures. */
async function watchForCertificate(w: CertificateWait, signal: AbortSignal): Promise<string> {
  const { o, name, what } = w;
  let lastApiLog = -Infinity;
  for (;;) {
    try {
      for await (const ev of o.csrClient.watch({
        fieldSelector: `metadata.name=${name}`,
        signal,
      })) {
        if (ev.type === 'RELIST') {
          const found = ev.object.items.find((i) => i.metadata?.name === name);
          if (!found)
            throw new CertificateError(
              `certificate signing request ${name} was deleted while waiting for the ` +
                `${what}; restart to create a new one`,
            );
          const c = checkCsr(w, found, false);
          if (c) return c;
        } else if (ev.type !== 'BOOKMARK') {
          const c = checkCsr(w, ev.object, ev.type === 'DELETED');
          if (c) return c;
        }
      }
      // A watch stopped by the signal ends quietly: watching again would loop without waiting.
      if (signal.aborted) throw abortReason(signal);
    } catch (err) {
      if (signal.aborted) throw abortReason(signal, err);
      if (!isTransient(err) || isUnauthorized(err) || isForbidden(err)) throw err;
      if (o.clock.nowMs() - lastApiLog >= w.reminderMs) {
        lastApiLog = o.clock.nowMs();
        o.logger.warn(
          { csr: name, err: userMessage(err) },
          `lost the watch on certificate signing request ${name}; retrying`,
        );
      }
      await o.clock.sleep(2000, signal);
    }
  }
}

async function waitForCertificate(
  o: RequestCertificateOptions,
  name: string,
  uid: string | undefined,
  signal: AbortSignal,
  reminderMs: number,
  deadline: number,
): Promise<string> {
  const w: CertificateWait = {
    o,
    name,
    uid,
    what: o.what ?? 'certificate',
    reminderMs,
    deadline,
    approvedLogged: false,
    lastReminder: o.clock.nowMs(),
  };
  const stopReminders = new AbortController();
  const reminderLoop = remindEvery(w, AbortSignal.any([signal, stopReminders.signal]));
  try {
    return await watchForCertificate(w, signal);
  } finally {
    stopReminders.abort();
    await reminderLoop.catch(() => undefined);
  }
}
