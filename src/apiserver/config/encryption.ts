// EncryptionConfiguration: which resources are encrypted at rest and with which providers.
import { z } from 'zod';
import { checkDuration, checkUnique } from './common.js';
import type { FieldPath, IssueList } from './issues.js';

const keySchema = z.strictObject({ name: z.string(), secret: z.string() });
const keysSchema = z.strictObject({ keys: z.array(keySchema) });

export const kmsSchema = z.strictObject({
  apiVersion: z.string().optional(),
  name: z.string(),
  cachesize: z.number().int().optional(),
  endpoint: z.string(),
  timeout: z.string().optional(),
});

export const providerSchema = z.strictObject({
  aesgcm: keysSchema.optional(),
  aescbc: keysSchema.optional(),
  secretbox: keysSchema.optional(),
  identity: z.strictObject({}).optional(),
  kms: kmsSchema.optional(),
});

export const encryptionConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('EncryptionConfiguration'),
  resources: z.array(
    z.strictObject({ resources: z.array(z.string()), providers: z.array(providerSchema) }),
  ),
});

export type EncryptionKey = z.infer<typeof keySchema>;
export type ProviderConfiguration = z.infer<typeof providerSchema>;
export type KMSConfiguration = z.infer<typeof kmsSchema>;
export type EncryptionConfiguration = z.infer<typeof encryptionConfigurationSchema>;

