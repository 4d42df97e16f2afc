// Certificate expiry for the metrics endpoint: seconds left on each certificate (the reference's
// certificate_manager_client_ttl_seconds), and the expiry time, so alerts fire before a node
// goes NotReady for an expired certificate.
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../common/util/clock.js';

export interface TtlSource {
  ttlSeconds(): number | undefined;
}

export interface CertificateMetricsSources {
  client?: TtlSource;
  server?: TtlSource;
}

/** Registers the gauges on `registry`; values are read at scrape time. */
export function registerCertificateMetrics(
  registry: Registry,
  sources: CertificateMetricsSources,
  clock: Clock,
): void {
  for (const kind of ['client', 'server'] as const) {
    const src = sources[kind];
    if (!src) continue;
    new Gauge({
      name: `nodeagent_certificate_manager_${kind}_ttl_seconds`,
      help:
        `Seconds until the ${kind} certificate of the node agent expires (negative once ` +
        `expired; absent without a certificate).`,
      registers: [registry],
      collect() {
        const ttl = src.ttlSeconds();
        if (ttl === undefined) this.reset();
        else this.set(Math.round(ttl));
      },
    });
    new Gauge({
      name: `nodeagent_certificate_manager_${kind}_expiration_timestamp_seconds`,
      help: `Expiry of the ${kind} certificate of the node agent, in seconds since the epoch.`,
      registers: [registry],
      collect() {
        const ttl = src.ttlSeconds();
        if (ttl === undefined) this.reset();
        else this.set(Math.round(clock.nowMs() / 1000 + ttl));
      },
    });
  }
}
