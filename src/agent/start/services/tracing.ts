// tracing (with the PlatletTracing gate, which validation requires): one OpenTelemetry SERVER
// span per request of the agent's secure server, exported over OTLP gRPC, as the reference's
// kubelet traces its server (service name kubelet under the kubernetes profile, nodeagent
// otherwise). OpenTelemetry and gRPC are loaded only here, when tracing is configured: a lazy
// chunk of the agent's bundle, so an agent without tracing never reads them.
import type { RequestSpans } from '../../server/server.js';
import type { ServicesContext } from './context.js';

export async function startTracing(ctx: ServicesContext): Promise<RequestSpans | undefined> {
  const settings = ctx.config.tracing;
  if (settings === null) return undefined;
  const { RequestTracer } = await import('../../../common/tracing/request-tracer.js');
  const tracer = new RequestTracer({
    config: settings,
    logger: ctx.logger,
    serviceName: ctx.names.agentEventComponent,
  });
  ctx.stops.push(() => tracer.shutdown());
  return tracer;
}
