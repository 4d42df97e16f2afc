// The certificate manager: keeps one certificate (client or serving) fresh for as long as the
// agent runs. It rotates at a jittered 70-90 % of the lifetime, at once when there is no
// certificate, when bootstrap credentials are in use or when the certificate no longer matches
// the template; each rotation makes a new key and a `csr-` CSR and waits up to 15 minutes;
// failures back off (2 s ×2, 10 % jitter, 5 steps, then every 32 s). When the certificate has
// expired (or none came for 5 minutes) while the API server answers, it reports a fatal error
// so the agent exits and its supervisor restarts it into bootstrap.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import type { CsrClient } from '../client/csr-client.js';
import { createCsrPem, type CsrTemplate } from './csr.js';
import { generatePrivateKey, type PrivateKey } from './keys.js';
import { requestCertificate } from './request.js';
import {
  jitteredFraction,
  matchesTemplate,
  referenceBackoff,
  rotationBackoffMs,
  rotationDeadline,
  type RotationBackoff,
} from './rotation.js';
import type { CertificatePair, CertificateStore } from './store.js';
import type { CertificateInfo } from './cert-info.js';

export interface CertificateManagerOptions {
  /** 'client' or 'server': names metrics and log lines. */
  kind: 'client' | 'server';
  store: CertificateStore;
  csrClient: CsrClient;
  signerName: string;
  /** What to ask for now; undefined when a request cannot be made yet (serving: no IP). */
  template: () => CsrTemplate | undefined;
  usages: (key: PrivateKey) => string[];
  expirationSeconds?: number;
  clock: Clock;
  logger: Logger;
  /** True while the agent talks to the API with bootstrap credentials: rotate at once. */
  bootstrapCredentialsInUse?: () => boolean;
  /** Called after each new certificate (e.g. RestClient.setClientCertificate). */
  onRotated?: (pair: CertificatePair) => void;
  /** Does the API server answer? Used before declaring an expired certificate fatal. */
  serverAnswers?: () => Promise<boolean>;
  /** Fraction of the lifetime at which to rotate; default uniform(0.7, 0.9) per certificate. */
  rotationFraction?: () => number;
  /** Replaces the deadline computation altogether (tests: rotate seconds after issuance). */
  deadlineFor?: (info: CertificateInfo) => Date;
  backoff?: RotationBackoff;
  requestTimeoutMs?: number;
  /** Longest single sleep, so template changes (new node IPs) are noticed. */
  recheckMs?: number;
  /** With no certificate for this long (and the server answering): fatal. */
  noCertificateFatalMs?: number;
  random?: () => number;
}

export class CertificateManager {
  private readonly o: CertificateManagerOptions;
  private pair: CertificatePair | undefined;
  private deadline: Date | undefined;
  private ac: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private failures = 0;
  private readonly startedAt: number;
  private readonly fatalPromise: Promise<Error>;
  private resolveFatal!: (err: Error) => void;
  private readyWaiters: ((p: CertificatePair) => void)[] = [];
  private wake: (() => void) | undefined;

  constructor(options: CertificateManagerOptions) {
    this.o = options;
    this.startedAt = options.clock.nowMs();
    this.fatalPromise = new Promise<Error>((r) => (this.resolveFatal = r));
  }

  /** Loads the stored certificate and starts the rotation loop. */
  async start(): Promise<void> {
    if (this.loop) return;
    try {
      this.setPair(await this.o.store.current(), false);
    } catch (err) {
      this.o.logger.warn(
        { err: userMessage(err) },
        `stored ${this.o.kind} certificate unusable; requesting a new one`,
      );
    }
    this.ac = new AbortController();
    this.loop = this.run(this.ac.signal);
  }

  async stop(): Promise<void> {
    this.ac?.abort(new Error('certificate manager stopped'));
    await this.loop;
    this.loop = undefined;
  }

  /** The certificate in use, or undefined before the first one exists. */
  current(): CertificatePair | undefined {
    return this.pair;
  }

  /** Resolves with the first certificate (at once if there is one). */
  ready(): Promise<CertificatePair> {
    if (this.pair) return Promise.resolve(this.pair);
    return new Promise((r) => this.readyWaiters.push(r));
  }

  /** Resolves when the agent must exit: the certificate expired and the server answers. */
  get fatal(): Promise<Error> {
    return this.fatalPromise;
  }

  /** Seconds until notAfter (negative once expired); undefined without a certificate. */
  ttlSeconds(): number | undefined {
    return this.pair
      ? (this.pair.info.notAfter.getTime() - this.o.clock.nowMs()) / 1000
      : undefined;
  }

  /** When the next rotation is due. */
  rotationDeadline(): Date | undefined {
    return this.deadline;
  }

  /** Re-evaluate now (e.g. the node's addresses changed). */
  recheck(): void {
    this.wake?.();
  }

  private setPair(pair: CertificatePair | undefined, rotated: boolean): void {
    this.pair = pair;
    this.deadline = pair
      ? (this.o.deadlineFor?.(pair.info) ??
        rotationDeadline(
          pair.info,
          (this.o.rotationFraction ?? (() => jitteredFraction(this.o.random)))(),
        ))
      : undefined;
    if (pair) {
      this.o.logger.info(
        {
          kind: this.o.kind,
          notAfter: pair.info.notAfter.toISOString(),
          rotationDeadline: this.deadline?.toISOString(),
        },
        `${this.o.kind} certificate expires ${pair.info.notAfter.toISOString()}, ` +
          `rotation due ${this.deadline?.toISOString() ?? ''}`,
      );
      if (rotated) this.o.onRotated?.(pair);
      for (const w of this.readyWaiters.splice(0)) w(pair);
    }
  }

