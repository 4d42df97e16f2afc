// tracing on the agent: with a TracingConfiguration (and the PlatletTracing gate) each request
// of the secure server is an OTLP span, continuing the caller's W3C traceparent; without one no
// tracer is built (and OpenTelemetry is never loaded).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { namesFor } from '../../../../src/common/names.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { startTracing } from '../../../../src/agent/start/services/tracing.js';
import type { ServicesContext } from '../../../../src/agent/start/services/context.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { fetchText } from '../../../helpers/server-https-request.js';
import {
  startServerFixture,
  makeServerCerts,
  type ServerCerts,
} from '../../../helpers/server-fixture.js';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js';

let certs: ServerCerts;
before(async () => {
  certs = await makeServerCerts();
});

function context(
  tracing: { endpoint?: string; samplingRatePerMillion?: number } | null,
): ServicesContext {
  const config = { ...defaultConfiguration('file'), tracing };
  return {
    config,
    logger: silentLogger(),
    names: namesFor('platform', 'platform.io'),
    stops: [] as (() => Promise<void>)[],
  } as unknown as ServicesContext;
}

test('tracing: every request of the secure server is an OTLP span continuing the caller traceparent; none without a configuration', async (t) => {
  const rx = await startOtlpReceiver();
  t.after(() => rx.stop());
  assert.equal(await startTracing(context(null)), undefined, 'no tracing configuration: no tracer');
  const ctx = context({ endpoint: rx.endpoint, samplingRatePerMillion: 1_000_000 });
  const tracer = await startTracing(ctx);
  assert.ok(tracer !== undefined);
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    tracer,
  });
  t.after(() => f.stop());
  const ca = certs.ca.certPem;
  assert.equal((await fetchText(`${f.base}/pods`, { ca })).status, 200);
  assert.equal(
    (
      await fetchText(`${f.base}/healthz`, {
        ca,
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      })
    ).status,
    200,
  );
  await Promise.all(ctx.stops.map((s) => s()));
  await rx.waitForSpans(2);
  assert.deepEqual(
    rx.spans.map((s) => s.name),
    ['HTTP GET', 'HTTP GET'],
  );
  const child = rx.spans.find((s) => s.traceId === '0af7651916cd43dd8448eb211c80319c');
  assert.equal(child?.parentSpanId, 'b7ad6b7169203331');
});
