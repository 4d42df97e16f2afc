// Request tracing from a TracingConfiguration (component-base tracing/api/v1), for both
// programs: one SERVER span per request, exported over OTLP gRPC (insecure) to the endpoint,
// sampled ParentBased(TraceIdRatio(samplingRatePerMillion/1e6)), continuing a caller's W3C
// traceparent. Nothing is registered globally. The agent loads this file only when tracing is
// configured (OpenTelemetry and gRPC are a lazy chunk of its bundle).
import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../log/types.js';

export const DEFAULT_OTLP_ENDPOINT = 'localhost:4317';

/** The fields of a TracingConfiguration the tracer reads. */
export interface TracingSettings {
  readonly endpoint?: string | undefined;
  readonly samplingRatePerMillion?: number | undefined;
}

export interface RequestTracerOptions {
  readonly config: TracingSettings;
  readonly logger: Logger;
  /** The resource's service.name and the tracer's name. */
  readonly serviceName: string;
  /** The span's url.path from the request target (default: the target up to `?`). */
  readonly pathOf?: (target: string) => string;
  /** How often batched spans are exported (default 5 s; tests use less). */
  readonly exportIntervalMs?: number;
}

/** The parent context of a W3C `traceparent` header (version 00), or the root context. */
export function parentContext(header: string | string[] | undefined): Context {
  const value = Array.isArray(header) ? header[0] : header;
  const m =
    value === undefined
      ? null
      : /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value.trim());
  if (m === null) return ROOT_CONTEXT;
  const [, traceId = '', spanId = '', flags = '00'] = m;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & 1,
    isRemote: true,
  });
}

export class RequestTracer {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly logger: Logger;
  private readonly pathOf: (target: string) => string;

  constructor(opts: RequestTracerOptions) {
    this.logger = opts.logger.child({ component: 'tracing' });
    this.pathOf = opts.pathOf ?? ((t) => t.split('?')[0] ?? t);
    const endpoint = opts.config.endpoint ?? DEFAULT_OTLP_ENDPOINT;
    const url = /^[a-z]+:\/\//.test(endpoint) ? endpoint : `http://${endpoint}`;
    const exporter = new OTLPTraceExporter({ url });
    const rate = (opts.config.samplingRatePerMillion ?? 0) / 1_000_000;
    this.provider = new BasicTracerProvider({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(rate) }),
      resource: new Resource({ 'service.name': opts.serviceName }),
      spanProcessors: [
        new BatchSpanProcessor(exporter, { scheduledDelayMillis: opts.exportIntervalMs ?? 5000 }),
      ],
    });
    this.tracer = this.provider.getTracer(opts.serviceName);
    this.logger.info(
      { endpoint, samplingRatePerMillion: opts.config.samplingRatePerMillion ?? 0 },
      'request tracing enabled',
    );
  }

  startRequestSpan(req: IncomingMessage): { end(statusCode: number): void } {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const span = this.tracer.startSpan(
      `HTTP ${method}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': this.pathOf(target),
          'user_agent.original': req.headers['user-agent'] ?? '',
        },
      },
      parentContext(req.headers.traceparent),
    );
    return {
      end(statusCode: number) {
        span.setAttribute('http.response.status_code', statusCode);
        if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /** Exports what is buffered now. */
  async flush(): Promise<void> {
    await this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    try {
      await this.provider.shutdown();
    } catch (err) {
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'exporting the last spans failed',
      );
    }
  }
}
