import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordOf } from '../../../../src/common/util/json-shape.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { CsrClient } from '../../../../src/agent/client/csr-client.js';
import { createEventClient, createPodClient } from '../../../../src/agent/client/typed-clients.js';
import { TokenBucket } from '../../../../src/common/util/token-bucket.js';
import {
  retryDelayMs,
  defaultRetryPolicy,
  parseRetryAfter,
} from '../../../../src/agent/client/backoff.js';
import { ApiError, isNotFound, isForbidden } from '../../../../src/common/util/errors.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { ConnectionConfig } from '../../../../src/common/platconfig/platconfig.js';
import { decodeEnvelope, encodeEnvelope } from '../../../../src/common/protobuf/codec.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  raw: Buffer;
}

async function serve(
  t: { after(fn: () => Promise<void> | void): void },
  handler: Handler,
): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString();
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        raw,
      });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function conn(server: string, extra: Partial<ConnectionConfig> = {}): ConnectionConfig {
  return {
    server,
    insecureSkipTlsVerify: false,
    userName: 'u',
    source: 'test.conf',
    token: 'abcdef.0123456789abcdef',
    ...extra,
  };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

test('bearer token, Accept negotiation with JSON fallback, protobuf bodies (the spec default names the protobuf wire)', async (t) => {
  const s = await serve(t, (_req, res) => json(res, 200, { kind: 'Pod', metadata: { name: 'p' } }));
  const rest = new RestClient({
    connection: conn(s.url),
    contentType: 'application/vnd.platform.protobuf',
  });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  const pod = await pods.get('p', { namespace: 'ns1' });
  assert.equal(pod.metadata?.name, 'p');
  const r = s.requests[0];
  assert.equal(r?.url, '/api/v1/namespaces/ns1/pods/p');
  assert.equal(r?.headers.authorization, 'Bearer abcdef.0123456789abcdef');
  assert.equal(r?.headers.accept, 'application/vnd.kubernetes.protobuf, application/json');
  await pods.create({ metadata: { name: 'q', namespace: 'ns2' } });
  assert.equal(s.requests[1]?.method, 'POST');
  assert.equal(s.requests[1]?.url, '/api/v1/namespaces/ns2/pods');
  assert.equal(s.requests[1]?.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  assert.deepEqual(decodeEnvelope(s.requests[1]?.raw ?? Buffer.alloc(0)).object, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'q', namespace: 'ns2' },
  });
  await pods.patch('q', { metadata: { labels: { a: 'b' } } }, { namespace: 'ns2' });
  assert.equal(s.requests[2]?.headers['content-type'], 'application/merge-patch+json');
});

test('--plat-api-content-type=application/json: JSON bodies and Accept', async (t) => {
  const s = await serve(t, (_req, res) => json(res, 201, { kind: 'Pod', metadata: { name: 'q' } }));
  const rest = new RestClient({ connection: conn(s.url), contentType: 'application/json' });
  t.after(() => rest.close());
  await createPodClient({ client: rest }).create({ metadata: { name: 'q', namespace: 'ns2' } });
  assert.equal(s.requests[0]?.headers.accept, 'application/json');
  assert.equal(s.requests[0]?.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(s.requests[0]?.body ?? ''), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'q', namespace: 'ns2' },
  });
});

test('protobuf answers are decoded; a server answering 415 to protobuf bodies or 406 to the protobuf Accept gets JSON from then on, logged once', async (t) => {
  const unsupported = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    reason: 'UnsupportedMediaType',
    code: 415,
  };
  const notAcceptable = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'only the following media types are accepted: application/json, application/yaml',
    reason: 'NotAcceptable',
    code: 406,
  };
  const s = await serve(t, (req, res) => {
    if (
      req.method === 'POST' &&
      req.headers['content-type'] === 'application/vnd.kubernetes.protobuf'
    )
      return json(res, 415, unsupported);
    if (
      req.url?.endsWith('/json-only') &&
      String(req.headers.accept).startsWith('application/vnd.kubernetes.protobuf')
    )
      return json(res, 406, notAcceptable);
    if (req.url?.endsWith('/json-only'))
      return json(res, 200, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'json-only' } });
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' },
      status: { phase: 'Running' },
    };
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/vnd.kubernetes.protobuf',
    });
    res.end(encodeEnvelope(pod, 'v1', 'Pod'));
  });
  const logger = recordingLogger();
  const rest = new RestClient({
    connection: conn(s.url),
    contentType: 'application/vnd.kubernetes.protobuf',
    logger,
  });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  const got = await pods.get('p', { namespace: 'x' });
  assert.deepEqual(got, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' },
    status: { phase: 'Running' },
  });
  await pods.create({ metadata: { name: 'a', namespace: 'x' } });
  await pods.create({ metadata: { name: 'b', namespace: 'x' } });
  const posts = s.requests.filter((r) => r.method === 'POST').map((r) => r.headers['content-type']);
  assert.deepEqual(posts, [
    'application/vnd.kubernetes.protobuf',
    'application/json',
    'application/json',
  ]);
  assert.equal((await pods.get('json-only', { namespace: 'x' })).metadata?.name, 'json-only');
  assert.equal(s.requests.at(-1)?.headers.accept, 'application/json');
  assert.equal(logger.lines.filter((e) => /\(415\)/.test(e.msg)).length, 1);
  assert.equal(logger.lines.filter((e) => /\(406\)/.test(e.msg)).length, 1);
});

