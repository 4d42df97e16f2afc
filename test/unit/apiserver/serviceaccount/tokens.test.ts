// Service-account tokens as the reference writes and reads them (pkg/serviceaccount): the claims
// (iss, sub, aud, exp, iat, nbf, jti, kubernetes.io), the key ID (base64url SHA-256 of the PKIX
// public key), signatures by RSA and ECDSA keys, and the authenticator's refusals in the
// reference's words: a bad signature, an unknown key, a foreign issuer, a wrong audience, an
// expired or not-yet-valid token, a service account or bound pod gone or recreated.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { ServiceAccountTokenAuthenticator } from '../../../../src/apiserver/authn/service-account.js';
import type { ServiceAccountObjects } from '../../../../src/apiserver/authn/service-account.js';
import { tokenClaims } from '../../../../src/apiserver/serviceaccount/claims.js';
import { parseJwt, signJwt } from '../../../../src/apiserver/serviceaccount/jwt.js';
import {
  keyIdOf,
  parseSigningKey,
  parseVerificationKeys,
} from '../../../../src/apiserver/serviceaccount/keys.js';
import { namesFor } from '../../../../src/common/names.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const ISS = 'https://kubernetes.default.svc.cluster.local';
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ecPem = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

const NOW = Date.UTC(2026, 0, 1) / 1000;
const sa = { namespace: 'team', name: 'builder', uid: 'sa-uid' };

function claims(over: Partial<Parameters<typeof tokenClaims>[0]> = {}): Record<string, unknown> {
  return tokenClaims({
    issuer: ISS,
    audiences: [ISS],
    nowSeconds: NOW,
    expirationSeconds: 3600,
    warnAfterSeconds: 0,
    binding: {
      serviceAccount: sa,
      pod: { name: 'web', uid: 'pod-uid' },
      node: { name: 'n1', uid: 'node-uid' },
    },
    ...over,
  });
}

test("the claims are the reference's: sorted keys, sub system:serviceaccount:<ns>:<name>, the kubernetes.io claim with the pod and its node, warnafter when extended", () => {
  const c = claims({ warnAfterSeconds: 3607, expirationSeconds: 31536000 });
  const key = parseSigningKey(ecPem, 'sa.key');
  const jwt = parseJwt(signJwt(key, c));
  assert.ok(jwt);
  const payloadText = Buffer.from(signJwt(key, c).split('.')[1] ?? '', 'base64url').toString();
  assert.deepEqual(Object.keys(JSON.parse(payloadText) as object), [
    'aud',
    'exp',
    'iat',
    'iss',
    'jti',
    'kubernetes.io',
    'nbf',
    'sub',
  ]);
  assert.deepEqual(jwt.payload['kubernetes.io'], {
    namespace: 'team',
    node: { name: 'n1', uid: 'node-uid' },
    pod: { name: 'web', uid: 'pod-uid' },
    serviceaccount: { name: 'builder', uid: 'sa-uid' },
    warnafter: NOW + 3607,
  });
  assert.equal(jwt.payload['sub'], 'system:serviceaccount:team:builder');
  assert.deepEqual(jwt.payload['aud'], [ISS]);
  assert.equal(jwt.payload['exp'], NOW + 31536000);
  assert.equal(jwt.payload['iat'], NOW);
  assert.equal(jwt.payload['nbf'], NOW);
  assert.match(String(jwt.payload['jti']), /^[0-9a-f-]{36}$/);
  // The protected header: alg and kid only, kid the base64url SHA-256 of the public key's PKIX DER.
  const header = JSON.parse(
    Buffer.from(signJwt(key, c).split('.')[0] ?? '', 'base64url').toString(),
  ) as object;
  const der = createPublicKey(ec.privateKey).export({ type: 'spki', format: 'der' });
  assert.deepEqual(header, {
    alg: 'ES256',
    kid: createHash('sha256').update(der).digest('base64url'),
  });
});

