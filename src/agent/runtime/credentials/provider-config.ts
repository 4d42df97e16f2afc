// --image-credential-provider-config: a CredentialProviderConfig (kubelet.config.k8s.io v1,
// v1beta1 or v1alpha1) file, or a directory whose *.json, *.yaml and *.yml files are merged in
// lexical order; decoded strictly and validated with the reference's rules and words
// (pkg/credentialprovider/plugin/config.go). Read through the bounded parser.
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { z } from 'zod';
import { CONFIG_FILE_LIMITS, parseYamlValueBounded } from '../../../common/util/bounded-parse.js';
import { LocatedYamlError } from '../../../common/util/yaml-located-error.js';
import { ConfigError, userMessage } from '../../../common/util/errors.js';
import { tryDurationMs } from '../../config/values.js';
import { parseSchemelessURL } from './match-image.js';
import { WIRE_NAMES } from '../../../common/names.js';

export const CONFIG_API_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'].map(
  (v) => `${WIRE_NAMES.credentialProviderConfigGroup}/${v}`,
);
/** The plugin protocol versions, sorted as the reference lists them. */
export const PLUGIN_API_VERSIONS = ['v1', 'v1alpha1', 'v1beta1'].map(
  (v) => `${WIRE_NAMES.credentialProviderPluginGroup}/${v}`,
);

const providerSchema = z.strictObject({
  name: z.string(),
  matchImages: z.array(z.string()).optional(),
  defaultCacheDuration: z.string().optional(),
  apiVersion: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.array(z.strictObject({ name: z.string(), value: z.string() })).optional(),
  tokenAttributes: z.record(z.string(), z.unknown()).optional(),
});

const configSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  providers: z.array(providerSchema).optional(),
});

export interface CredentialProvider {
  name: string;
  matchImages: string[];
  /** Milliseconds. */
  defaultCacheDurationMs: number;
  apiVersion: string;
  args: string[];
  env: { name: string; value: string }[];
}

type RawProvider = z.infer<typeof providerSchema>;

