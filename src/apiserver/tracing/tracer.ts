// plat-apiserver's request tracing: the shared request tracer (src/common/tracing) with the
// API server's name and its raw request path (never dot-resolved) on each span.
import { RequestTracer } from '../../common/tracing/request-tracer.js';
import type { TracingConfiguration } from '../config/tracing.js';
import type { Logger } from '../../common/log/types.js';
import type { RequestTracer as RequestTracerInterface } from '../interfaces.js';
import { rawRequestPath } from '../request-target.js';

export { DEFAULT_OTLP_ENDPOINT, parentContext } from '../../common/tracing/request-tracer.js';

export interface OtelRequestTracerOptions {
  readonly config: TracingConfiguration;
  readonly logger: Logger;
  readonly serviceName?: string;
  /** How often batched spans are exported (default 5 s; tests use less). */
  readonly exportIntervalMs?: number;
}

export class OtelRequestTracer extends RequestTracer implements RequestTracerInterface {
  constructor(opts: OtelRequestTracerOptions) {
    super({
      config: opts.config,
      logger: opts.logger,
      serviceName: opts.serviceName ?? 'plat-apiserver',
      pathOf: rawRequestPath,
      ...(opts.exportIntervalMs !== undefined ? { exportIntervalMs: opts.exportIntervalMs } : {}),
    });
  }
}