test('a server answering a type that is neither JSON nor protobuf gets a clear error', async (t) => {
  const s = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>');
  });
  const rest = new RestClient({ connection: conn(s.url) });
  t.after(() => rest.close());
  await assert.rejects(
    createPodClient({ client: rest }).get('p', { namespace: 'x' }),
    /content type text\/html, which nodeagent cannot decode \(JSON and application\/vnd.kubernetes.protobuf are\)/,
  );
});

test('Status bodies become ApiError with status, reason, details; 403 names the identity', async (t) => {
  const s = await serve(t, (req, res) => {
    if (req.url?.includes('missing'))
      json(res, 404, {
        kind: 'Status',
        status: 'Failure',
        reason: 'NotFound',
        message: 'pods "missing" not found',
        code: 404,
        details: { name: 'missing', kind: 'pods' },
      });
    else
      json(res, 403, {
        kind: 'Status',
        status: 'Failure',
        reason: 'Forbidden',
        message: 'no',
        code: 403,
      });
  });
  const rest = new RestClient({ connection: conn(s.url) });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  await assert.rejects(pods.get('missing', { namespace: 'x' }), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 404);
    assert.equal(e.reason, 'NotFound');
    assert.deepEqual(e.details, { name: 'missing', kind: 'pods' });
    assert.ok(isNotFound(e));
    return true;
  });
  await assert.rejects(pods.get('other', { namespace: 'x' }), (e: unknown) => {
    assert.ok(isForbidden(e));
    assert.match(
      (e as Error).message,
      /refused GET .* for the bootstrap token "abcdef" \(user "system:bootstrap:abcdef"\)/,
    );
    assert.doesNotMatch((e as Error).message, /0123456789abcdef/);
    return true;
  });
});

test('retries 429/5xx honouring Retry-After, bounded; no retry on 4xx', async (t) => {
  let n = 0;
  const s = await serve(t, (req, res) => {
    n++;
    if (req.url?.includes('bad'))
      return json(res, 400, { kind: 'Status', reason: 'BadRequest', message: 'bad', code: 400 });
    if (req.url?.includes('always'))
      return json(res, 503, {
        kind: 'Status',
        reason: 'ServiceUnavailable',
        message: 'down',
        code: 503,
      });
    if (n === 1)
      return json(
        res,
        429,
        { kind: 'Status', reason: 'TooManyRequests', code: 429 },
        { 'retry-after': '7' },
      );
    if (n === 2) return json(res, 500, { kind: 'Status', reason: 'InternalError', code: 500 });
    return json(res, 200, { metadata: { name: 'ok' } });
  });
  const clock = new ManualClock();
  const rest = new RestClient({ connection: conn(s.url), clock, retry: { maxRetries: 3 } });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  const p = pods.get('x', { namespace: 'n' });
  await clock.waitForSleepers(1);
  assert.equal(clock.sleeps[0], 7000); // Retry-After: 7
  clock.advance(7000);
  await clock.waitForSleepers(1);
  clock.advance(10_000);
  assert.equal((await p).metadata?.name, 'ok');
  assert.equal(n, 3);
  n = 10;
  await assert.rejects(pods.get('bad', { namespace: 'n' }), /HTTP 400 BadRequest/);
  assert.equal(n, 11);
  const q = pods.get('always', { namespace: 'n' });
  for (let i = 0; i < 3; i++) {
    await clock.waitForSleepers(1);
    clock.advance(10_000);
  }
  await assert.rejects(q, (e: unknown) => e instanceof ApiError && e.status === 503);
  assert.equal(n, 15); // 1 + 3 retries
});

test('connection errors are retried and abortable', async () => {
  const clock = new ManualClock();
  const rest = new RestClient({ connection: conn('http://127.0.0.1:1'), clock });
  const ac = new AbortController();
  const p = createPodClient({ client: rest }).get('x', { namespace: 'n', signal: ac.signal });
  await clock.waitForSleepers(1);
  ac.abort(new Error('stopped'));
  await assert.rejects(p, /stopped/);
  await rest.close();
  const once = new RestClient({ connection: conn('http://127.0.0.1:1'), retry: { maxRetries: 0 } });
  await assert.rejects(
    createPodClient({ client: once }).get('x', { namespace: 'n' }),
    /connection refused \(is the API server running\?\)/,
  );
  await once.close();
});