  /** Why a rotation is due now, or undefined when it is not. */
  private dueReason(): string | undefined {
    if (!this.pair) return 'no certificate yet';
    if (this.o.bootstrapCredentialsInUse?.()) return 'bootstrap credentials are in use';
    const t = this.o.template();
    if (t && !matchesTemplate(this.pair.info, t))
      return (
        'the certificate no longer matches the template (name, organization, DNS names or IPs ' +
        'changed)'
      );
    if (this.deadline && this.deadline.getTime() <= this.o.clock.nowMs())
      return 'the rotation deadline has passed';
    return undefined;
  }

  private async sleep(ms: number, signal: AbortSignal): Promise<void> {
    const wakeAc = new AbortController();
    this.wake = () => wakeAc.abort();
    try {
      await this.o.clock.sleep(Math.max(0, ms), AbortSignal.any([signal, wakeAc.signal]));
    } catch {
      // woken or stopped; the loop checks which
    } finally {
      this.wake = undefined;
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    const recheckMs = this.o.recheckMs ?? 60_000;
    while (!signal.aborted) {
      const reason = this.dueReason();
      if (!reason) {
        const wait = (this.deadline?.getTime() ?? this.o.clock.nowMs()) - this.o.clock.nowMs();
        await this.sleep(Math.min(wait, recheckMs), signal);
        continue;
      }
      const template = this.o.template();
      if (!template) {
        this.o.logger.info(
          { kind: this.o.kind },
          `cannot request a ${this.o.kind} certificate yet (the node has no IP address ` +
            `to put in it); waiting`,
        );
        await this.sleep(recheckMs, signal);
        continue;
      }
      try {
        this.o.logger.info(
          { kind: this.o.kind, reason },
          `rotating the ${this.o.kind} certificate: ${reason}`,
        );
        await this.rotate(template, signal);
        this.failures = 0;
      } catch (err) {
        // The signal may abort during the rotation.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        this.failures++;
        const delay = rotationBackoffMs(
          this.o.backoff ?? referenceBackoff,
          this.failures,
          this.o.random,
        );
        this.o.logger.error(
          {
            kind: this.o.kind,
            err: userMessage(err),
            failures: this.failures,
            retryInMs: delay,
            notAfter: this.pair?.info.notAfter.toISOString(),
          },
          `${this.o.kind} certificate rotation failed (attempt ${this.failures}); ` +
            `retrying in ${Math.round(delay / 1000)} s. Check pending CSRs with: kubectl ` +
            `get csr`,
        );
        if (await this.isFatal(signal)) return;
        await this.sleep(delay, signal);
      }
    }
  }

  private async isFatal(signal: AbortSignal): Promise<boolean> {
    const now = this.o.clock.nowMs();
    const expired = this.pair !== undefined && this.pair.info.notAfter.getTime() <= now;
    const noneTooLong =
      this.pair === undefined &&
      now - this.startedAt >= (this.o.noCertificateFatalMs ?? 5 * 60_000);
    if (!expired && !noneTooLong) return false;
    const answers = this.o.serverAnswers ? await this.o.serverAnswers().catch(() => false) : false;
    if (!answers || signal.aborted) return false;
    const err = new CertificateError(
      expired
        ? `the ${this.o.kind} certificate expired at ` +
            `${this.pair?.info.notAfter.toISOString() ?? ''} and could not be renewed while ` +
            `the API server answers; exiting so the agent restarts into bootstrap`
        : `no ${this.o.kind} certificate could be obtained for ` +
            `${Math.round((now - this.startedAt) / 1000)} s while the API server answers; ` +
            `exiting so the agent restarts into bootstrap`,
    );
    this.o.logger.error({ kind: this.o.kind }, err.message);
    this.resolveFatal(err);
    return true;
  }

  private async rotate(template: CsrTemplate, signal: AbortSignal): Promise<void> {
    const key = await generatePrivateKey();
    const usages = this.o.usages(key);
    const csrPem = await createCsrPem(key, template);
    const issued = await requestCertificate({
      csrClient: this.o.csrClient,
      csrPem,
      key,
      signerName: this.o.signerName,
      usages,
      generateName: 'csr-',
      timeoutMs: this.o.requestTimeoutMs ?? 15 * 60_000,
      clock: this.o.clock,
      logger: this.o.logger,
      signal,
      what: `${this.o.kind} certificate`,
      onCreated: (name) =>
        this.o.logger.info(
          { csr: name, signerName: this.o.signerName },
          `waiting for ${this.o.kind} certificate signing request ${name}; if nothing ` +
            `approves it, approve it with: kubectl certificate approve ${name}`,
        ),
      ...(this.o.expirationSeconds === undefined
        ? {}
        : { expirationSeconds: this.o.expirationSeconds }),
    });
    const pair = await this.o.store.update(issued.certPem, key.pem);
    if (pair.info.notBefore.getTime() > this.o.clock.nowMs()) {
      this.o.logger.warn(
        { notBefore: pair.info.notBefore.toISOString() },
        `the new ${this.o.kind} certificate is not valid until ` +
          `${pair.info.notBefore.toISOString()}: this node's clock is behind the signer's`,
      );
    }
    this.setPair(pair, true);
  }
}
