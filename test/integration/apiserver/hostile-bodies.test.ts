// Hostile request bodies against the real plat-apiserver: 10,000-level nesting as JSON, as YAML
// (flow and block), as an apply patch with dryRun=All, as merge, strategic merge and JSON patches,
// a sequence as a mapping key (create and apply), then every body of the corpus in
// test/fixtures/hostile-bodies/. Each is a 4xx, the server keeps serving, and nothing is stored.
//
// The reference's answers (kube-apiserver 1.32: Go's encoding/json and sigs.k8s.io/json stop at
// 10,000 levels with `invalid character '{' exceeded max depth`; go-yaml v2 with `yaml: exceeded
// max depth of 10000`; transformDecodeError wraps a create's decode error and appends the first 30
// bytes of the body, as text when it begins with '{', else in hex) are written out below. Two
// documented differences: our nesting limit is 100 (ParseLimits.maxDepth; Node's stack), so the
// YAML message says `of 100`; and we leave out the 30-byte body summary, since a body may begin
// with a secret (a TokenReview's token).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { podBody } from '../../helpers/apiserver-fixtures.js';

const corpus = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/hostile-bodies',
);
const body = (name: string): string => readFileSync(join(corpus, name), 'utf8');
const pods = '/api/v1/namespaces/default/pods';

// The reference's exact answers (400 BadRequest).
const REF = {
  createJsonObject: `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth ({"apiVersion":"v1","kind":"Pod ...)`,
  createJsonArray: `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Pod ...)`,
  createYamlFlow:
    'the object provided is unrecognized (must be of type Pod): error converting YAML to JSON: yaml: exceeded max depth of 10000 ({apiVersion: v1, kind: Pod, me ...)',
  createYamlBlock:
    'the object provided is unrecognized (must be of type Pod): error converting YAML to JSON: yaml: line 10: exceeded max depth of 10000 (61706956657273696f6e3a2076310a6b696e643a20506f640a6d65746164 ...)',
  apply: 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000',
  mergePatch: "error decoding patch: invalid character '{' exceeded max depth",
  strategicPatch: "invalid character '{' exceeded max depth",
  jsonPatch: "error decoding patch: invalid character '[' exceeded max depth",
  // a mapping key that is a sequence (`? [a, b]`): go-yaml v2's decoder, failf("invalid map key: %#v")
  createComplexKey:
    'the object provided is unrecognized (must be of type Pod): error converting YAML to JSON: yaml: invalid map key: []interface {}{"a", "b"} (3f205b612c20625d0a3a20630a61706956657273696f6e3a2076310a6b69 ...)',
  applyComplexKey:
    'error decoding YAML: error converting YAML to JSON: yaml: invalid map key: []interface {}{"a", "b"}',
};

