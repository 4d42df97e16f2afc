// Fuzz of plat-apiserver's body and patch types over HTTP, against the real started server: random,
// structural, deeply nested and object-shaped bodies as JSON, YAML, protobuf, every patch type
// (with and without dryRun=All) and DeleteOptions. No request may get a 5xx or end the server.
// Inputs: fuzzRuns() (FUZZ_RUNS; `npm run fuzz` for the long run).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { podBody } from '../helpers/apiserver-fixtures.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';
import { nestedBody, structuralBody } from '../helpers/fuzz-bodies.js';

const pods = '/api/v1/namespaces/default/pods';
let api: StartedApiServer;

before(async () => {
  api = await startApiServer({});
  assert.equal(
    (await api.request('POST', pods, { body: podBody('target', 'default') })).status,
    201,
  );
});
after(async () => {
  await api?.stop();
});

const podish = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    extra: fc.jsonValue({ maxDepth: 6 }),
    deep: fc.integer({ min: 1, max: 300 }),
  })
  .map(({ name, extra, deep }) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { a: 'b' } },
      spec: {
        containers: [{ name: 'c', image: 'i' }],
        x: extra,
        y: JSON.parse('['.repeat(deep) + ']'.repeat(deep)) as unknown,
      },
    }),
  );
const jsonPatch = fc
  .array(
    fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
      path: fc.constantFrom(
        '/spec/x',
        '/metadata/labels/a',
        '/spec/x/-',
        '',
        '/spec/containers/0',
        '/a/b/c',
      ),
      from: fc.constantFrom('/spec', '/metadata', '/spec/x'),
      value: fc.jsonValue({ maxDepth: 5 }),
    }),
    { maxLength: 30 },
  )
  .map((ops) => JSON.stringify(ops));
const bodyText = fc.oneof(
  nestedBody,
  structuralBody,
  podish,
  jsonPatch,
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 8 }),
);

type Target = 'create' | 'merge' | 'strategic' | 'json-patch' | 'apply' | 'delete' | 'protobuf';
const targets: Target[] = [
  'create',
  'merge',
  'strategic',
  'json-patch',
  'apply',
  'delete',
  'protobuf',
];

function request(
  target: Target,
  yaml: boolean,
  dry: boolean,
): { method: string; path: string; contentType: string } {
  const q = (p: string): string => (dry ? `${p}${p.includes('?') ? '&' : '?'}dryRun=All` : p);
  switch (target) {
    case 'create':
      return {
        method: 'POST',
        path: q(pods),
        contentType: yaml ? 'application/yaml' : 'application/json',
      };
    case 'merge':
      return {
        method: 'PATCH',
        path: q(`${pods}/target`),
        contentType: 'application/merge-patch+json',
      };
    case 'strategic':
      return {
        method: 'PATCH',
        path: q(`${pods}/target`),
        contentType: 'application/strategic-merge-patch+json',
      };
    case 'json-patch':
      return {
        method: 'PATCH',
        path: q(`${pods}/target`),
        contentType: 'application/json-patch+json',
      };
    case 'apply':
      return {
        method: 'PATCH',
        path: q(`${pods}/fuzzed?fieldManager=fuzz`),
        contentType: 'application/apply-patch+yaml',
      };
    case 'delete':
      return { method: 'DELETE', path: q(`${pods}/not-there`), contentType: 'application/json' };
    case 'protobuf':
      return { method: 'POST', path: q(pods), contentType: 'application/vnd.kubernetes.protobuf' };
  }
}

test('plat-apiserver: no body of any type, patch type or dry run gets a 5xx', async () => {
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(
      bodyText,
      fc.constantFrom(...targets),
      fc.boolean(),
      fc.boolean(),
      async (text, target, yaml, dry) => {
        const r = request(target, yaml, dry);
        const body =
          target === 'protobuf'
            ? Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(text)]).toString(
                'latin1',
              )
            : text;
        const res = await api.request(r.method, r.path, { body, contentType: r.contentType });
        requests++;
        assert.ok(
          res.status < 500,
          `${r.method} ${r.path} (${r.contentType}): ${res.status} ${res.text.slice(0, 300)}\nbody: ${text.slice(0, 200)}`,
        );
      },
    ),
    fuzzParams(150),
  );
  assert.equal(
    (await api.request('GET', '/healthz', { anonymous: true })).status,
    200,
    `still serving after ${requests} requests`,
  );
});
