// Fuzzes request paths and query parameters against a real, started plat-apiserver: every
// target of the hostile corpus (test/fixtures/hostile-requests/paths.txt), then fast-check
// targets built from hostile segments (dot segments raw and encoded, bad escapes, encoded
// separators, control bytes) and hostile query values. For every request: no 5xx and no dropped
// connection; a 2xx body holds only objects the target names; after every write, every sentinel
// object the target does not name is unchanged (test/fuzz/path-model.ts is the oracle). The run
// count comes from fuzzRuns (FUZZ_RUNS for the long run in scripts/fuzz.mjs).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { csrBody, eventBody, makeCsrPem, nodeBody } from '../helpers/apiserver-fixtures.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';
import { keepAliveAdminAgent, rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { waitFor } from '../helpers/server-https-request.js';
import type { Agent } from 'undici';
import { names, namedTarget } from './path-model.js';

type Obj = Record<string, unknown>;
const CSR_GROUP = 'certificates.platform.io';
const here = dirname(fileURLToPath(import.meta.url));
const corpusFile = join(
  here,
  '..',
  '..',
  '..',
  'test',
  'fixtures',
  'hostile-requests',
  'paths.txt',
);

interface Sentinel {
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly collection: string;
  readonly body: () => Obj;
  /** The state the server's controllers leave it in; until then its resourceVersion still moves. */
  readonly settled: (o: Obj) => boolean;
}

let api: StartedApiServer;
let client: Agent;
let csrPem = '';
const sentinels: Sentinel[] = [];
const rvs = new Map<Sentinel, string>();

const asCreated = (): boolean => true;
const event = (namespace: string, name: string): Sentinel => ({
  group: '',
  resource: 'events',
  namespace,
  name,
  collection: `/api/v1/namespaces/${namespace}/events`,
  body: () => eventBody(name, namespace),
  settled: asCreated,
});
/** A node client CSR: csrapproving approves it and csrsigning issues its certificate (two writes). */
const issued = (o: Obj): boolean =>
  typeof (o['status'] as Obj | undefined)?.['certificate'] === 'string';
const csr = (name: string): Sentinel => ({
  group: CSR_GROUP,
  resource: 'certificatesigningrequests',
  namespace: '',
  name,
  collection: `/apis/${CSR_GROUP}/v1/certificatesigningrequests`,
  body: () =>
    csrBody(name, csrPem, 'platform.io/plat-apiserver-client-platlet', [
      'digital signature',
      'client auth',
    ]),
  settled: issued,
});
const namespace = (name: string): Sentinel => ({
  group: '',
  resource: 'namespaces',
  namespace: '',
  name,
  collection: '/api/v1/namespaces',
  body: () => ({ metadata: { name } }),
  settled: asCreated,
});
const node = (name: string): Sentinel => ({
  group: '',
  resource: 'nodes',
  namespace: '',
  name,
  collection: '/api/v1/nodes',
  body: () => nodeBody(name),
  settled: asCreated,
});

/** A sentinel is named by a target that names it, or (namespaced) that names its namespace. */
function covered(target: string, s: Sentinel): boolean {
  return (
    names(target, s) ||
    (s.namespace !== '' &&
      names(target, { group: '', resource: 'namespaces', namespace: '', name: s.namespace }))
  );
}

/** Each sentinel as the server holds it now (undefined: gone). */
async function currentObjects(): Promise<Map<Sentinel, Obj | undefined>> {
  const out = new Map<Sentinel, Obj | undefined>();
  const lists = new Map<string, Obj[]>();
  for (const s of sentinels) {
    let items = lists.get(s.collection);
    if (items === undefined) {
      const r = await rawRequest(client, api.url, 'GET', s.collection);
      assert.equal(r.status, 200, `listing ${s.collection}: ${r.text}`);
      items = (r.json?.['items'] ?? []) as Obj[];
      lists.set(s.collection, items);
    }
    out.set(
      s,
      items.find((i) => (i['metadata'] as Obj)['name'] === s.name),
    );
  }
  return out;
}

async function currentRvs(): Promise<Map<Sentinel, string | undefined>> {
  const rv = (o: Obj | undefined): string | undefined =>
    o === undefined ? undefined : String((o['metadata'] as Obj)['resourceVersion']);
  return new Map([...(await currentObjects())].map(([s, o]) => [s, rv(o)]));
}

/**
 * Creates the sentinels that are missing (namespaces first), waits until the controllers have done
 * with each (a CSR just created is approved, then issued: recorded before that, its resourceVersion
 * would move under the next request) and records every resourceVersion.
 */
async function restoreSentinels(): Promise<void> {
  const now = await currentRvs();
  for (const s of sentinels) {
    if (now.get(s) !== undefined) continue;
    const r = await rawRequest(client, api.url, 'POST', s.collection, {
      body: JSON.stringify(s.body()),
      contentType: 'application/json',
    });
    assert.ok(r.status === 201 || r.status === 409, `re-creating ${s.name}: ${r.text}`);
  }
  let unsettled: string[] = [];
  await waitFor(
    async () => {
      unsettled = [...(await currentObjects())]
        .filter(([s, o]) => o !== undefined && !s.settled(o))
        .map(([s]) => `${s.resource}/${s.name}`);
      return unsettled.length === 0;
    },
    'the sentinels to settle',
    30_000,
  ).catch((err: unknown) => assert.fail(`${String(err)}: ${unsettled.join(', ')} not settled`));
  for (const [s, rv] of await currentRvs()) rvs.set(s, rv ?? '');
}

/** After a write: every sentinel the target does not name is as it was. */
async function checkSentinels(method: string, target: string): Promise<void> {
  let changed = false;
  for (const [s, rv] of await currentRvs()) {
    if (rv === rvs.get(s)) continue;
    changed = true;
    assert.ok(
      covered(target, s),
      `${method} ${target} changed ${s.resource}/${s.namespace}/${s.name} (${rvs.get(s) ?? ''} -> ${rv ?? 'deleted'}) without naming it`,
    );
  }
  if (changed) await restoreSentinels();
}

const KIND_RESOURCE: Readonly<Record<string, string>> = {
  Event: 'events',
  Namespace: 'namespaces',
  Node: 'nodes',
  Pod: 'pods',
  CertificateSigningRequest: 'certificatesigningrequests',
};

/** A 2xx body (an object, a list or watch lines) holds only what the target names. */
function checkRead(method: string, target: string, r: RawResponse): void {
  const objects: Obj[] = [];
  const lines =
    r.json !== undefined
      ? [r.json]
      : r.text.split('\n').flatMap((l) => {
          try {
            const v = JSON.parse(l) as Obj;
            return v !== null && typeof v === 'object' && typeof v['object'] === 'object'
              ? [v['object'] as Obj]
              : [];
          } catch {
            return [];
          }
        });
  for (const body of lines) {
    if (Array.isArray(body['items']))
      objects.push(
        ...(body['items'] as Obj[]).map((i) => ({
          ...i,
          kind: String(body['kind']).replace(/List$/, ''),
        })),
      );
    else objects.push(body);
  }
  for (const o of objects) {
    const resource = KIND_RESOURCE[String(o['kind'])];
    if (resource === undefined) continue; // Status, discovery, bookmarks
    const m = (o['metadata'] ?? {}) as Obj;
    const group = resource === 'certificatesigningrequests' ? CSR_GROUP : '';
    const obj = {
      group,
      resource,
      namespace: String(m['namespace'] ?? ''),
      name: String(m['name'] ?? ''),
    };
    assert.ok(
      names(target, obj),
      `${method} ${target} answered ${r.status} with ${resource} ${obj.namespace}/${obj.name}, which it does not name`,
    );
  }
}

async function send(
  method: string,
  target: string,
  body?: string,
  contentType?: string,
): Promise<RawResponse> {
  let r: RawResponse;
  try {
    r = await rawRequest(client, api.url, method, target, {
      streamWindowMs: 300,
      timeoutMs: 10_000,
      ...(body !== undefined ? { body, contentType: contentType ?? 'application/json' } : {}),
    });
  } catch (err) {
    assert.fail(
      `${method} ${target}: the request failed (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  assert.ok(
    r.status >= 200 && r.status < 500,
    `${method} ${target} answered ${r.status}: ${r.text.slice(0, 500)}`,
  );
  if (r.status < 300 && method !== 'HEAD') checkRead(method, target, r);
  if (method !== 'GET' && method !== 'HEAD') await checkSentinels(method, target);
  return r;
}

before(async () => {
  api = await startApiServer({});
  client = keepAliveAdminAgent(api.adminPlatconfig);
  csrPem = (await makeCsrPem({ cn: 'system:node:guard', orgs: ['system:nodes'] })).csrPem;
  sentinels.push(
    namespace('fuzz-guard'),
    event('fuzz-guard', 'guard-a'),
    event('fuzz-guard', 'guard-b'),
    event('default', 'guard-c'),
    csr('guard-csr-a'),
    csr('guard-csr-b'),
    node('guard-node'),
  );
  await restoreSentinels();
});
after(async () => {
  await client?.close();
  await api?.stop();
});

test('the hostile corpus: no 5xx, the expected status, nothing read or changed that the target does not name', async () => {
  const lines = readFileSync(corpusFile, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  assert.ok(lines.length >= 50, 'the corpus is there');
  await restoreSentinels();
  for (const line of lines) {
    const [method = 'GET', target = '/', expected] = line.split(/\s+/);
    const body =
      method === 'PUT' || method === 'POST' ? '{}' : method === 'PATCH' ? '{}' : undefined;
    const r = await send(
      method,
      target,
      body,
      method === 'PATCH' ? 'application/merge-patch+json' : undefined,
    );
    if (expected !== undefined)
      assert.equal(r.status, Number(expected), `${line}: ${r.text.slice(0, 300)}`);
  }
  assert.equal(api.process.exitCode, null, 'the server is still running');
});

// Path segments an attacker or a careless client sends; the sentinels' names are not among them.
const hostileSegment = fc.oneof(
  fc.constantFrom(
    '.',
    '..',
    '%2e',
    '%2E',
    '%2e%2e',
    '.%2e',
    '%2E.',
    '...',
    '%252e',
    '%2f',
    '%2F',
    '%2F..',
    '%5c',
    '\\..',
    '%00',
    '%0a',
    '%ff',
    '%c0%ae',
    '%',
    '%z',
    '%zz',
    '%4',
    '~',
    '*',
    ':',
    ';',
    '@',
    '$',
    '%25',
    'a%25b',
    'nope',
    'guard',
    'fuzz-guard%2Fevents',
  ),
  fc.stringMatching(/^[a-z0-9.%-]{1,12}$/),
);
const namespaceSegment = fc.oneof(
  fc.constantFrom('fuzz-guard', 'default', 'kube-system'),
  hostileSegment,
);
const resourceSegment = fc.oneof(
  fc.constantFrom('events', 'namespaces', 'nodes', 'pods', 'certificatesigningrequests'),
  hostileSegment,
);
const subresource = fc.oneof(fc.constantFrom('status', 'approval'), hostileSegment);

const prefix = fc.constantFrom(
  '/api/v1',
  `/apis/${CSR_GROUP}/v1`,
  '/api/v1/watch',
  `/apis/${CSR_GROUP}/v1/watch`,
  '/api',
  '/apis',
  '',
  '/api/v1/..',
  '/api/%2e%2e/api/v1',
);
const pathArb = fc
  .tuple(
    prefix,
    fc.option(namespaceSegment, { nil: undefined }),
    fc.option(resourceSegment, { nil: undefined }),
    fc.option(hostileSegment, { nil: undefined }),
    fc.option(subresource, { nil: undefined }),
    fc.array(hostileSegment, { maxLength: 2 }),
    fc.constantFrom('', '/', '//'),
  )
  .map(([p, ns, res, name, sub, extra, tail]) => {
    const parts: string[] = [p];
    if (ns !== undefined) parts.push('namespaces', ns);
    if (res !== undefined) parts.push(res);
    if (res !== undefined && name !== undefined) parts.push(name);
    if (name !== undefined && sub !== undefined) parts.push(sub);
    parts.push(...extra);
    return parts.join('/') + tail;
  });

const hostileValue = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '-1',
    'abc',
    '12345678901234567890123',
    '18446744073709551615',
    '18446744073709551616',
    '1e3',
    '%zz',
    '%',
    '%2e',
    '..',
    'true',
    'false',
    'All',
    'Exact',
    'NotOlderThan',
    'metadata.name=..',
    'metadata.name!=x',
    'a%20in%20(',
    '!',
    '=',
    'a=b,c',
    '%201',
    '+1',
    '0x10',
    '9'.repeat(40),
  ),
  fc.stringMatching(/^[ -~]{0,16}$/).map((s) => encodeURIComponent(s)),
);
const queryArb = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'resourceVersion',
        'resourceVersionMatch',
        'limit',
        'continue',
        'fieldSelector',
        'labelSelector',
        'watch',
        'timeoutSeconds',
        'allowWatchBookmarks',
        'sendInitialEvents',
        'dryRun',
        'gracePeriodSeconds',
        'propagationPolicy',
        'orphanDependents',
        'pretty',
        'fieldManager',
        'fieldValidation',
        'force',
        '%zz',
        '',
      ),
      hostileValue,
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

const methodArb = fc.constantFrom(
  'GET',
  'GET',
  'GET',
  'DELETE',
  'DELETE',
  'HEAD',
  'PUT',
  'PATCH',
  'POST',
);

test('fuzzed paths and query parameters: no 5xx, nothing read or changed that the target does not name', async () => {
  await restoreSentinels();
  await fc.assert(
    fc.asyncProperty(methodArb, pathArb, queryArb, async (method, path, query) => {
      const target = (path.startsWith('/') ? path : `/${path}`) + query;
      const body =
        method === 'PUT' || method === 'POST'
          ? JSON.stringify(eventBody('fuzzed', namedTarget(target)?.namespace || 'default'))
          : method === 'PATCH'
            ? '{"metadata":{"labels":{"fuzzed":"true"}}}'
            : undefined;
      await send(
        method,
        target,
        body,
        method === 'PATCH' ? 'application/merge-patch+json' : undefined,
      );
    }),
    fuzzParams(150),
  );
  const health = await rawRequest(client, api.url, 'GET', '/healthz');
  assert.equal(health.status, 200, 'the server is healthy after the run');
  assert.equal(api.process.exitCode, null);
});
