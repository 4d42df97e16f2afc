// Bootstrap token Secrets as the reference reads them (k8s.io/cluster-bootstrap and the bootstrap
// token authenticator), and what `plat-apiserver token create` writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  expired,
  generateToken,
  parseToken,
  tokenUser,
} from '../../../../src/apiserver/bootstrap-token/token.js';
import {
  joinHint,
  joinPlatconfig,
  parseCreateArgs,
  tokenSecret,
} from '../../../../src/apiserver/bootstrap-token/create-command.js';
import { FlagError } from '../../../../src/common/util/errors.js';
import { namesFor } from '../../../../src/common/names.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

const D = 'platform.io';
const now = new Date('2026-01-01T00:00:00Z');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
function secret(
  data: Record<string, string>,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  const enc: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) enc[k] = b64(v);
  return {
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    type: `bootstrap.${D}/token`,
    data: enc,
    ...over,
  };
}
const good = {
  'token-id': 'abcdef',
  'token-secret': '0123456789abcdef',
  'usage-bootstrap-authentication': 'true',
};

test('the token format: 6 and 16 of [a-z0-9]; generated tokens match it', () => {
  assert.deepEqual(parseToken('abcdef.0123456789abcdef'), {
    id: 'abcdef',
    secret: '0123456789abcdef',
  });
  for (const bad of [
    'ABCDEF.0123456789abcdef',
    'abcdef.0123456789abcde',
    'abcdef0123456789abcdef',
    'abcdef.0123456789abcdef ',
    '',
    'abc.def',
  ])
    assert.equal(parseToken(bad), undefined, bad);
  for (let i = 0; i < 50; i++) assert.ok(parseToken(generateToken()) !== undefined);
  assert.notEqual(generateToken(), generateToken());
});

test('a valid token Secret authenticates system:bootstrap:<id> in system:bootstrappers and its extra groups', () => {
  assert.deepEqual(tokenUser(secret(good), 'abcdef', '0123456789abcdef', D, now), {
    user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] },
  });
  const withGroups = secret({
    ...good,
    'auth-extra-groups':
      'system:bootstrappers:worker,system:bootstrappers:kubeadm:default-node-token',
  });
  assert.deepEqual(tokenUser(withGroups, 'abcdef', '0123456789abcdef', D, now), {
    user: {
      username: 'system:bootstrap:abcdef',
      groups: [
        'system:bootstrappers',
        'system:bootstrappers:worker',
        'system:bootstrappers:kubeadm:default-node-token',
      ],
    },
  });
});

test('every reason the reference refuses a token Secret, in its order; no reason names the secret', () => {
  const why = (s: Record<string, unknown>, sec = '0123456789abcdef'): string => {
    const r = tokenUser(s, 'abcdef', sec, D, now);
    return 'problem' in r ? r.problem : 'ok';
  };
  assert.equal(
    why(secret(good, { metadata: { name: 'x', deletionTimestamp: '2026-01-01T00:00:00Z' } })),
    'is deleted and awaiting removal',
  );
  assert.equal(
    why(secret(good, { type: 'Opaque' })),
    `has invalid type, expected bootstrap.${D}/token.`,
  );
  assert.equal(why(secret(good), 'ffffffffffffffff'), 'has invalid value for key token-secret.');
  assert.equal(
    why(secret({ ...good, 'token-id': 'zzzzzz' })),
    'has invalid value for key token-id.',
  );
  assert.equal(
    why(secret({ ...good, expiration: '2025-12-31T23:59:59Z' })),
    'has expired (expiration 2025-12-31T23:59:59Z)',
  );
  assert.equal(
    why(secret({ ...good, expiration: 'tomorrow' })),
    'has expired (expiration tomorrow)',
    'an unparsable expiration counts as expired',
  );
  assert.equal(why(secret({ ...good, expiration: '2026-01-01T00:00:01Z' })), 'ok');
  assert.equal(
    why(secret({ ...good, 'usage-bootstrap-authentication': 'false' })),
    'not marked usage-bootstrap-authentication=true.',
  );
  assert.match(
    why(secret({ ...good, 'auth-extra-groups': 'system:masters' })),
    /^has invalid value for key auth-extra-groups: group "system:masters" does not match/,
  );
  assert.equal(
    expired(secret({ ...good, expiration: '2026-01-01T00:00:00Z' }), now),
    true,
    'expiring now is expired',
  );
});

