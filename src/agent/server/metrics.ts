// The agent's Prometheus metrics that the server part owns. The Registry is passed in so other
// parts (certificates, workers, client) register theirs in the same place and /metrics serves all.

import diagnostics from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface NodeAgentMetricsOptions {
  registry: Registry;
  /** Seconds until the serving certificate expires, read at scrape time; undefined when unknown. */
  servingCertificateTtlSeconds?: () => number | undefined;
  /** Seconds until the client certificate expires, read at scrape time. */
  clientCertificateTtlSeconds?: () => number | undefined;
}

const EVENTS_DROPPED_HELP =
  'Events not delivered to the API server, by reason (queue full, spam filter, retries ' +
  'exhausted).';

export class NodeAgentMetrics {
  readonly podStartDuration: Histogram;
  readonly syncLoopDuration: Histogram;
  /** Requests this agent made to the API server, by status code, method and host. */
  readonly apiRequests: Counter<'code' | 'method' | 'host'>;
  /** Requests served by the agent's servers, by status code and server. */
  readonly serverRequests: Counter<'code' | 'server' | 'verb'>;
  readonly eventsDropped: Counter<'reason'>;
  readonly registry: Registry;

  constructor(options: NodeAgentMetricsOptions) {
    const registers = [options.registry];
    this.registry = options.registry;
    const serving = options.servingCertificateTtlSeconds;
    new Gauge({
      name: 'nodeagent_certificate_manager_server_ttl_seconds',
      help: 'Seconds until the serving certificate expires (negative when expired).',
      registers,
      collect() {
        const v = serving?.();
        if (v !== undefined) this.set(v);
      },
    });
    const client = options.clientCertificateTtlSeconds;
    if (client !== undefined) {
      new Gauge({
        name: 'nodeagent_certificate_manager_client_ttl_seconds',
        help: 'Seconds until the client certificate expires (negative when expired).',
        registers,
        collect() {
          const v = client();
          if (v !== undefined) this.set(v);
        },
      });
    }
    this.podStartDuration = new Histogram({
      name: 'nodeagent_pod_start_duration_seconds',
      help: 'Seconds from the agent first seeing a pod to the pod running.',
      buckets: [
        0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200,
        1800, 2700, 3600,
      ],
      registers,
    });
    this.syncLoopDuration = new Histogram({
      name: 'nodeagent_sync_loop_duration_seconds',
      help: 'Seconds one iteration of the sync loop takes.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.apiRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'HTTP requests to the API server, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.serverRequests = new Counter({
      name: 'nodeagent_http_requests_total',
      help: 'Requests served by the agent, partitioned by status code, server and verb.',
      labelNames: ['code', 'server', 'verb'],
      registers,
    });
    this.eventsDropped = new Counter({
      name: 'nodeagent_events_dropped_total',
      help: EVENTS_DROPPED_HELP,
      labelNames: ['reason'],
      registers,
    });
  }
}

interface UndiciHeadersMessage {
  request: { origin?: string | URL; method?: string };
  response: { statusCode: number };
}

/**
 * Counts every HTTP request this process makes through undici (the REST client to the API
 * server) in `rest_client_requests_total{code,method,host}`, from undici's diagnostics channel,
 * so the client needs no hook of its own. Stops when `signal` aborts.
 */
export function countApiRequests(metrics: NodeAgentMetrics, signal: AbortSignal): void {
  const onHeaders = (message: unknown): void => {
    const m = message as UndiciHeadersMessage;
    let host = '';
    try {
      host = new URL(String(m.request.origin ?? '')).host;
    } catch {
      host = String(m.request.origin ?? '');
    }
    metrics.apiRequests.inc({
      code: String(m.response.statusCode),
      method: m.request.method ?? '',
      host,
    });
  };
  diagnostics.subscribe('undici:request:headers', onHeaders);
  signal.addEventListener(
    'abort',
    () => diagnostics.unsubscribe('undici:request:headers', onHeaders),
    { once: true },
  );
}
