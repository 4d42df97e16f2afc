// A local OIDC issuer for tests: discovery and JWKS over TLS on 127.0.0.1 (its own CA), and token
// minting with jose. Keys can be rotated; requests are counted.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { makeCa, makeServing } from './server-tls-certs.js';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface TestOidcIssuer {
  /** https://127.0.0.1:<port>/<path> */
  readonly url: string;
  /** PEM of the CA that signed the server certificate (for certificateAuthority). */
  readonly caPem: string;
  readonly counts: { discovery: number; jwks: number };
  /** Signs a token; iss, aud and exp default to this issuer, its audience and +1h. */
  mint(
    claims: JWTPayload,
    opts?: { kid?: string; expiresInSec?: number; otherKey?: boolean },
  ): Promise<string>;
  /** Adds a new signing key and makes it current; the old key stays published unless dropped. */
  rotateKey(opts?: { dropOld?: boolean }): Promise<void>;
  /** Serve a different issuer in the discovery document. */
  setDiscoveryIssuer(issuer: string): void;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  privateKey: SigningKey;
  jwk: JWK;
}

async function newKey(n: number): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: `key-${n}`, alg: 'RS256', use: 'sig' };
  return { kid: `key-${n}`, privateKey, jwk };
}

export async function startOidcIssuer(
  opts: { path?: string; audience?: string } = {},
): Promise<TestOidcIssuer> {
  const ca = await makeCa('oidc-test-ca');
  const serving = await makeServing(ca, 'oidc-issuer');
  let keys: Key[] = [await newKey(1)];
  const stray = await newKey(99);
  const counts = { discovery: 0, jwks: 0 };
  const path = opts.path ?? '';
  let url = '';
  let discoveryIssuer: string | undefined;
  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem },
    (req, res) => {
      const p = new URL(req.url ?? '/', 'https://x').pathname;
      if (p === `${path}/.well-known/openid-configuration` || p === '/custom-discovery') {
        counts.discovery++;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            issuer: discoveryIssuer ?? url,
            jwks_uri: `${url}/jwks`,
            id_token_signing_alg_values_supported: ['RS256'],
          }),
        );
        return;
      }
      if (p === `${path}/jwks`) {
        counts.jwks++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
        return;
      }
      res.statusCode = 404;
      res.end();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const audience = opts.audience ?? 'plat-test';
  return {
    url,
    caPem: ca.certPem,
    counts,
    async mint(claims, o = {}) {
      const key =
        o.otherKey === true ? stray : (keys.find((k) => k.kid === o.kid) ?? keys[keys.length - 1]);
      if (key === undefined) throw new Error('no key');
      const now = Math.floor(Date.now() / 1000);
      const body: JWTPayload = {
        iss: url,
        aud: [audience],
        iat: now,
        exp: now + (o.expiresInSec ?? 3600),
        ...claims,
      };
      return new SignJWT(body)
        .setProtectedHeader({ alg: 'RS256', kid: key.kid })
        .sign(key.privateKey);
    },
    async rotateKey(o = {}) {
      const k = await newKey(keys.length + 1);
      keys = o.dropOld === true ? [k] : [...keys, k];
    },
    setDiscoveryIssuer(issuer) {
      discoveryIssuer = issuer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
