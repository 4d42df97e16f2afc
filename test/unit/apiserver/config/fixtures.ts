// Valid documents of each kind, cloned and broken by the tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export const API_VERSION = 'apiserver.config.platform.io/v1';
export const AES32 = Buffer.alloc(32, 7).toString('base64');

export function authn(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: { url: 'https://issuer.example.com', audiences: ['plat'] },
        claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
        claimMappings: {
          username: { claim: 'sub', prefix: 'oidc:' },
          groups: { expression: 'claims.groups' },
          uid: { claim: 'sub' },
          extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
        },
        userValidationRules: [
          { expression: "!user.username.startsWith('system:')", message: 'reserved' },
        ],
      },
    ],
    anonymous: { enabled: true, conditions: [{ path: '/livez' }] },
  };
}

export function authz(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'AuthorizationConfiguration',
    authorizers: [
      {
        type: 'Webhook',
        name: 'sar-webhook',
        webhook: {
          timeout: '3s',
          subjectAccessReviewVersion: 'v1',
          matchConditionSubjectAccessReviewVersion: 'v1',
          failurePolicy: 'NoOpinion',
          connectionInfo: {
            type: 'KubeConfigFile',
            kubeConfigFile: '/etc/plat/webhook.platconfig',
          },
          matchConditions: [
            {
              expression:
                "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team-a'",
            },
          ],
        },
      },
      { type: 'AlwaysDeny', name: 'deny-rest' },
    ],
  };
}

export function encryption(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'EncryptionConfiguration',
    resources: [
      {
        resources: ['certificatesigningrequests.certificates.platform.io', 'events'],
        providers: [{ aesgcm: { keys: [{ name: 'key1', secret: AES32 }] } }, { identity: {} }],
      },
      { resources: ['*.*'], providers: [{ identity: {} }] },
    ],
  };
}

export function tracing(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'TracingConfiguration',
    endpoint: 'localhost:4317',
    samplingRatePerMillion: 100,
  };
}

export function admission(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'EventRateLimit',
        configuration: {
          apiVersion: 'eventratelimit.admission.platform.io/v1alpha1',
          kind: 'Configuration',
          limits: [
            { type: 'Namespace', qps: 5, burst: 10, cacheSize: 100 },
            { type: 'Server', qps: 50, burst: 100 },
          ],
        },
      },
    ],
  };
}

export interface TempDir {
  readonly dir: string;
  write(name: string, doc: unknown): string;
  writeText(name: string, text: string): string;
  cleanup(): void;
}

export function tempDir(): TempDir {
  const dir = mkdtempSync(join(tmpdir(), 'apiserverconfig-'));
  let n = 0;
  return {
    dir,
    write(name, doc) {
      const p = join(dir, `${n++}-${name}`);
      writeFileSync(p, stringify(doc));
      return p;
    },
    writeText(name, text) {
      const p = join(dir, `${n++}-${name}`);
      writeFileSync(p, text);
      return p;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sets a value at a dotted path such as "jwt.0.issuer.url" (undefined deletes). */
export function setAt(
  doc: Record<string, unknown>,
  path: string,
  value: unknown,
): Record<string, unknown> {
  const parts = path.split('.');
  let cur: Record<string, unknown> = doc;
  for (const p of parts.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  const last = parts[parts.length - 1] ?? '';
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return doc;
}
