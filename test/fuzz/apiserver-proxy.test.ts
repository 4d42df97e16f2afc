// Fuzzes the streaming subresources' query parameters against a started plat-apiserver: the
// hostile corpus (test/fixtures/hostile-requests/proxy-queries.txt), then fast-check queries of
// hostile keys and values on pods/log, exec, attach and portforward of an unscheduled pod (so
// every request ends in plat-apiserver, as parse, validation, container or node answers). Every
// answer is below 500 and a Status or an (empty) log; the parsers themselves never throw
// anything but a StatusError.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parsePodLogOptions } from '../../src/apiserver/proxy/log-options.js';
import { matchProxyPath } from '../../src/apiserver/proxy/handler.js';
import { StatusError } from '../../src/apiserver/status.js';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const here = dirname(fileURLToPath(import.meta.url));
const corpus = readFileSync(
  join(here, '..', '..', '..', 'test', 'fixtures', 'hostile-requests', 'proxy-queries.txt'),
  'utf8',
)
  .split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'));
const SUBS = ['log', 'exec', 'attach', 'portforward'];
let api: StartedApiServer;

before(async () => {
  api = await startApiServer({ platformDomain: 'k8s.io' });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'x' },
      ],
    },
  };
  assert.equal(
    (await api.request('POST', '/api/v1/namespaces/default/pods', { body: pod })).status,
    201,
  );
});

after(async () => {
  await api?.stop();
});

async function answered(sub: string, query: string): Promise<void> {
  const r = await api.request(
    sub === 'log' ? 'GET' : 'POST',
    `/api/v1/namespaces/default/pods/p/${sub}?${query}`,
  );
  assert.ok(r.status < 500, `${sub}?${query}: ${r.status} ${r.text}`);
  if (r.status !== 200) assert.equal(r.json?.['kind'], 'Status', `${sub}?${query}: ${r.text}`);
}

test('the hostile corpus on every streaming subresource', async () => {
  for (const query of corpus) for (const sub of SUBS) await answered(sub, query);
});

const hostile = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.constantFrom(
    '-1',
    '0',
    '9223372036854775807',
    '-9223372036854775808',
    '1e9',
    'true',
    'false',
    '',
    '%00',
    '%2B1',
    '2024-01-01T00:00:00Z',
  ),
);
const key = fc.constantFrom(
  'tailLines',
  'limitBytes',
  'sinceSeconds',
  'sinceTime',
  'container',
  'follow',
  'previous',
  'timestamps',
  'command',
  'stdin',
  'stdout',
  'stderr',
  'tty',
  'ports',
  'insecureSkipTLSVerifyBackend',
);
const query = fc
  .array(fc.tuple(key, hostile), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));

test('fast-check queries on the started server', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...SUBS), query, async (sub, q) => answered(sub, q)),
    fuzzParams(60),
  );
});

test('the parsers throw only StatusErrors, for any query and any path', () => {
  fc.assert(
    fc.property(query, fc.string({ maxLength: 64 }), (q, path) => {
      try {
        parsePodLogOptions(new URLSearchParams(q), 'p');
      } catch (err) {
        assert.ok(err instanceof StatusError, String(err));
        assert.ok(err.status === 400 || err.status === 422);
      }
      matchProxyPath(path);
      matchProxyPath(`/api/v1/namespaces/${path}/pods/${path}/exec`);
    }),
    fuzzParams(500),
  );
});
