// The request target as the reference's HTTP server reads it: decoded once, never dot-resolved,
// 400 for a bad escape (Go's url.EscapeError text: `invalid URL escape "%zz"`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseRequestTarget,
  rawRequestPath,
  unescapePath,
} from '../../../src/apiserver/request-target.js';
import { StatusError } from '../../../src/apiserver/status.js';

test('dot segments, raw or encoded, stay segments (the WHATWG URL parser would resolve them)', () => {
  assert.equal(
    parseRequestTarget('/apis/certificates.platform.io/v1/certificatesigningrequests/%2e').path,
    '/apis/certificates.platform.io/v1/certificatesigningrequests/.',
  );
  assert.equal(
    parseRequestTarget('/api/v1/namespaces/default/events/..').path,
    '/api/v1/namespaces/default/events/..',
  );
  assert.equal(
    parseRequestTarget('/api/v1/namespaces/default/events/%2E%2e?watch=1').path,
    '/api/v1/namespaces/default/events/..',
  );
  assert.equal(
    parseRequestTarget('/api/v1/namespaces/default/events/.%2e/').path,
    '/api/v1/namespaces/default/events/..',
  );
});

test('decoding: %2F becomes a separator as in Go (URL.Path), %25 a literal percent, + stays +, decoded once', () => {
  assert.equal(parseRequestTarget('/api/v1/namespaces/a%2Fb').path, '/api/v1/namespaces/a/b');
  assert.equal(parseRequestTarget('/api/v1/namespaces/a%252e').path, '/api/v1/namespaces/a%2e');
  assert.equal(parseRequestTarget('/api/v1/namespaces/a+b').path, '/api/v1/namespaces/a+b');
  assert.equal(parseRequestTarget('/x/%E6%97%A5').path, '/x/日');
  assert.equal(
    parseRequestTarget('/x/%ff').path,
    '/x/\ufffd',
    'invalid UTF-8 decodes with replacement, never throws',
  );
  assert.equal(parseRequestTarget('///').path, '/');
});

test('the query is kept raw for URLSearchParams; an absolute-form target loses scheme and authority', () => {
  const t = parseRequestTarget(
    'https://127.0.0.1:6443/api/v1/namespaces?limit=5&resourceVersion=%31',
  );
  assert.equal(t.path, '/api/v1/namespaces');
  assert.equal(t.search.get('limit'), '5');
  assert.equal(t.search.get('resourceVersion'), '1');
  assert.equal(rawRequestPath('/a/%2e?x=1'), '/a/%2e');
});

for (const [target, bad] of [
  ['/api/v1/namespaces/%zz', '%zz'],
  ['/api/v1/%', '%'],
  ['/api/v1/%4', '%4'],
  ['/api/v1/%g1/x', '%g1'],
] as const) {
  test(`a bad escape in ${target} is 400 invalid URL escape ${JSON.stringify(bad)}`, () => {
    assert.throws(
      () => parseRequestTarget(target),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.status, 400);
        assert.equal(e.reason, 'BadRequest');
        assert.equal(e.message, `invalid URL escape ${JSON.stringify(bad)}`);
        return true;
      },
    );
  });
}

test('a target that is neither origin-form nor absolute-form is 400', () => {
  assert.throws(
    () => parseRequestTarget('*'),
    (e: unknown) => e instanceof StatusError && e.status === 400,
  );
  assert.equal(unescapePath('/plain'), '/plain');
});
