import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient, CsrClient, createEventClient, createPodClient, TokenBucket, retryDelayMs, defaultRetryPolicy, parseRetryAfter } from '../../../../src/agent/client/index.js';
import { ApiError, isNotFound, isForbidden } from '../../../../src/common/util/errors.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { ConnectionConfig } from '../../../../src/common/platconfig/platconfig.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function serve(t: { after(fn: () => Promise<void> | void): void }, handler: Handler): Promise<{ url: string; requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] }> {
  const requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function conn(server: string, extra: Partial<ConnectionConfig> = {}): ConnectionConfig {
  return { server, insecureSkipTlsVerify: false, userName: 'u', source: 'test.conf', token: 'abcdef.0123456789abcdef', ...extra };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

test('bearer token, Accept negotiation with JSON fallback, JSON bodies', async (t) => {
  const s = await serve(t, (_req, res) => json(res, 200, { kind: 'Pod', metadata: { name: 'p' } }));
  const rest = new RestClient({ connection: conn(s.url), contentType: 'application/vnd.platform.protobuf' });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  const pod = await pods.get('p', { namespace: 'ns1' });
  assert.equal(pod.metadata?.name, 'p');
  const r = s.requests[0];
  assert.equal(r?.url, '/api/v1/namespaces/ns1/pods/p');
  assert.equal(r?.headers.authorization, 'Bearer abcdef.0123456789abcdef');
  assert.equal(r?.headers.accept, 'application/vnd.platform.protobuf, application/json');
  await pods.create({ metadata: { name: 'q', namespace: 'ns2' } });
  assert.equal(s.requests[1]?.method, 'POST');
  assert.equal(s.requests[1]?.url, '/api/v1/namespaces/ns2/pods');
  assert.equal(s.requests[1]?.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(s.requests[1]?.body ?? ''), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'ns2' } });
  await pods.patch('q', { metadata: { labels: { a: 'b' } } }, { namespace: 'ns2' });
  assert.equal(s.requests[2]?.headers['content-type'], 'application/merge-patch+json');
});

test('a server answering a non-JSON type gets a clear error', async (t) => {
  const s = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.platform.protobuf' });
    res.end('\x00\x01');
  });
  const rest = new RestClient({ connection: conn(s.url) });
  t.after(() => rest.close());
  await assert.rejects(createPodClient({ client: rest }).get('p', { namespace: 'x' }), /cannot decode \(only JSON is implemented\)/);
});

test('Status bodies become ApiError with status, reason, details; 403 names the identity', async (t) => {
  const s = await serve(t, (req, res) => {
    if (req.url?.includes('missing')) json(res, 404, { kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'pods "missing" not found', code: 404, details: { name: 'missing', kind: 'pods' } });
    else json(res, 403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', message: 'no', code: 403 });
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
    assert.match((e as Error).message, /refused GET .* for the bootstrap token "abcdef" \(user "system:bootstrap:abcdef"\)/);
    assert.doesNotMatch((e as Error).message, /0123456789abcdef/);
    return true;
  });
});

test('retries 429/5xx honouring Retry-After, bounded; no retry on 4xx', async (t) => {
  let n = 0;
  const s = await serve(t, (req, res) => {
    n++;
    if (req.url?.includes('bad')) return json(res, 400, { kind: 'Status', reason: 'BadRequest', message: 'bad', code: 400 });
    if (req.url?.includes('always')) return json(res, 503, { kind: 'Status', reason: 'ServiceUnavailable', message: 'down', code: 503 });
    if (n === 1) return json(res, 429, { kind: 'Status', reason: 'TooManyRequests', code: 429 }, { 'retry-after': '7' });
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
  await assert.rejects(createPodClient({ client: once }).get('x', { namespace: 'n' }), /connection refused \(is the API server running\?\)/);
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
    if (mode === 'ok') { res.writeHead(200); res.end('ok'); } else if (mode === 'slow') { setTimeout(() => { res.writeHead(200); res.end('ok'); }, 2000); } else { res.writeHead(500); res.end('etcd not ready'); }
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
  const s = await serve(t, (_req, res) => json(res, 200, { items: [], metadata: { resourceVersion: '5' } }));
  const rest = new RestClient({ connection: conn(s.url) });
  t.after(() => rest.close());
  const csrs = new CsrClient({ client: rest, names: namesFor('platform', 'k8s.io') });
  await csrs.list({ fieldSelector: 'metadata.name=node-csr-x' });
  assert.equal(s.requests[0]?.url, '/apis/certificates.k8s.io/v1/certificatesigningrequests?fieldSelector=metadata.name%3Dnode-csr-x');
});