test("signing keys: RSA signs RS256, P-256 ES256; a P-224 key is refused with the reference's words", () => {
  assert.equal(parseSigningKey(rsaPem, 'rsa.key').alg, 'RS256');
  assert.equal(parseSigningKey(ecPem, 'ec.key').alg, 'ES256');
  const p224 = generateKeyPairSync('ec', { namedCurve: 'secp224r1' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  assert.throws(
    () => parseSigningKey(p224, 'p224.key'),
    /unknown private key curve, must be 256, 384, or 521/,
  );
  assert.throws(
    () => parseSigningKey('nothing', 'x.key'),
    /failed to parse service-account-issuer-key-file: x.key: data does not contain a private key/,
  );
  assert.throws(
    () => parseVerificationKeys('nothing', 'pub.pem'),
    /failed to parse key file "pub.pem": data does not contain any valid RSA or ECDSA public keys/,
  );
  const pub = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  assert.equal(parseVerificationKeys(pub + ecPem, 'both.pem').length, 2);
  assert.equal(parseVerificationKeys(pub, 'pub.pem')[0]?.kid, keyIdOf(rsa.publicKey));
});

type Obj = Record<string, unknown>;

function world(): {
  objects: ServiceAccountObjects;
  pods: Map<string, Obj>;
  accounts: Map<string, Obj>;
} {
  const accounts = new Map<string, Obj>([['team/builder', { metadata: { uid: 'sa-uid' } }]]);
  const pods = new Map<string, Obj>([['team/web', { metadata: { uid: 'pod-uid' } }]]);
  return {
    accounts,
    pods,
    objects: {
      getServiceAccount: (ns, n) => Promise.resolve(accounts.get(`${ns}/${n}`)),
      getPod: (ns, n) => Promise.resolve(pods.get(`${ns}/${n}`)),
      getSecret: () => Promise.resolve(undefined),
      getNode: () => Promise.resolve(undefined),
    },
  };
}

function authenticator(objects: ServiceAccountObjects, clock: ManualClock, keysPem = ecPem) {
  return new ServiceAccountTokenAuthenticator({
    issuers: [ISS, 'https://old.example'],
    keys: parseVerificationKeys(keysPem, 'keys.pem'),
    audiences: [ISS],
    objects,
    names: namesFor('kubernetes'),
    clock,
    logger: silentLogger(),
  });
}

const request = (token: string): IncomingMessage =>
  ({ headers: { authorization: `Bearer ${token}` }, socket: {} }) as unknown as IncomingMessage;

test("a good bound token authenticates as the reference's user: the service account groups, pod, node and credential ID in extra", async () => {
  const w = world();
  const clock = new ManualClock(NOW * 1000);
  const c = claims();
  const r = await authenticator(w.objects, clock).authenticate(
    request(signJwt(parseSigningKey(ecPem, 'k'), c)),
  );
  assert.deepEqual(r, {
    kind: 'authenticated',
    method: 'serviceaccount',
    user: {
      username: 'system:serviceaccount:team:builder',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['web'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid'],
        'authentication.kubernetes.io/credential-id': [`JTI=${String(c['jti'])}`],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
      },
    },
  });
});

test("hostile tokens are refused in the reference's words", async () => {
  const w = world();
  const clock = new ManualClock(NOW * 1000);
  const a = authenticator(w.objects, clock);
  const key = parseSigningKey(ecPem, 'k');
  const reason = async (token: string): Promise<string> => {
    const r = await a.authenticate(request(token));
    return r.kind === 'rejected' ? r.reason : r.kind;
  };
  // Not ours: another issuer, not a JWT at all.
  assert.equal(await reason(signJwt(key, claims({ issuer: 'https://elsewhere' }))), 'no-opinion');
  assert.equal(await reason('abc.def'), 'no-opinion');
  // Signed by another key with our key ID: a bad signature.
  const forged = signJwt(
    {
      ...parseSigningKey(other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'o'),
      kid: key.kid,
    },
    claims(),
  );
  assert.equal(await reason(forged), 'square/go-jose: error in cryptographic primitive');
  // Signed by an unknown key.
  assert.equal(
    await reason(signJwt(parseSigningKey(rsaPem, 'r'), claims())),
    'invalid signature, no keys found',
  );
  // A payload edited after signing.
  const [h, , s] = signJwt(key, claims()).split('.');
  const edited = Buffer.from(
    JSON.stringify({ ...claims(), sub: 'system:serviceaccount:kube-system:admin' }),
  ).toString('base64url');
  assert.equal(
    await reason(`${h ?? ''}.${edited}.${s ?? ''}`),
    'square/go-jose: error in cryptographic primitive',
  );
  assert.equal(
    await reason(signJwt(key, claims({ audiences: ['vault'] }))),
    'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
  );
  assert.equal(
    await reason(signJwt(key, claims({ nowSeconds: NOW - 3600 - 61 }))),
    'service account token has expired',
  );
  assert.equal(
    await reason(signJwt(key, claims({ nowSeconds: NOW + 61 }))),
    'service account token is not valid yet',
  );
  // Within the minute of leeway: still good.
  assert.equal(
    await reason(signJwt(key, claims({ nowSeconds: NOW - 3600 - 59 }))),
    'authenticated',
  );
  const wrongSa = claims({ binding: { serviceAccount: { ...sa, uid: 'old-uid' } } });
  assert.equal(
    await reason(signJwt(key, wrongSa)),
    'service account UID (sa-uid) does not match claim (old-uid)',
  );
  const recreatedPod = claims({
    binding: { serviceAccount: sa, pod: { name: 'web', uid: 'old-pod' } },
  });
  assert.equal(
    await reason(signJwt(key, recreatedPod)),
    'pod UID (pod-uid) does not match service account pod ref claim (old-pod)',
  );
  // The bound pod deleted: invalidated.
  const good = signJwt(key, claims());
  w.pods.delete('team/web');
  assert.equal(await reason(good), 'service account token has been invalidated');
  w.accounts.delete('team/builder');
  assert.equal(await reason(good), 'serviceaccounts "builder" not found');
});

test('a token from a second issuer is accepted; tokens are checked by every key of the key files', async () => {
  const w = world();
  const clock = new ManualClock(NOW * 1000);
  const a = authenticator(w.objects, clock, ecPem + rsaPem);
  const r = await a.authenticate(
    request(signJwt(parseSigningKey(rsaPem, 'r'), claims({ issuer: 'https://old.example' }))),
  );
  assert.equal(r.kind, 'authenticated');
});