test('fuzz: any Secret data and any presented token: never throws, never authenticates without the exact secret', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 })),
      fc.string({ maxLength: 20 }),
      (data, presented) => {
        const r = tokenUser(secret(data), 'abcdef', presented, D, now);
        if ('user' in r) assert.equal(data['token-secret'], presented);
      },
    ),
    fuzzParams(300),
  );
});

test('token create: the Secret it writes, the join platconfig, and its flag errors', () => {
  const o = parseCreateArgs([
    'abcdef.0123456789abcdef',
    '--ttl',
    '2h',
    '--groups',
    'system:bootstrappers:worker',
    '--description',
    'for node-7',
    '--print-join-config',
    '/tmp/j',
  ]);
  assert.equal(o.joinConfig, '/tmp/j');
  assert.deepEqual(tokenSecret(o, now), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'plat-system' },
    type: 'bootstrap.platform.io/token',
    stringData: {
      'token-id': 'abcdef',
      'token-secret': '0123456789abcdef',
      expiration: '2026-01-01T02:00:00Z',
      'usage-bootstrap-signing': 'true',
      'usage-bootstrap-authentication': 'true',
      'auth-extra-groups': 'system:bootstrappers:worker',
      description: 'for node-7',
    },
  });
  const never = tokenSecret(parseCreateArgs(['--ttl=0', '--usages=authentication']), now);
  const data = never['stringData'] as Record<string, string>;
  assert.equal(data['expiration'], undefined, '--ttl 0: never expires');
  assert.equal(data['usage-bootstrap-signing'], undefined);
  assert.match(data['token-id'] ?? '', /^[a-z0-9]{6}$/);
  const join = joinPlatconfig(
    { server: 'https://127.0.0.1:6443', caPem: 'PEM' },
    'abcdef.0123456789abcdef',
  );
  assert.deepEqual(join.clusters[0]?.cluster, {
    server: 'https://127.0.0.1:6443',
    'certificate-authority-data': b64('PEM'),
  });
  assert.deepEqual(join.users[0]?.user, { token: 'abcdef.0123456789abcdef' });
  assert.throws(
    () => joinPlatconfig({ server: 'https://x' }, 't'),
    /names no certificate authority to embed/,
  );
  const flagError = (argv: string[], re: RegExp): void =>
    assert.throws(
      () => parseCreateArgs(argv),
      (e: unknown) => e instanceof FlagError && re.test(e.message),
      argv.join(' '),
    );
  flagError(
    ['--ttl', '-1h'],
    /invalid value "-1h" for flag --ttl: must be between 0 \(never expires\) and 87600h/,
  );
  flagError(['--ttl', 'soon'], /ttl/);
  flagError(
    ['--usages', 'signing,root'],
    /unknown usage "root"; valid usages are authentication, signing/,
  );
  flagError(['--groups', 'system:masters'], /flag --groups: group "system:masters" does not match/);
  flagError(['NOT-A-TOKEN'], /does not match the format \[a-z0-9\]\{6\}\.\[a-z0-9\]\{16\}/);
  flagError(['--bogus'], /^unknown flag: --bogus; usage: plat-apiserver token create /);
  flagError(['--ttl'], /^flag needs an argument: --ttl; usage: /);
  flagError(
    ['abcdef.0123456789abcdef', 'ghijkl.0123456789abcdef'],
    /^accepts at most 1 arg\(s\), received 2 \["abcdef.0123456789abcdef" "ghijkl.0123456789abcdef"\]; usage: /,
  );
  const given = parseCreateArgs([
    '--ttl',
    '1h',
    'abcdef.0123456789abcdef',
    '--print-join-config=/tmp/j',
    '--platform-profile=kubernetes',
  ]);
  assert.deepEqual(
    [given.ttlMs, given.token, given.joinConfig, given.namespace],
    [3_600_000, 'abcdef.0123456789abcdef', '/tmp/j', 'kube-system'],
  );
  assert.equal(parseCreateArgs([]).joinConfig, undefined);
});

test("token create's join hint names the agent flags of the server's profile and domain", () => {
  const f = '/tmp/b.conf';
  assert.equal(
    joinHint(namesFor('kubernetes'), f),
    'nodeagent --platform-profile=kubernetes --bootstrap-kubeconfig=/tmp/b.conf ...',
  );
  assert.equal(
    joinHint(namesFor('platform'), f),
    'nodeagent --bootstrap-platconfig=/tmp/b.conf ...',
  );
  assert.equal(
    joinHint(namesFor('platform', 'k8s.io'), f),
    'nodeagent --bootstrap-platconfig=/tmp/b.conf --platform-domain=k8s.io ...',
  );
});