async function configFiles(path: string): Promise<string[]> {
  const st = await stat(path).catch((err: unknown) => {
    throw new ConfigError(`unable to access path "${path}": ${userMessage(err)}`, {
      flag: '--image-credential-provider-config',
    });
  });
  if (!st.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const files = entries
    .filter((e) => !e.isDirectory() && ['.json', '.yaml', '.yml'].includes(extname(e.name)))
    .map((e) => join(path, e.name))
    .sort();
  if (files.length === 0)
    throw new ConfigError(`no configuration files found in directory "${path}"`, {
      flag: '--image-credential-provider-config',
    });
  return files;
}

async function decodeFile(file: string): Promise<RawProvider[]> {
  const fail = (text: string): ConfigError =>
    new ConfigError(`error decoding config "${file}": ${text}`, {
      flag: '--image-credential-provider-config',
    });
  let value: unknown;
  try {
    value = parseYamlValueBounded(await readFile(file, 'utf8'), {
      limits: CONFIG_FILE_LIMITS,
      source: file,
    });
  } catch (err) {
    throw fail(err instanceof LocatedYamlError ? err.located : userMessage(err));
  }
  const parsed = configSchema.safeParse(value);
  if (!parsed.success)
    throw fail(
      parsed.error.issues
        .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
        .join('; '),
    );
  const { apiVersion, kind } = parsed.data;
  if (kind !== 'CredentialProviderConfig') throw fail(`failed to decode "${kind}" (wrong Kind)`);
  if (!CONFIG_API_VERSIONS.includes(apiVersion)) {
    if (!apiVersion.startsWith(`${WIRE_NAMES.credentialProviderConfigGroup}/`))
      throw fail(
        `failed to decode CredentialProviderConfig, unexpected Group: ` +
          (apiVersion.split('/')[0] ?? ''),
      );
    throw fail(`no kind "CredentialProviderConfig" is registered for version "${apiVersion}"`);
  }
  return parsed.data.providers ?? [];
}

const q = (s: string): string => JSON.stringify(s);

/** The reference's validateCredentialProviderConfig, in field.Error words. */
export function validateProviders(providers: readonly RawProvider[]): string[] {
  const errs: string[] = [];
  if (providers.length === 0)
    errs.push('providers: Required value: at least 1 item in plugins is required');
  const seen = new Set<string>();
  for (const p of providers) {
    if (p.name.includes('/'))
      errs.push(`providers.name: Invalid value: ${q(p.name)}: provider name cannot contain '/'`);
    if (p.name.includes(' '))
      errs.push(`providers.name: Invalid value: ${q(p.name)}: provider name cannot contain spaces`);
    if (p.name === '.')
      errs.push(`providers.name: Invalid value: ${q(p.name)}: provider name cannot be '.'`);
    if (p.name === '..')
      errs.push(`providers.name: Invalid value: ${q(p.name)}: provider name cannot be '..'`);
    if (seen.has(p.name)) errs.push(`providers.name: Duplicate value: ${q(p.name)}`);
    seen.add(p.name);
    if (p.apiVersion === undefined || p.apiVersion === '')
      errs.push('providers.apiVersion: Required value');
    else if (!PLUGIN_API_VERSIONS.includes(p.apiVersion))
      errs.push(
        `providers.apiVersion: Unsupported value: ${q(p.apiVersion)}: supported values: ` +
          PLUGIN_API_VERSIONS.map(q).join(', '),
      );
    if ((p.matchImages ?? []).length === 0)
      errs.push(
        'providers.matchImages: Required value: at least 1 item in matchImages is required',
      );
    for (const m of p.matchImages ?? []) {
      try {
        parseSchemelessURL(m);
      } catch (err) {
        errs.push(
          `providers.matchImages: Invalid value: ${q(m)}: match image is invalid: ` +
            userMessage(err),
        );
      }
    }
    if (p.defaultCacheDuration === undefined)
      errs.push('providers.defaultCacheDuration: Required value');
    else {
      const ms = tryDurationMs(p.defaultCacheDuration);
      if (ms === undefined)
        errs.push(
          `providers.defaultCacheDuration: Invalid value: ${q(p.defaultCacheDuration)}: ` +
            `is not a duration such as 12h0m0s`,
        );
      else if (ms < 0)
        errs.push(
          `providers.defaultCacheDuration: Invalid value: ${q(p.defaultCacheDuration)}: ` +
            `defaultCacheDuration must be greater than or equal to 0`,
        );
    }
    if (p.tokenAttributes !== undefined)
      errs.push(
        'providers.tokenAttributes: Forbidden: tokenAttributes is not supported when ' +
          'KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
      );
  }
  return errs;
}

/**
 * Reads, merges and validates the configuration; a problem is a ConfigError in the reference's
 * words.
 */
export async function loadCredentialProviderConfig(path: string): Promise<CredentialProvider[]> {
  if (path === '')
    throw new ConfigError('credential provider config path is empty', {
      flag: '--image-credential-provider-config',
    });
  const merged: RawProvider[] = [];
  const names = new Set<string>();
  for (const file of await configFiles(path)) {
    for (const p of await decodeFile(file)) {
      if (names.has(p.name))
        throw new ConfigError(
          `duplicate provider name "${p.name}" found in configuration file(s)`,
          { flag: '--image-credential-provider-config' },
        );
      names.add(p.name);
      merged.push(p);
    }
  }
  const errs = validateProviders(merged);
  if (errs.length > 0) {
    throw new ConfigError(
      `failed to validate credential provider config: ` +
        `${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`,
      { flag: '--image-credential-provider-config' },
    );
  }
  return merged.map((p) => ({
    name: p.name,
    matchImages: p.matchImages ?? [],
    defaultCacheDurationMs: tryDurationMs(p.defaultCacheDuration ?? '0s') ?? 0,
    apiVersion: p.apiVersion ?? '',
    args: p.args ?? [],
    env: p.env ?? [],
  }));
}
