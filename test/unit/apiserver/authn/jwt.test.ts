// The JWT authenticator against a local OIDC issuer over TLS.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { JWTAuthenticatorConfig } from '../../../../src/apiserver/config/authentication.js';
import { JwtAuthenticator } from '../../../../src/apiserver/authn/jwt.js';
import { JwtAuthenticatorSet } from '../../../../src/apiserver/authn/jwt-set.js';
import { ConfiguredAnonymousAuthenticator } from '../../../../src/apiserver/authn/anonymous-config.js';
import type { AuthenticationResult } from '../../../../src/apiserver/interfaces.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { startOidcIssuer, type TestOidcIssuer } from '../../../helpers/oidc-issuer.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const req = (token?: string, url = '/api'): IncomingMessage =>
  ({
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    url,
  }) as unknown as IncomingMessage;

let issuer: TestOidcIssuer;
const made: JwtAuthenticator[] = [];
before(async () => {
  issuer = await startOidcIssuer({ audience: 'plat-test' });
});
after(async () => {
  for (const a of made) await a.close();
  await issuer.close();
});

function authn(
  overrides: Partial<JWTAuthenticatorConfig> = {},
  issuerOverrides: Partial<JWTAuthenticatorConfig['issuer']> = {},
): JwtAuthenticator {
  const a = new JwtAuthenticator({
    config: {
      issuer: {
        url: issuer.url,
        certificateAuthority: issuer.caPem,
        audiences: ['plat-test'],
        ...issuerOverrides,
      },
      claimMappings: {
        username: { claim: 'sub', prefix: 'oidc:' },
        groups: { claim: 'groups', prefix: 'g:' },
      },
      ...overrides,
    },
    clock: systemClock,
    logger: silentLogger(),
    retryAfterFailureMs: 0,
    jwksCooldownMs: 0,
  });
  made.push(a);
  return a;
}

function assertRejected(r: AuthenticationResult, re: RegExp): void {
  assert.equal(r.kind, 'rejected', JSON.stringify(r));
  if (r.kind === 'rejected') assert.match(r.reason, re);
}