/** The reference's message as we give it: our depth limit, no body summary. */
function ours(reference: string): string {
  return reference
    .replace('max depth of 10000', 'max depth of 100')
    .replace(/ \((?:\{.*|[0-9a-f]+) \.\.\.\)$/, '');
}

let api: StartedApiServer;

before(async () => {
  api = await startApiServer({});
  const r = await api.request('POST', pods, { body: podBody('target', 'default') });
  assert.equal(r.status, 201, r.text);
});
after(async () => {
  await api?.stop();
});

function assertStatus(r: ApiResponse, code: number, message: string): void {
  assert.equal(r.status, code, r.text);
  assert.deepEqual(
    {
      kind: r.json?.['kind'],
      reason: r.json?.['reason'],
      code: r.json?.['code'],
      message: r.json?.['message'],
    },
    { kind: 'Status', reason: 'BadRequest', code, message },
  );
}

async function stillServing(): Promise<void> {
  const h = await api.request('GET', '/healthz', { anonymous: true });
  assert.equal(h.status, 200);
  const t = await api.request('GET', `${pods}/target`);
  assert.equal(t.status, 200);
  assert.equal(
    (t.json?.['spec'] as Record<string, unknown> | undefined)?.['x'],
    undefined,
    'the target pod is untouched',
  );
}

test('create: a 10,000-level body is 400 as in the reference, as JSON and as application/yaml (flow and block)', async () => {
  const cases: [string, string, string][] = [
    ['create-deep-object-10000.json', 'application/json', REF.createJsonObject],
    ['create-deep-array-10000.json', 'application/json', REF.createJsonArray],
    ['create-deep-flow-10000.yaml', 'application/yaml', REF.createYamlFlow],
    ['create-deep-block-10000.yaml', 'application/yaml', REF.createYamlBlock],
  ];
  for (const [file, contentType, reference] of cases) {
    for (const q of ['', '?dryRun=All']) {
      assertStatus(
        await api.request('POST', `${pods}${q}`, { body: body(file), contentType }),
        400,
        ours(reference),
      );
    }
  }
  assert.equal((await api.request('GET', `${pods}/deep`)).status, 404, 'nothing stored');
  await stillServing();
});

test('apply: a 10,000-level apply patch (dryRun=All and not) is 400 as in the reference', async () => {
  for (const q of ['&dryRun=All', '']) {
    const r = await api.request('PATCH', `${pods}/applied?fieldManager=hostile${q}`, {
      body: body('apply-deep-flow-10000.yaml'),
      contentType: 'application/apply-patch+yaml',
    });
    assertStatus(r, 400, ours(REF.apply));
  }
  const block = await api.request('PATCH', `${pods}/target?fieldManager=hostile&dryRun=All`, {
    body: body('apply-deep-block-10000.yaml'),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(block.status, 400, block.text);
  assert.match(
    String(block.json?.['message']),
    /^error decoding YAML: error converting YAML to JSON: yaml: line \d+: exceeded max depth of 100$/,
  );
  assert.equal((await api.request('GET', `${pods}/applied`)).status, 404, 'nothing stored');
  await stillServing();
});

test('a YAML body with a sequence as a mapping key: 400 in the reference`s words, then where the key is and what is accepted (create and apply, dryRun=All and not)', async () => {
  // In place of the reference's body summary (left out, as above): the line and column and what a key may be.
  const where = (line: number, col: number): string =>
    ` (request body line ${line}, column ${col}: a mapping key must be a string, a number within int64 or a boolean)`;
  for (const q of ['', '?dryRun=All']) {
    const create = await api.request('POST', `${pods}${q}`, {
      body: body('create-complex-key.yaml'),
      contentType: 'application/yaml',
    });
    assertStatus(create, 400, `${ours(REF.createComplexKey)}${where(1, 3)}`);
    const apply = await api.request(
      'PATCH',
      `${pods}/target?fieldManager=hostile${q === '' ? '' : '&dryRun=All'}`,
      { body: body('apply-complex-key.yaml'), contentType: 'application/apply-patch+yaml' },
    );
    assertStatus(apply, 400, `${REF.applyComplexKey}${where(5, 3)}`);
  }
  assert.equal((await api.request('GET', `${pods}/ck`)).status, 404, 'nothing stored');
  await stillServing();
  assert.doesNotMatch(
    api.logs(),
    /\(node:\d+\)|Warning: Keys with collection values/,
    'no process warning on the server`s stderr',
  );
});

test('merge, strategic merge and JSON patches 10,000 levels deep are 400 as in the reference (not a stack overflow)', async () => {
  const cases: [string, string, string][] = [
    ['merge-patch-deep-10000.json', 'application/merge-patch+json', REF.mergePatch],
    [
      'strategic-patch-deep-10000.json',
      'application/strategic-merge-patch+json',
      REF.strategicPatch,
    ],
    ['json-patch-deep-10000.json', 'application/json-patch+json', REF.jsonPatch],
  ];
  for (const [file, contentType, reference] of cases) {
    for (const q of ['', '?dryRun=All']) {
      assertStatus(
        await api.request('PATCH', `${pods}/target${q}`, { body: body(file), contentType }),
        400,
        ours(reference),
      );
    }
  }
  await stillServing();
});

test('JSON patch copies are bounded by the reference message; operations cannot nest the object past the limit', async () => {
  const copy = await api.request('PATCH', `${pods}/target`, {
    body: body('json-patch-copy-doubling.json'),
    contentType: 'application/json-patch+json',
  });
  assert.equal(copy.status, 422, copy.text);
  assert.match(
    String(copy.json?.['message']),
    /^Unable to copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/,
  );
  const nest = await api.request('PATCH', `${pods}/target`, {
    body: body('json-patch-add-nesting.json'),
    contentType: 'application/json-patch+json',
  });
  assert.equal(nest.status, 422, nest.text);
  assert.match(String(nest.json?.['message']), /nested more than 100 levels/);
  await stillServing();
});

/** The request a corpus file is sent as, from its name's prefix. */
function requestFor(file: string): { method: string; path: string; contentType: string } {
  const yaml = file.endsWith('.yaml');
  if (file.startsWith('create-'))
    return {
      method: 'POST',
      path: pods,
      contentType: yaml ? 'application/yaml' : 'application/json',
    };
  if (file.startsWith('merge-patch-'))
    return { method: 'PATCH', path: `${pods}/target`, contentType: 'application/merge-patch+json' };
  if (file.startsWith('strategic-patch-'))
    return {
      method: 'PATCH',
      path: `${pods}/target`,
      contentType: 'application/strategic-merge-patch+json',
    };
  if (file.startsWith('json-patch-'))
    return { method: 'PATCH', path: `${pods}/target`, contentType: 'application/json-patch+json' };
  if (file.startsWith('apply-'))
    return {
      method: 'PATCH',
      path: `${pods}/target?fieldManager=hostile`,
      contentType: 'application/apply-patch+yaml',
    };
  if (file.startsWith('delete-options-'))
    return { method: 'DELETE', path: `${pods}/target`, contentType: 'application/json' };
  throw new Error(`${file}: no request for this prefix`);
}

test('every body of the hostile corpus is a 4xx, with and without dryRun=All, and the server keeps serving', async () => {
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.json') || f.endsWith('.yaml'))
    .sort();
  assert.ok(files.length >= 20, `corpus has ${files.length} bodies`);
  for (const file of files) {
    const r = requestFor(file);
    for (const dry of ['', 'dryRun=All']) {
      const path = dry === '' ? r.path : `${r.path}${r.path.includes('?') ? '&' : '?'}${dry}`;
      const res = await api.request(r.method, path, {
        body: body(file),
        contentType: r.contentType,
      });
      assert.ok(
        res.status >= 400 && res.status < 500,
        `${file} ${dry}: ${res.status} ${res.text.slice(0, 300)}`,
      );
    }
  }
  await stillServing();
});
