// Request attributes from method and path, the token file, and the authn/authz chains.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { forbiddenMessage, requestAttributes } from '../../../src/apiserver/authz/attributes.js';
import { parseTokenFile, tokenFileAuthenticator } from '../../../src/apiserver/authn/token-file.js';
import { AuthenticatorChain } from '../../../src/apiserver/authn/union.js';
import { AuthorizerChain, alwaysAllow, alwaysDeny } from '../../../src/apiserver/authz/chain.js';
import { FlagError } from '../../../src/common/util/errors.js';

const user = { username: 'u', groups: [] };
const q = (s = ''): URLSearchParams => new URLSearchParams(s);

test('request attributes: verbs, scopes, subresources, watch, non-resource paths', () => {
  const a = (m: string, p: string, s = '') => requestAttributes(m, p, q(s), user);
  assert.deepEqual(
    (({ verb, apiGroup, resource, namespace, name, subresource }) => ({
      verb,
      apiGroup,
      resource,
      namespace,
      name,
      subresource,
    }))(a('GET', '/api/v1/namespaces/ns/events')),
    { verb: 'list', apiGroup: '', resource: 'events', namespace: 'ns', name: '', subresource: '' },
  );
  assert.equal(a('GET', '/api/v1/namespaces/ns/events', 'watch=true').verb, 'watch');
  assert.equal(a('GET', '/api/v1/watch/events').verb, 'watch');
  assert.equal(a('GET', '/api/v1/namespaces/ns/events/e').verb, 'get');
  assert.equal(a('DELETE', '/api/v1/namespaces/ns/events').verb, 'deletecollection');
  const approval = a('PUT', '/apis/certificates.x.io/v1/certificatesigningrequests/c/approval');
  assert.deepEqual(
    [approval.verb, approval.apiGroup, approval.resource, approval.name, approval.subresource],
    ['update', 'certificates.x.io', 'certificatesigningrequests', 'c', 'approval'],
  );
  const ns = a('GET', '/api/v1/namespaces/team');
  assert.deepEqual([ns.resource, ns.name, ns.namespace], ['namespaces', 'team', 'team']);
  const nsStatus = a('PUT', '/api/v1/namespaces/team/status');
  assert.deepEqual([nsStatus.resource, nsStatus.subresource], ['namespaces', 'status']);
  const h = a('GET', '/healthz');
  assert.equal(h.isResourceRequest, false);
  assert.equal(h.verb, 'get');
  assert.equal(
    forbiddenMessage(a('GET', '/api/v1/nodes/n1'), undefined),
    'nodes "n1" is forbidden: User "u" cannot get resource "nodes" in API group "" at the cluster scope',
  );
});

test('token file: quoted groups, comments, and errors with the line number', () => {
  const t = parseTokenFile('# comment\ntok1,alice,1,"a,b"\ntok2,bob,2\n', 'f.csv');
  assert.deepEqual(t.get('tok1'), { username: 'alice', uid: '1', groups: ['a', 'b'] });
  assert.deepEqual(t.get('tok2')?.groups, []);
  assert.throws(
    () => parseTokenFile('tok,alice\n', 'f.csv'),
    (e: unknown) => e instanceof FlagError && /line 1: want at least 3 columns/.test(e.message),
  );
  assert.throws(() => parseTokenFile('a,b,c\na,d,e\n', 'f.csv'), /line 2: duplicate token/);
  assert.throws(() => parseTokenFile('a,b,"c\n', 'f.csv'), /unterminated/);
});

test('authenticator chain: token, unknown token is rejected, anonymous only without credentials', async () => {
  const req = (auth?: string): IncomingMessage =>
    ({
      headers: auth === undefined ? {} : { authorization: auth },
      socket: {},
    }) as unknown as IncomingMessage;
  const tokens = tokenFileAuthenticator(parseTokenFile('tok,alice,1,dev\n', 'f'));
  const chain = new AuthenticatorChain({ authenticators: [tokens], anonymous: true });
  const ok = await chain.authenticate(req('Bearer tok'));
  assert.deepEqual(ok, {
    ok: true,
    user: { username: 'alice', uid: '1', groups: ['dev', 'system:authenticated'] },
  });
  assert.equal((await chain.authenticate(req('Bearer nope'))).ok, false);
  assert.deepEqual(await chain.authenticate(req()), {
    ok: true,
    user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
  });
  assert.equal(
    (
      await new AuthenticatorChain({ authenticators: [tokens], anonymous: false }).authenticate(
        req(),
      )
    ).ok,
    false,
  );
});

test('authorizer chain: system:masters always allowed; first decision wins; no opinion is not allow', async () => {
  const attrs = requestAttributes('GET', '/api/v1/nodes', q(), user);
  assert.equal(
    (
      await new AuthorizerChain({ authorizers: [alwaysDeny] }).authorize({
        ...attrs,
        user: { username: 'root', groups: ['system:masters'] },
      })
    ).decision,
    'allow',
  );
  assert.equal(
    (await new AuthorizerChain({ authorizers: [alwaysDeny, alwaysAllow] }).authorize(attrs))
      .decision,
    'deny',
  );
  assert.equal(
    (
      await new AuthorizerChain({
        authorizers: [
          { authorize: () => Promise.resolve({ decision: 'no-opinion' }) },
          alwaysAllow,
        ],
      }).authorize(attrs)
    ).decision,
    'allow',
  );
  assert.equal(
    (await new AuthorizerChain({ authorizers: [] }).authorize(attrs)).decision,
    'no-opinion',
  );
});

test('request attributes: the fieldSelector of a list/watch/deletecollection, and the name a metadata.name selector pins (the reference RequestInfo)', () => {
  const a = (m: string, p: string, s = '') => requestAttributes(m, p, q(s), user);
  const byName = a('GET', '/api/v1/nodes', 'fieldSelector=metadata.name%3Dn1');
  assert.deepEqual([byName.verb, byName.name], ['list', 'n1']);
  assert.deepEqual(byName.fieldSelector, [{ field: 'metadata.name', op: '=', value: 'n1' }]);
  assert.equal(a('GET', '/api/v1/nodes', 'watch=1&fieldSelector=metadata.name%3Dn1').name, 'n1');
  assert.equal(
    a('GET', '/api/v1/nodes', 'fieldSelector=metadata.name!%3Dn1').name,
    '',
    'not an exact match',
  );
  assert.equal(
    a('GET', '/api/v1/nodes', 'fieldSelector=metadata.name%3D..').name,
    '',
    'not a valid path segment name',
  );
  assert.equal(
    a('DELETE', '/api/v1/nodes', 'fieldSelector=metadata.name%3Dn1').name,
    '',
    'deletecollection keeps no name',
  );
  assert.deepEqual(
    a('GET', '/api/v1/pods', 'fieldSelector=spec.nodeName%3Dn1,status.phase!%3DFailed')
      .fieldSelector,
    [
      { field: 'spec.nodeName', op: '=', value: 'n1' },
      { field: 'status.phase', op: '!=', value: 'Failed' },
    ],
  );
  assert.equal(
    a('GET', '/api/v1/pods', 'fieldSelector=%3D%3D%3D').fieldSelector,
    undefined,
    'unparsable: none (the handler answers 400)',
  );
  assert.equal(
    a('GET', '/api/v1/namespaces/default/pods/p', 'fieldSelector=spec.nodeName%3Dn1').fieldSelector,
    undefined,
    'a get has none',
  );
});