describe('JWT authenticator', () => {
  test('a good token maps sub and groups with prefixes', async () => {
    const r = await authn().authenticate(
      req(await issuer.mint({ sub: 'alice', groups: ['dev', 'ops'] })),
    );
    assert.deepEqual(r, {
      kind: 'authenticated',
      user: { username: 'oidc:alice', groups: ['g:dev', 'g:ops'] },
    });
  });

  test('discovery at discoveryURL, issuer checked against url', async () => {
    const base = issuer.url;
    const r = await authn({}, { discoveryURL: `${base}/custom-discovery` }).authenticate(
      req(await issuer.mint({ sub: 'a' })),
    );
    assert.equal(r.kind, 'authenticated');
  });

  test('a discovery document naming another issuer is refused', async () => {
    issuer.setDiscoveryIssuer('https://evil.example.com');
    try {
      const r = await authn().authenticate(req(await issuer.mint({ sub: 'a' })));
      assertRejected(
        r,
        /is not initialized: discovery document .* issuer "https:\/\/evil.example.com" does not match the configured url/,
      );
    } finally {
      issuer.setDiscoveryIssuer(issuer.url);
    }
  });

  test('without the CA the TLS connection to the issuer is not trusted', async () => {
    const r = await authn(
      {},
      { certificateAuthority: undefined as unknown as string },
    ).authenticate(req(await issuer.mint({ sub: 'a' })));
    assertRejected(r, /is not initialized: fetching discovery document/);
  });

  test('audience: MatchAny accepts one of several; a wrong audience is refused', async () => {
    const multi = authn({}, { audiences: ['other', 'plat-test'], audienceMatchPolicy: 'MatchAny' });
    assert.equal(
      (await multi.authenticate(req(await issuer.mint({ sub: 'a', aud: ['plat-test', 'x'] }))))
        .kind,
      'authenticated',
    );
    assertRejected(
      await authn().authenticate(req(await issuer.mint({ sub: 'a', aud: ['someone-else'] }))),
      /token audience does not match/,
    );
  });

  test('expired, not-yet-valid, wrong signature and unknown key are refused', async () => {
    const a = authn();
    assertRejected(
      await a.authenticate(req(await issuer.mint({ sub: 'a' }, { expiresInSec: -60 }))),
      /token is expired/,
    );
    assertRejected(
      await a.authenticate(
        req(await issuer.mint({ sub: 'a', nbf: Math.floor(Date.now() / 1000) + 600 })),
      ),
      /not valid yet/,
    );
    assertRejected(
      await a.authenticate(req(await issuer.mint({ sub: 'a' }, { otherKey: true }))),
      /failed to verify signature/,
    );
  });

  test('a token from another issuer gets no opinion (another authenticator may take it)', async () => {
    const other = await startOidcIssuer();
    try {
      assert.deepEqual(await authn().authenticate(req(await other.mint({ sub: 'a' }))), {
        kind: 'no-opinion',
      });
    } finally {
      await other.close();
    }
    assert.deepEqual(await authn().authenticate(req('not-a-jwt')), { kind: 'no-opinion' });
    assert.deepEqual(await authn().authenticate(req()), { kind: 'no-opinion' });
  });

  test('JWKS refreshed: a rotated key is picked up', async () => {
    const a = authn();
    assert.equal(
      (await a.authenticate(req(await issuer.mint({ sub: 'a' })))).kind,
      'authenticated',
    );
    const before = issuer.counts.jwks;
    await issuer.rotateKey();
    assert.equal(
      (await a.authenticate(req(await issuer.mint({ sub: 'b' })))).kind,
      'authenticated',
    );
    assert.ok(issuer.counts.jwks > before);
  });

  test('claim validation rules: claim/requiredValue and CEL with message', async () => {
    const a = authn({
      claimValidationRules: [
        { claim: 'hd', requiredValue: 'example.com' },
        {
          expression: "claims.level >= 2 && 'admin' in claims.roles",
          message: 'must be a level-2 admin',
        },
      ],
    });
    assert.equal(
      (
        await a.authenticate(
          req(await issuer.mint({ sub: 'a', hd: 'example.com', level: 3, roles: ['admin'] })),
        )
      ).kind,
      'authenticated',
    );
    assertRejected(
      await a.authenticate(req(await issuer.mint({ sub: 'a', level: 3, roles: ['admin'] }))),
      /required claim hd not present/,
    );
    assertRejected(
      await a.authenticate(
        req(await issuer.mint({ sub: 'a', hd: 'evil.com', level: 3, roles: ['admin'] })),
      ),
      /required claim hd value does not match/,
    );
    assertRejected(
      await a.authenticate(
        req(await issuer.mint({ sub: 'a', hd: 'example.com', level: 1, roles: ['admin'] })),
      ),
      /^must be a level-2 admin$/,
    );
  });

  test('CEL mappings produce username, groups, uid and extra', async () => {
    const a = authn({
      claimValidationRules: [{ expression: 'claims.email_verified == true' }],
      claimMappings: {
        username: { expression: "'user:' + claims.email" },
        groups: { expression: "claims.teams.map(t, 'team:' + t)" },
        uid: { expression: 'claims.sub' },
        extra: [
          { key: 'example.com/tenant', valueExpression: 'claims.tenant' },
          { key: 'example.com/scopes', valueExpression: "claims.scp.filter(s, s != '')" },
          { key: 'example.com/absent', valueExpression: "''" },
        ],
      },
    });
    const r = await a.authenticate(
      req(
        await issuer.mint({
          sub: 'u-1',
          email: 'e@x.io',
          email_verified: true,
          teams: ['a', 'b'],
          tenant: 't1',
          scp: ['read', '', 'write'],
        }),
      ),
    );
    assert.deepEqual(r, {
      kind: 'authenticated',
      user: {
        username: 'user:e@x.io',
        groups: ['team:a', 'team:b'],
        uid: 'u-1',
        extra: { 'example.com/tenant': ['t1'], 'example.com/scopes': ['read', 'write'] },
      },
    });
    assertRejected(
      await a.authenticate(
        req(
          await issuer.mint({
            sub: 'u-1',
            email: 'e@x.io',
            email_verified: false,
            teams: [],
            tenant: 't',
            scp: [],
          }),
        ),
      ),
      /claim validation expression "claims.email_verified == true" failed/,
    );
  });

  test('username claim email requires email_verified when present', async () => {
    const a = authn({ claimMappings: { username: { claim: 'email', prefix: '' } } });
    assert.equal(
      (await a.authenticate(req(await issuer.mint({ email: 'e@x.io', email_verified: true }))))
        .kind,
      'authenticated',
    );
    assertRejected(
      await a.authenticate(req(await issuer.mint({ email: 'e@x.io', email_verified: false }))),
      /email not verified/,
    );
  });

  test('user validation rules', async () => {
    const a = authn({
      claimMappings: { username: { claim: 'sub', prefix: '' } },
      userValidationRules: [
        {
          expression: "!user.username.startsWith('system:')",
          message: 'username cannot use the reserved system: prefix',
        },
      ],
    });
    assert.equal(
      (await a.authenticate(req(await issuer.mint({ sub: 'bob' })))).kind,
      'authenticated',
    );
    assertRejected(
      await a.authenticate(req(await issuer.mint({ sub: 'system:admin' }))),
      /^username cannot use the reserved system: prefix$/,
    );
  });

  test('a set routes tokens by issuer', async () => {
    const other = await startOidcIssuer({ audience: 'o' });
    const b = new JwtAuthenticator({
      config: {
        issuer: { url: other.url, certificateAuthority: other.caPem, audiences: ['o'] },
        claimMappings: { username: { claim: 'sub', prefix: 'o:' } },
      },
      clock: systemClock,
      logger: silentLogger(),
    });
    const set = new JwtAuthenticatorSet({ authenticators: [authn(), b], clock: systemClock });
    try {
      assert.deepEqual(await set.ready(), []);
      const r1 = await set.authenticate(req(await other.mint({ sub: 'x' })));
      assert.equal(r1.kind === 'authenticated' && r1.user.username, 'o:x');
      const r2 = await set.authenticate(req(await issuer.mint({ sub: 'y' })));
      assert.equal(r2.kind === 'authenticated' && r2.user.username, 'oidc:y');
    } finally {
      await b.close();
      await other.close();
    }
  });
  /** A set of one authenticator of the test issuer (usernames unprefixed), on `clock`. */
  const cachingSet = (clock: ManualClock): JwtAuthenticatorSet => {
    const a = new JwtAuthenticator({
      config: {
        issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['plat-test'] },
        claimMappings: { username: { claim: 'sub', prefix: '' } },
      },
      clock,
      logger: silentLogger(),
    });
    made.push(a);
    return new JwtAuthenticatorSet({ authenticators: [a], clock });
  };
  test('the set caches successes for 10 s, never past exp, and not failures', async () => {
    const clock = new ManualClock(Date.now());
    const set = cachingSet(clock);
    const token = await issuer.mint({ sub: 'c' }, { expiresInSec: 15 });
    assert.equal((await set.authenticate(req(token))).kind, 'authenticated');
    assert.equal((await set.authenticate(req(token))).kind, 'authenticated');
    assert.equal(set.verifications, 1, 'second call served from the cache');
    clock.advance(10_500);
    assert.equal((await set.authenticate(req(token))).kind, 'authenticated');
    assert.equal(set.verifications, 2, 'verified again after 10 s');
    clock.advance(5_000);
    assertRejected(await set.authenticate(req(token)), /token is expired/);
    const bad = await issuer.mint({ sub: 'c' }, { otherKey: true });
    await set.authenticate(req(bad));
    await set.authenticate(req(bad));
    assert.equal(set.verifications, 5, 'failures are verified every time');
  });
  test('the set verifies a token once however many requests carry it at the same time', async () => {
    const clock = new ManualClock(Date.now());
    const set = cachingSet(clock);
    const token = await issuer.mint({ sub: 'burst' }, { expiresInSec: 15 });
    const answers = await Promise.all([1, 2, 3, 4].map(() => set.authenticate(req(token))));
    assert.deepEqual(
      answers.map((r) => r.kind === 'authenticated' && r.user.username),
      ['burst', 'burst', 'burst', 'burst'],
    );
    assert.equal(set.verifications, 1);
  });
});

describe('anonymous from the authentication configuration', () => {
  test('only on listed paths, only without credentials', async () => {
    const a = new ConfiguredAnonymousAuthenticator({
      config: { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] },
    });
    assert.equal((await a.authenticate(req(undefined, '/livez?verbose'))).kind, 'authenticated');
    assert.equal((await a.authenticate(req(undefined, '/api/v1/nodes'))).kind, 'no-opinion');
    assert.equal((await a.authenticate(req('tok', '/livez'))).kind, 'no-opinion');
    const all = new ConfiguredAnonymousAuthenticator({ config: { enabled: true } });
    assert.deepEqual(await all.authenticate(req(undefined, '/anything')), {
      kind: 'authenticated',
      user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    });
    const off = new ConfiguredAnonymousAuthenticator({ config: { enabled: false } });
    assert.equal((await off.authenticate(req(undefined, '/livez'))).kind, 'no-opinion');
  });
});
