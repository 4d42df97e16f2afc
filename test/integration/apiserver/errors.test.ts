// Errors and bad input: authentication (401), authorization (403, system:masters exempt),
// TokenReview/SubjectAccessReview, malformed bodies, wrong kind/apiVersion, 413, invalid names,
// 405/415/404, dryRun, fieldValidation (the spec's Errors table rows); the server keeps serving.
//
// The spec's Errors table, row by row, and where each is tested:
//   continue token expired -> 410 with a fresh token ........ compaction.test.ts
//   dryRun invalid -> error, nothing processed ............... here (dryRun)
//   fieldValidation=Strict -> 400 listing every field ........ here (fieldValidation)
//   fieldValidation=Warn -> success with Warning headers ..... here (fieldValidation)
//   sendInitialEvents without NotOlderThan -> Invalid ........ watch.test.ts
//   certificate request denied -> Denied, no certificate ..... csr.test.ts
//   signer cannot issue -> Failed, no certificate ............ csr.test.ts

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
let dir: string;
const base = '/api/v1/namespaces/default/events';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-errors-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(
    tokens,
    'good-token,alice,uid-1,"dev,ops"\nnode-token,system:node:n1,uid-2,system:nodes\n',
  );
  api = await startApiServer({
    args: [`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysDeny'],
  });
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('401 Unauthorized without credentials and with an unknown token; health endpoints stay open', async () => {
  const none = await api.request('GET', '/api/v1/namespaces', { anonymous: true });
  assert.equal(none.status, 401);
  assert.deepEqual(
    {
      kind: none.json?.['kind'],
      reason: none.json?.['reason'],
      code: none.json?.['code'],
      message: none.json?.['message'],
    },
    { kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' },
  );
  assert.equal((await api.request('GET', '/api/v1/namespaces', { token: 'wrong' })).status, 401);
  const h = await api.request('GET', '/healthz', { anonymous: true });
  assert.equal(h.status, 200);
  assert.equal(h.text, 'ok');
  assert.equal((await api.request('GET', '/readyz', { anonymous: true })).status, 200);
  assert.equal((await api.request('GET', '/livez', { anonymous: true })).status, 200);
  const v = await api.request('GET', '/version', { anonymous: true });
  assert.equal(v.json?.['major'], '1');
});

test('403 Forbidden for a token user under AlwaysDeny; system:masters is always allowed', async () => {
  const r = await api.request('GET', base, { token: 'good-token' });
  assert.equal(r.status, 403);
  assert.equal(r.json?.['reason'], 'Forbidden');
  assert.equal(
    r.json?.['message'],
    'events is forbidden: User "alice" cannot list resource "events" in API group "" in the namespace "default"',
  );
  const c = await api.request(
    'GET',
    '/apis/certificates.platform.io/v1/certificatesigningrequests/x',
    { token: 'good-token' },
  );
  assert.equal(
    c.json?.['message'],
    'certificatesigningrequests.certificates.platform.io "x" is forbidden: User "alice" cannot get resource "certificatesigningrequests" in API group "certificates.platform.io" at the cluster scope',
  );
  assert.equal((await api.request('GET', base)).status, 200);
});

test("TokenReview and SubjectAccessReview answer for this server's users and authorizers", async () => {
  const tr = await api.request('POST', '/apis/authentication.platform.io/v1/tokenreviews', {
    body: {
      apiVersion: 'authentication.platform.io/v1',
      kind: 'TokenReview',
      spec: { token: 'good-token' },
    },
  });
  assert.equal(tr.status, 201, tr.text);
  assert.deepEqual((tr.json?.['status'] as Record<string, unknown>)['user'], {
    username: 'alice',
    uid: 'uid-1',
    groups: ['dev', 'ops', 'system:authenticated'],
  });
  const bad = await api.request('POST', '/apis/authentication.platform.io/v1/tokenreviews', {
    body: { spec: { token: 'nope' } },
  });
  assert.equal((bad.json?.['status'] as Record<string, unknown>)['authenticated'], false);
  const sar = (user: string, groups: string[]) =>
    api.request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', {
      body: {
        spec: { user, groups, resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n1' } },
      },
    });
  assert.equal(
    ((await sar('alice', [])).json?.['status'] as Record<string, unknown>)['allowed'],
    false,
  );
  assert.equal(
    ((await sar('root', ['system:masters'])).json?.['status'] as Record<string, unknown>)[
      'allowed'
    ],
    true,
  );
  const invalid = await api.request(
    'POST',
    '/apis/authorization.platform.io/v1/subjectaccessreviews',
    { body: { spec: { user: 'a' } } },
  );
  assert.equal(invalid.status, 422);
});

test('malformed JSON and YAML, wrong kind and apiVersion are 400 and store nothing; YAML bodies work', async () => {
  const cases: [string, string, RegExp][] = [
    ['{"metadata": {', 'application/json', /json parse error/],
    ['metadata: [unclosed', 'application/yaml', /error converting YAML to JSON/],
    [
      JSON.stringify({ ...eventBody('k1', 'default'), kind: 'Pod' }),
      'application/json',
      /must be of type Event/,
    ],
    [
      JSON.stringify({ ...eventBody('k2', 'default'), apiVersion: 'v2' }),
      'application/json',
      /does not match the expected API version \(v1\)/,
    ],
  ];
  for (const [body, ct, re] of cases) {
    const r = await api.request('POST', base, { body, contentType: ct });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json?.['reason'], 'BadRequest');
    assert.match(String(r.json?.['message']), re);
  }
  assert.equal((await api.request('GET', `${base}/k1`)).status, 404);
  const yaml =
    'apiVersion: v1\nkind: Event\nmetadata:\n  name: from-yaml\ninvolvedObject:\n  kind: Node\n  name: n1\nreason: R\n';
  const y = await api.request('POST', base, { body: yaml, contentType: 'application/yaml' });
  assert.equal(y.status, 201, y.text);
});

// A server may answer 413 before the client has written all of an oversized body, and close
// the connection once it has; the client's later write then fails (EPIPE or a reset). That race
// is HTTP's, not the server's (the reference's clients read the answer and drop the write
// error), so this client keeps the answer it got and ignores a write error after it.
function postOversized(
  chunked: boolean,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = Buffer.from(
    JSON.stringify({ ...eventBody('big', 'default'), message: 'x'.repeat(3 * 1024 * 1024 + 10) }),
  );
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpsRequest(
      `${api.url}${base}`,
      {
        method: 'POST',
        ...api.adminTls,
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': body.length }),
        },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          });
          // the rest of the body is not sent: the connection goes with the answer
          req.destroy();
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    // Written in pieces, each after the last has drained, and no more once the answer is in, as
    // a client that reads while it writes does (the reference's): the server answers part-way.
    const write = (off: number): void => {
      if (answered || req.destroyed) return;
      if (off >= body.length) {
        req.end();
        return;
      }
      const next = (): void => write(off + 256 * 1024);
      if (req.write(body.subarray(off, off + 256 * 1024))) next();
      else req.once('drain', next);
    };
    write(0);
  });
}

test('413 for a body over the 3 MiB limit, declared or streamed; the server keeps serving', async () => {
  for (const chunked of [false, true]) {
    // When the server's close reaches the client before its answer is read (a reset loses it),
    // the client sees only EPIPE or ECONNRESET: try again; every answer that arrives is the 413.
    let r: { status: number; json: Record<string, unknown> } | undefined;
    for (let attempt = 0; r === undefined && attempt < 10; attempt++) {
      r = await postOversized(chunked).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') throw err;
        return undefined;
      });
    }
    assert.ok(r !== undefined, `chunked=${chunked}: no answer in 10 attempts`);
    assert.equal(r.status, 413, `chunked=${chunked}`);
    assert.equal(r.json['reason'], 'RequestEntityTooLarge');
  }
  assert.equal((await api.request('GET', `${base}/big`)).status, 404);
  assert.equal((await api.request('GET', '/healthz')).status, 200);
});

test('invalid names are 422 Invalid with a cause on metadata.name', async () => {
  const r = await api.request('POST', base, { body: eventBody('Bad_Name', 'default') });
  assert.equal(r.status, 422);
  const causes = (r.json?.['details'] as Record<string, unknown>)['causes'] as Record<
    string,
    unknown
  >[];
  assert.equal(causes[0]?.['field'], 'metadata.name');
  assert.equal(causes[0]?.['reason'], 'FieldValueInvalid');
  const noName = await api.request('POST', base, {
    body: { ...eventBody('x', 'default'), metadata: {} },
  });
  assert.equal(noName.status, 422);
  assert.match(
    String(noName.json?.['message']),
    /metadata\.name: Required value: name or generateName is required/,
  );
  const gen = await api.request('POST', base, {
    body: { ...eventBody('x', 'default'), metadata: { generateName: 'gen-' } },
  });
  assert.equal(gen.status, 201);
  assert.match(
    String((gen.json?.['metadata'] as Record<string, unknown>)['name']),
    /^gen-[a-z0-9]{5}$/,
  );
});

test('event involvedObject.namespace must match the event namespace', async () => {
  const r = await api.request('POST', base, {
    body: eventBody('e.1', 'default', {
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
    }),
  });
  assert.equal(r.status, 422);
  assert.equal(
    r.json?.['message'],
    'Event "e.1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  );
  await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns2' } } });
  const cluster = await api.request('POST', '/api/v1/namespaces/ns2/events', {
    body: eventBody('e.2', 'ns2', { involvedObject: { kind: 'Node', name: 'n1' } }),
  });
  assert.equal(cluster.status, 422, 'an event about a cluster-scoped object lives in default');
});

test('405 MethodNotAllowed, 415 UnsupportedMediaType, 404 for unknown paths', async () => {
  const m = await api.request('PUT', base, { body: eventBody('x', 'default') });
  assert.equal(m.status, 405);
  assert.equal(m.json?.['reason'], 'MethodNotAllowed');
  assert.equal(
    (await api.request('POST', '/api/v1/events', { body: eventBody('x', 'default') })).status,
    405,
  );
  const u = await api.request('POST', base, { body: '{}', contentType: 'text/plain' });
  assert.equal(u.status, 415);
  assert.equal(u.json?.['reason'], 'UnsupportedMediaType');
  const p = await api.request('PATCH', `${base}/from-yaml`, {
    body: '{}',
    contentType: 'application/json',
  });
  assert.equal(p.status, 415);
  const nf = await api.request('GET', '/api/v1/widgets');
  assert.equal(nf.status, 404);
  assert.equal(nf.json?.['message'], 'the server could not find the requested resource');
});

test('dryRun: only All; a dry run validates, answers 409 on a taken name, and stores nothing', async () => {
  const bad = await api.request('POST', `${base}?dryRun=Some`, {
    body: eventBody('dry', 'default'),
  });
  assert.equal(bad.status, 422);
  assert.match(
    String(bad.json?.['message']),
    /^CreateOptions\.meta\.platform\.io "" is invalid: dryRun: Unsupported value/,
  );
  const ok = await api.request('POST', `${base}?dryRun=All`, { body: eventBody('dry', 'default') });
  assert.equal(ok.status, 201, ok.text);
  assert.equal((ok.json?.['metadata'] as Record<string, unknown>)['resourceVersion'], undefined);
  assert.equal((await api.request('GET', `${base}/dry`)).status, 404);
  assert.equal(
    (await api.request('POST', `${base}?dryRun=All`, { body: eventBody('from-yaml', 'default') }))
      .status,
    409,
  );
  const invalidDry = await api.request('POST', `${base}?dryRun=All`, {
    body: eventBody('Bad_Name', 'default'),
  });
  assert.equal(invalidDry.status, 422);
  const del = await api.request('DELETE', `${base}/from-yaml?dryRun=All`);
  assert.equal(del.status, 200);
  assert.equal((await api.request('GET', `${base}/from-yaml`)).status, 200);
});

test('fieldValidation: Strict lists every unknown and duplicate field; Warn adds Warning headers; Ignore is silent', async () => {
  const body =
    '{"apiVersion":"v1","kind":"Event","metadata":{"name":"fv1"},"involvedObject":{"kind":"Node","name":"n"},"reason":"a","reason":"b","spec":{"foo":1},"bogus":true}';
  const strict = await api.request('POST', `${base}?fieldValidation=Strict`, { body });
  assert.equal(strict.status, 400);
  const msg = String(strict.json?.['message']);
  assert.match(msg, /^Event in version "v1" cannot be handled as a Event: strict decoding error: /);
  assert.ok(
    msg.includes('unknown field "spec"') &&
      msg.includes('unknown field "bogus"') &&
      msg.includes('duplicate field "reason"'),
    msg,
  );
  const warn = await api.request('POST', `${base}?fieldValidation=Warn`, { body });
  assert.equal(warn.status, 201, warn.text);
  const warnings = ([] as string[]).concat(warn.headers['warning'] ?? []).join('\n');
  assert.match(warnings, /299 - "unknown field \\"spec\\""/);
  assert.match(warnings, /299 - "duplicate field \\"reason\\""/);
  assert.equal(warn.json?.['reason'], 'b', 'the last duplicate wins');
  assert.equal(warn.json?.['bogus'], undefined, 'unknown fields are dropped');
  const ignore = await api.request('POST', `${base}?fieldValidation=Ignore`, {
    body: body.replace('fv1', 'fv2'),
  });
  assert.equal(ignore.status, 201);
  assert.equal(ignore.headers['warning'], undefined);
  const invalid = await api.request('POST', `${base}?fieldValidation=Loose`, {
    body: body.replace('fv1', 'fv3'),
  });
  assert.equal(invalid.status, 422);
});

test('shardSelector is ignored without the ShardedListAndWatch gate', async () => {
  const r = await api.request('GET', `${base}?shardSelector=garbage`);
  assert.equal(r.status, 200);
  assert.equal((r.json?.['metadata'] as Record<string, unknown>)['shardInfo'], undefined);
});

test('a body namespace other than the path namespace is 400', async () => {
  const r = await api.request('POST', base, { body: eventBody('elsewhere', 'kube-system') });
  assert.equal(r.status, 400);
  assert.equal(
    r.json?.['message'],
    'the namespace of the provided object does not match the namespace sent on the request',
  );
  const name = await api.request('PUT', `${base}/one-name`, {
    body: eventBody('other-name', 'default'),
  });
  assert.equal(name.status, 400);
  assert.equal(
    name.json?.['message'],
    'the name of the object (other-name) does not match the name on the URL (one-name)',
  );
  assert.equal((await api.request('GET', '/healthz')).status, 200, 'still serving');
});
