// Requesting a certificate through the CertificateSigningRequest API and waiting for it: used by
// bootstrap (deterministic name, reused after a crash) and by rotation (generateName csr-).
// The wait is list+watch on the one name; Denied, Failed, deletion and a changed UID end it with
// an error that quotes the condition's reason and message.
import { CertificateError, ApiError, isAlreadyExists, isUnauthorized, isForbidden } from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { csrCondition, issuedCertificate, type CertificateSigningRequest, type CsrClient } from '../client/csr-client.js';
import { publicKeyDer, type PrivateKey } from './keys.js';
import { asn1lib, pemToDer } from './csr.js';

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
export async function ensureCompatible(csr: CertificateSigningRequest, o: { key: PrivateKey; signerName: string; usages: string[]; commonName?: string }): Promise<void> {
  const name = csr.metadata?.name ?? '';
  const { schema, csr: pkcs10 } = await asn1lib();
  let theirs: Buffer;
  try {
    const pem = Buffer.from(csr.spec.request, 'base64').toString('utf8');
    const der = pemToDer(pem, 'CERTIFICATE REQUEST') ?? pemToDer(pem, 'NEW CERTIFICATE REQUEST');
    if (!der) throw new Error('no PEM CERTIFICATE REQUEST block');
    const req = schema.AsnConvert.parse(der, pkcs10.CertificationRequest);
    theirs = Buffer.from(schema.AsnConvert.serialize(req.certificationRequestInfo.subjectPKInfo));
  } catch (err) {
    throw new CertificateError(`existing certificate signing request ${name} holds an unreadable request; delete it (kubectl delete csr ${name}) and restart`, { cause: err });
  }
  if (!theirs.equals(publicKeyDer(o.key))) throw new CertificateError(`existing certificate signing request ${name} was made for a different key; delete it (kubectl delete csr ${name}) and restart`);
  if (csr.spec.signerName !== o.signerName) throw new CertificateError(`existing certificate signing request ${name} asks signer ${csr.spec.signerName}, not ${o.signerName}`);
  const a = [...(csr.spec.usages ?? [])].sort().join(',');
  const b = [...o.usages].sort().join(',');
  if (a !== b) throw new CertificateError(`existing certificate signing request ${name} asks usages [${a}], not [${b}]`);
}

/** Creates the CSR (or reuses ours), then waits for the certificate. */
export async function requestCertificate(o: RequestCertificateOptions): Promise<IssuedCertificate> {
  const what = o.what ?? 'certificate';
  const reminderMs = o.reminderMs ?? 30_000;
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = o.clock.nowMs() + o.timeoutMs;
  let timedOut = false;
  const timer = o.clock.sleep(o.timeoutMs, ac.signal).then(
    () => {
      timedOut = true;
      ac.abort(new CertificateError(`timed out after ${Math.round(o.timeoutMs / 1000)} s waiting for the ${what} of certificate signing request ${o.name ?? o.generateName ?? ''}`));
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
    if (timedOut && ac.signal.reason instanceof Error) throw ac.signal.reason;
    throw err;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    ac.abort();
    await timer;
  }
}

async function createOrReuse(o: RequestCertificateOptions, signal: AbortSignal, reminderMs: number): Promise<CertificateSigningRequest> {
  const body: CertificateSigningRequest = {
    metadata: o.name ? { name: o.name } : { generateName: o.generateName ?? 'csr-' },
    spec: { request: Buffer.from(o.csrPem).toString('base64'), signerName: o.signerName, usages: o.usages },
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
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : err;
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
        o.logger.warn({ server: o.csrClient.rest.server, err: (err as Error).message }, `API server ${o.csrClient.rest.server} is not answering; still trying to create the certificate signing request`);
      }
      await backoff.sleep(signal);
    }
  }
}

async function waitForCertificate(o: RequestCertificateOptions, name: string, uid: string | undefined, signal: AbortSignal, reminderMs: number, deadline: number): Promise<string> {
  let approvedLogged = false;
  let lastReminder = o.clock.nowMs();
  let lastApiLog = -Infinity;
  const what = o.what ?? 'certificate';
  // Returns the certificate, or undefined to keep waiting.
  const check = (csr: CertificateSigningRequest, deleted: boolean): string | undefined => {
    if (csr.metadata?.name !== name) return undefined;
    if (deleted) throw new CertificateError(`certificate signing request ${name} was deleted while waiting for the ${what}; restart to create a new one`);
    if (uid && csr.metadata.uid && csr.metadata.uid !== uid) throw new CertificateError(`certificate signing request ${name} was replaced (its UID changed from ${uid} to ${csr.metadata.uid}) while waiting for the ${what}`);
    if (csrCondition(csr, 'Denied')) throw new CertificateError(`certificate signing request ${name} was denied: ${conditionText(csr, 'Denied')}`);
    if (csrCondition(csr, 'Failed')) throw new CertificateError(`certificate signing request ${name} failed: ${conditionText(csr, 'Failed')}`);
    if (csrCondition(csr, 'Approved')) {
      // The approval is reported when first seen, even when the signer was so quick that the
      // certificate arrives in the same observation: operators read the two steps in order.
      if (!approvedLogged) {
        approvedLogged = true;
        o.logger.info({ csr: name }, `certificate signing request ${name} is approved, waiting to be issued`);
      }
      const cert = issuedCertificate(csr);
      if (cert) {
        o.logger.info({ csr: name }, `certificate signing request ${name} is issued`);
        return cert;
      }
    }
    return undefined;
  };
  const remind = (): void => {
    if (o.clock.nowMs() - lastReminder < reminderMs) return;
    lastReminder = o.clock.nowMs();
    const left = Math.max(0, Math.round((deadline - o.clock.nowMs()) / 1000));
    o.logger.info({ csr: name, secondsLeft: left }, approvedLogged
      ? `still waiting for the signer to issue certificate signing request ${name}`
      : `still waiting for approval of certificate signing request ${name} (signer ${o.signerName}); approve it by hand with: kubectl certificate approve ${name}`);
  };
  // Reminders also fire when nothing arrives on the watch.
  const stopReminders = new AbortController();
  const remindSignal = AbortSignal.any([signal, stopReminders.signal]);
  const reminderLoop = (async () => {
    while (!remindSignal.aborted) {
      await o.clock.sleep(reminderMs, remindSignal).catch(() => undefined);
      if (!remindSignal.aborted) remind();
    }
  })();
  try {
    for (;;) {
      try {
        for await (const ev of o.csrClient.watch({ fieldSelector: `metadata.name=${name}`, signal })) {
          if (ev.type === 'RELIST') {
            const found = ev.object.items.find((i) => i.metadata?.name === name);
            if (!found) throw new CertificateError(`certificate signing request ${name} was deleted while waiting for the ${what}; restart to create a new one`);
            const c = check(found, false);
            if (c) return c;
          } else if (ev.type !== 'BOOKMARK') {
            const c = check(ev.object, ev.type === 'DELETED');
            if (c) return c;
          }
        }
      } catch (err) {
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : err;
        if (!isTransient(err) || isUnauthorized(err) || isForbidden(err)) throw err;
        if (o.clock.nowMs() - lastApiLog >= reminderMs) {
          lastApiLog = o.clock.nowMs();
          o.logger.warn({ csr: name, err: (err as Error).message }, `lost the watch on certificate signing request ${name}; retrying`);
        }
        await o.clock.sleep(2000, signal);
      }
    }
  } finally {
    stopReminders.abort();
    await reminderLoop.catch(() => undefined);
  }
}
