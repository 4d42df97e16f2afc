// The client certificate the API client presents, as seen from outside the certificates part:
// its time left (for the TTL gauge) and a `CertificateRotated` node event when the client starts
// presenting a new one (the rotation manager swaps it into the client), checked every 30 s.

import { X509Certificate } from 'node:crypto';
import type { Logger } from '../../../common/log/types.js';
import type { Clock } from '../../../common/util/clock.js';
import type { EventType, ObjectReference } from './types.js';

export interface ClientCertificateWatchOptions {
  rest: { readonly connectionConfig: { readonly certPem?: string } };
  clock: Clock;
  logger: Logger;
  nodeName: string;
  events: { event(obj: ObjectReference, type: EventType, reason: string, message: string): void };
  intervalMs?: number;
}

function notAfterMs(pem: string | undefined): number | undefined {
  if (pem === undefined || pem === '') return undefined;
  try {
    return Date.parse(new X509Certificate(pem).validTo);
  } catch {
    return undefined;
  }
}

export class ClientCertificateWatch {
  private pem: string | undefined;
  private expiresMs: number | undefined;

  constructor(private readonly o: ClientCertificateWatchOptions) {
    this.pem = o.rest.connectionConfig.certPem;
    this.expiresMs = notAfterMs(this.pem);
  }

  /** Seconds until the presented client certificate expires; undefined with token credentials. */
  ttlSeconds(): number | undefined {
    return this.expiresMs === undefined
      ? undefined
      : (this.expiresMs - this.o.clock.nowMs()) / 1000;
  }

  /** Compares once; reports a rotation. */
  check(): void {
    const pem = this.o.rest.connectionConfig.certPem;
    if (pem === this.pem) return;
    this.pem = pem;
    this.expiresMs = notAfterMs(pem);
    if (pem === undefined) return;
    const until = this.expiresMs === undefined ? 'unknown' : new Date(this.expiresMs).toISOString();
    this.o.logger.info({ notAfter: until }, 'the API client presents a new client certificate');
    this.o.events.event(
      { kind: 'Node', name: this.o.nodeName, uid: this.o.nodeName },
      'Normal',
      'CertificateRotated',
      `Rotated the client certificate; the new one expires ${until}`,
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    for (;;) {
      // An aborted signal ends the sleep at once.
      await this.o.clock.sleep(this.o.intervalMs ?? 30_000, signal).catch(() => undefined);
      if (signal.aborted) return;
      this.check();
    }
  }
}
