// Request spans reach a local OTLP gRPC receiver at the configured sampling rate.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { OtelRequestTracer, parentContext } from '../../../../src/apiserver/tracing/tracer.js';
import { trace } from '@opentelemetry/api';
import { silentLogger } from '../../../../src/common/log/types.js';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js';

const req = (headers: Record<string, string> = {}): IncomingMessage =>
  ({ method: 'GET', url: '/api/v1/nodes?limit=1', headers }) as unknown as IncomingMessage;

test('rate 1000000 exports every request span; rate 0 exports none unless the parent is sampled', async (t) => {
  const rx = await startOtlpReceiver();
  t.after(() => rx.stop());
  const all = new OtelRequestTracer({
    config: {
      apiVersion: 'x',
      kind: 'TracingConfiguration',
      endpoint: rx.endpoint,
      samplingRatePerMillion: 1_000_000,
    },
    logger: silentLogger(),
    exportIntervalMs: 100,
  });
  for (let i = 0; i < 5; i++) all.startRequestSpan(req()).end(200);
  await rx.waitForSpans(5);
  assert.equal(rx.spans[0]?.name, 'HTTP GET');
  await all.shutdown();

  const none = new OtelRequestTracer({
    config: {
      apiVersion: 'x',
      kind: 'TracingConfiguration',
      endpoint: rx.endpoint,
      samplingRatePerMillion: 0,
    },
    logger: silentLogger(),
    exportIntervalMs: 100,
  });
  for (let i = 0; i < 20; i++) none.startRequestSpan(req()).end(200);
  const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  none.startRequestSpan(req({ traceparent: parent })).end(200);
  none
    .startRequestSpan(
      req({ traceparent: '00-0af7651916cd43dd8448eb211c80319d-b7ad6b7169203331-00' }),
    )
    .end(200);
  await none.flush();
  await rx.waitForSpans(6);
  await none.shutdown();
  assert.equal(rx.spans.length, 6, 'only the span with a sampled parent is exported');
  assert.equal(rx.spans[5]?.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(rx.spans[5]?.parentSpanId, 'b7ad6b7169203331');
});

test('a partial rate samples roughly that share of root spans', async (t) => {
  const rx = await startOtlpReceiver();
  t.after(() => rx.stop());
  const half = new OtelRequestTracer({
    config: {
      apiVersion: 'x',
      kind: 'TracingConfiguration',
      endpoint: rx.endpoint,
      samplingRatePerMillion: 500_000,
    },
    logger: silentLogger(),
    exportIntervalMs: 100,
  });
  for (let i = 0; i < 400; i++) half.startRequestSpan(req()).end(200);
  await half.flush();
  await half.shutdown();
  assert.ok(
    rx.spans.length > 140 && rx.spans.length < 260,
    `expected about 200 of 400, got ${rx.spans.length}`,
  );
});

test('traceparent parsing ignores malformed or all-zero headers', () => {
  assert.equal(trace.getSpanContext(parentContext('garbage')), undefined);
  assert.equal(
    trace.getSpanContext(parentContext(`00-${'0'.repeat(32)}-b7ad6b7169203331-01`)),
    undefined,
  );
  assert.equal(
    trace.getSpanContext(parentContext('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))
      ?.traceFlags,
    1,
  );
});