export const PROVIDER_KINDS = ['aesgcm', 'aescbc', 'secretbox', 'identity', 'kms'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export const KMS_DEFAULT_CACHE_SIZE = 1000;
export const KMS_DEFAULT_TIMEOUT = '3s';

const KEY_LENGTHS: Record<'aesgcm' | 'aescbc' | 'secretbox', readonly number[]> = {
  aesgcm: [16, 24, 32],
  aescbc: [32],
  secretbox: [32],
};

/** The one member set in a provider entry (after validation there is exactly one). */
export function providerKind(p: ProviderConfiguration): ProviderKind | undefined {
  return PROVIDER_KINDS.find((k) => p[k] !== undefined);
}

/**
 * Decodes a base64 key strictly; undefined when it is not base64. Never put the input in a message.
 */
export function decodeKey(secret: string): Buffer | undefined {
  const s = secret.trim();
  if (s === '' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

const RESOURCE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

interface GroupResource {
  resource: string;
  group: string;
}

function parseGroupResource(name: string): GroupResource {
  const dot = name.indexOf('.');
  return dot < 0
    ? { resource: name, group: '' }
    : { resource: name.slice(0, dot), group: name.slice(dot + 1) };
}

/** Whether resource entry `a` (possibly a wildcard) covers `b`. */
function covers(a: GroupResource, b: GroupResource): boolean {
  if (a.resource === '*' && a.group === '*') return true;
  if (a.resource === '*') return b.group === a.group;
  return a.resource === b.resource && a.group === b.group;
}

function checkResourceName(issues: IssueList, path: FieldPath, name: string): boolean {
  if (name === '') {
    issues.required(path);
    return false;
  }
  if (name === '*') {
    issues.invalid(
      path,
      name,
      'use "*." for all resources in the core group, or "*.*" for all resources',
    );
    return false;
  }
  if (name === '*.*' || name === '*.') return true;
  if (name.startsWith('*.')) {
    if (!RESOURCE_NAME.test(name.slice(2))) {
      issues.invalid(
        path,
        name,
        'must be "*.*", "*.", "*.<group>", "<resource>" or "<resource>.<group>" in lower case',
      );
      return false;
    }
    return true;
  }
  if (name.includes('*') || !RESOURCE_NAME.test(name)) {
    issues.invalid(
      path,
      name,
      'must be "*.*", "*.", "*.<group>", "<resource>" or "<resource>.<group>" in lower case',
    );
    return false;
  }
  return true;
}

export function validateEncryption(issues: IssueList, cfg: EncryptionConfiguration): void {
  if (cfg.resources.length === 0) issues.required(['resources']);
  const earlier: { gr: GroupResource; name: string }[] = [];
  const kmsNames: { value: string | undefined; path: FieldPath }[] = [];
  cfg.resources.forEach((rc, i) => {
    const p = ['resources', i];
    if (rc.resources.length === 0) issues.required([...p, 'resources']);
    const here: { gr: GroupResource; name: string }[] = [];
    rc.resources.forEach((name, j) => {
      const rp = [...p, 'resources', j];
      if (!checkResourceName(issues, rp, name)) return;
      const gr = parseGroupResource(name);
      for (const h of here) {
        if (h.name === name) issues.duplicate(rp, name);
        else if (covers(h.gr, gr) || covers(gr, h.gr)) {
          issues.invalid(
            rp,
            name,
            `resource overlaps with ${JSON.stringify(h.name)} in the same resource ` +
              `list; wildcards may not overlap`,
          );
        }
      }
      for (const e of earlier) {
        if (covers(e.gr, gr))
          issues.invalid(rp, name, `resource is masked by earlier rule ${JSON.stringify(e.name)}`);
      }
      here.push({ gr, name });
    });
    earlier.push(...here);
    if (rc.providers.length === 0) issues.required([...p, 'providers']);
    rc.providers.forEach((prov, k) => {
      const pp = [...p, 'providers', k];
      const set = PROVIDER_KINDS.filter((kind) => prov[kind] !== undefined);
      if (set.length !== 1) {
        issues.invalid(
          pp,
          undefined,
          `exactly one provider must be configured (one of ` +
            `${PROVIDER_KINDS.join(', ')}), found ` +
            (set.length === 0 ? 'none' : set.join(', ')),
        );
      }
      for (const kind of ['aesgcm', 'aescbc', 'secretbox'] as const) {
        const kc = prov[kind];
        if (kc !== undefined) validateKeys(issues, [...pp, kind, 'keys'], kind, kc.keys);
      }
      if (prov.kms !== undefined) {
        validateKms(issues, [...pp, 'kms'], prov.kms);
        kmsNames.push({
          value: prov.kms.name === '' ? undefined : prov.kms.name,
          path: [...pp, 'kms', 'name'],
        });
      }
    });
  });
  // The reference requires KMS plugin names to be unique across the whole file.
  checkUnique(issues, kmsNames);
}

function validateKeys(
  issues: IssueList,
  p: FieldPath,
  kind: 'aesgcm' | 'aescbc' | 'secretbox',
  keys: readonly EncryptionKey[],
): void {
  if (keys.length === 0) issues.required(p);
  keys.forEach((key, i) => {
    if (key.name === '') issues.required([...p, i, 'name']);
    else if (key.name.includes(':'))
      issues.invalid([...p, i, 'name'], key.name, 'must not contain ":"');
    if (key.secret === '') {
      issues.required([...p, i, 'secret']);
      return;
    }
    const raw = decodeKey(key.secret);
    // The secret is never echoed: only its problem and decoded length.
    if (raw === undefined)
      issues.invalid(
        [...p, i, 'secret'],
        undefined,
        'REDACTED: secret is not a valid base64 string',
      );
    else if (!KEY_LENGTHS[kind].includes(raw.length)) {
      issues.invalid(
        [...p, i, 'secret'],
        undefined,
        `REDACTED: secret is not of the expected length, got ${raw.length}, expected ` +
          `one of ${KEY_LENGTHS[kind].join(', ')} bytes`,
      );
    }
  });
  checkUnique(
    issues,
    keys.map((k, i) => ({ value: k.name === '' ? undefined : k.name, path: [...p, i, 'name'] })),
  );
}

function validateKms(issues: IssueList, p: FieldPath, kms: KMSConfiguration): void {
  const version = kms.apiVersion ?? 'v1';
  if (!['v1', 'v2'].includes(version))
    issues.unsupported([...p, 'apiVersion'], version, ['v1', 'v2']);
  if (kms.name === '') issues.required([...p, 'name']);
  else if (kms.name.includes(':')) issues.invalid([...p, 'name'], kms.name, 'must not contain ":"');
  if (kms.endpoint === '') issues.required([...p, 'endpoint']);
  else if (!/^unix:\/\/.+/.test(kms.endpoint))
    issues.invalid(
      [...p, 'endpoint'],
      kms.endpoint,
      'unsupported scheme for KMS provider endpoint: must be unix://<path>',
    );
  if (kms.cachesize !== undefined) {
    if (version === 'v2')
      issues.invalid(
        [...p, 'cachesize'],
        String(kms.cachesize),
        'cachesize is not supported in v2',
      );
    else if (kms.cachesize === 0)
      issues.invalid(
        [...p, 'cachesize'],
        '0',
        'cachesize must be a positive number or negative to disable caching',
      );
  }
  if (kms.timeout !== undefined)
    checkDuration(issues, [...p, 'timeout'], kms.timeout, { min: 'positive' });
}

/** The reference's KMS defaults: apiVersion v1, timeout 3s, and cachesize 1000 (KMS v1 only). */
export function withKmsDefaults(cfg: EncryptionConfiguration): EncryptionConfiguration {
  return {
    ...cfg,
    resources: cfg.resources.map((rc) => ({
      ...rc,
      providers: rc.providers.map((p) => {
        if (p.kms === undefined) return p;
        const apiVersion = p.kms.apiVersion ?? 'v1';
        const kms: KMSConfiguration = {
          ...p.kms,
          apiVersion,
          timeout: p.kms.timeout ?? KMS_DEFAULT_TIMEOUT,
        };
        if (apiVersion === 'v1') kms.cachesize = p.kms.cachesize ?? KMS_DEFAULT_CACHE_SIZE;
        return { ...p, kms };
      }),
    })),
  };
}