test('token bucket: burst then qps; events bypass the API limiter', async (t) => {
  const clock = new ManualClock();
  const b = new TokenBucket({ qps: 2, burst: 3, clock });
  for (let i = 0; i < 3; i++) await b.acquire();
  let done = false;
  const p = b.acquire().then(() => (done = true));
  await clock.waitForSleepers(1);
  assert.equal(clock.sleeps.at(-1), 500);
  assert.equal(done, false);
  clock.advance(500);
  await p;
  assert.equal(done, true);

  const s = await serve(t, (_req, res) => json(res, 201, {}));
  const rest = new RestClient({ connection: conn(s.url), clock, qps: 1, burst: 1 });
  t.after(() => rest.close());
  await createPodClient({ client: rest }).create({ metadata: { name: 'a', namespace: 'n' } });
  const events = createEventClient({ client: rest });
  for (let i = 0; i < 5; i++) await events.create({ metadata: { name: `e${i}`, namespace: 'n' } });
  assert.equal(s.requests.length, 6);
  assert.equal(clock.pendingSleepers, 0);
});

test('0 means the defaults 50/100', () => {
  assert.equal(retryDelayMs(defaultRetryPolicy, 0, 1500), 1500);
  assert.equal(retryDelayMs(defaultRetryPolicy, 0, 10 ** 9), defaultRetryPolicy.maxRetryAfterMs);
  const d = retryDelayMs(defaultRetryPolicy, 3, undefined, () => 0.5);
  assert.equal(d, 1200);
  assert.equal(parseRetryAfter('3', 0), 3000);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4000), 6000);
});

test('healthz reports ok, failures and timeouts without throwing', async (t) => {
  let mode = 'ok';
  const s = await serve(t, (_req, res) => {
    if (mode === 'ok') {
      res.writeHead(200);
      res.end('ok');
    } else if (mode === 'slow') {
      setTimeout(() => {
        res.writeHead(200);
        res.end('ok');
      }, 2000);
    } else {
      res.writeHead(500);
      res.end('etcd not ready');
    }
  });
  const rest = new RestClient({ connection: conn(s.url), clock: systemClock });
  t.after(() => rest.close());
  assert.deepEqual(await rest.healthz(1000), { ok: true, detail: 'ok' });
  mode = 'fail';
  assert.deepEqual(await rest.healthz(1000), { ok: false, detail: 'HTTP 500: etcd not ready' });
  mode = 'slow';
  const r = await rest.healthz(100);
  assert.equal(r.ok, false);
});

test('CsrClient paths use the platform domain', async (t) => {
  const s = await serve(t, (_req, res) =>
    json(res, 200, { items: [], metadata: { resourceVersion: '5' } }),
  );
  const rest = new RestClient({ connection: conn(s.url) });
  t.after(() => rest.close());
  const csrs = new CsrClient({ client: rest, names: namesFor('platform', 'k8s.io') });
  await csrs.list({ fieldSelector: 'metadata.name=node-csr-x' });
  assert.equal(
    s.requests[0]?.url,
    '/apis/certificates.k8s.io/v1/certificatesigningrequests?fieldSelector=metadata.name%3Dnode-csr-x',
  );
});

test('forty open watches leave ordinary calls their own connections (calls were queued behind watches holding the whole pool)', async (t) => {
  const held: ServerResponse[] = [];
  const s = await serve(t, (req, res) => {
    if (req.url?.includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('');
      held.push(res);
      return;
    }
    json(res, 200, { kind: 'Pod', metadata: { name: 'p' } });
  });
  const rest = new RestClient({ connection: conn(s.url), contentType: 'application/json' });
  t.after(() => rest.close());
  const stops = Array.from({ length: 40 }, () => new AbortController());
  t.after(() => stops.forEach((ac) => ac.abort()));
  // Unbounded waits would hang the test, not fail it: each step gets 5 s.
  const within = <T>(what: string, p: Promise<T>): Promise<T> =>
    Promise.race([
      p,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5_000).unref(),
      ),
    ]);
  const watches = await within(
    'opening 40 watches',
    Promise.all(
      stops.map((ac, i) =>
        rest.stream({
          path: `/api/v1/namespaces/ns${i}/configmaps`,
          query: { watch: 'true' },
          signal: ac.signal,
        }),
      ),
    ),
  );
  for (const w of watches) w.body.on('error', () => undefined);
  assert.equal(held.length, 40);
  const pod = await within(
    'a GET beside 40 watches',
    rest.request({ path: '/api/v1/namespaces/ns1/pods/p' }),
  );
  assert.equal(recordOf(recordOf(pod)?.metadata)?.name, 'p');
});
