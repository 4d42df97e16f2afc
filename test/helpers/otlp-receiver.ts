// A local OTLP trace receiver: a gRPC server implementing
// opentelemetry.proto.collector.trace.v1.TraceService/Export that records span names, trace ids
// and parent span ids. Only the fields the tests read are declared; the rest is skipped on decode.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const TRACE_V1 = {
  TraceService: {
    methods: {
      Export: {
        requestType: 'ExportTraceServiceRequest',
        responseType: 'ExportTraceServiceResponse',
      },
    },
  },
  ExportTraceServiceRequest: {
    fields: { resource_spans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
  },
  ExportTraceServiceResponse: { fields: {} },
  ResourceSpans: { fields: { scope_spans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
  ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
  Span: {
    fields: {
      trace_id: { type: 'bytes', id: 1 },
      span_id: { type: 'bytes', id: 2 },
      parent_span_id: { type: 'bytes', id: 4 },
      name: { type: 'string', id: 5 },
    },
  },
};

/** Wraps `inner` in protobufjs JSON namespaces for a dotted package name. */
function inPackage(pkg: string, inner: Record<string, unknown>): Record<string, unknown> {
  return pkg
    .split('.')
    .reduceRight<Record<string, unknown>>((acc, part) => ({ nested: { [part]: acc } }), {
      nested: inner,
    });
}

const OTLP_JSON = inPackage('opentelemetry.proto.collector.trace.v1', TRACE_V1);

export interface ReceivedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
}

export interface TestOtlpReceiver {
  /** host:port for TracingConfiguration.endpoint. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Resolves once at least `n` spans arrived (rejects after `timeoutMs`). */
  waitForSpans(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

interface ExportRequest {
  resource_spans: {
    scope_spans: {
      spans: { trace_id: Buffer; span_id: Buffer; parent_span_id: Buffer; name: string }[];
    }[];
  }[];
}

export async function startOtlpReceiver(): Promise<TestOtlpReceiver> {
  const pkg = protoLoader.fromJSON(
    OTLP_JSON as unknown as Parameters<typeof protoLoader.fromJSON>[0],
    { keepCase: true, defaults: true },
  );
  const svc = pkg[
    'opentelemetry.proto.collector.trace.v1.TraceService'
  ] as unknown as grpc.ServiceDefinition;
  const spans: ReceivedSpan[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = new grpc.Server();
  server.addService(svc, {
    Export: (
      call: grpc.ServerUnaryCall<ExportRequest, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      for (const rs of call.request.resource_spans) {
        for (const ss of rs.scope_spans) {
          for (const s of ss.spans) {
            spans.push({
              name: s.name,
              traceId: s.trace_id.toString('hex'),
              spanId: s.span_id.toString('hex'),
              parentSpanId: s.parent_span_id.toString('hex'),
            });
          }
        }
      }
      for (const w of [...waiters]) {
        if (spans.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      cb(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  return {
    endpoint: `127.0.0.1:${port}`,
    spans,
    waitForSpans(n, timeoutMs = 15_000) {
      if (spans.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`expected ${n} spans, got ${spans.length} within ${timeoutMs}ms`)),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
