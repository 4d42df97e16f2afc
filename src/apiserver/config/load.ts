// Reading and validating the five configuration files. Every problem of a file is reported at
// once as "<file>: <json path>: <message>"; secret values are never part of a message.
import { textOf } from '../../common/util/text-of.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError, InputLimitError } from '../../common/util/errors.js';
import { CONFIG_FILE_LIMITS, parseYamlValueBounded } from '../../common/util/bounded-parse.js';
import { LocatedYamlError } from '../../common/util/yaml-located-error.js';

/** A configuration file's YAML within CONFIG_FILE_LIMITS (InputLimitError names file and limit). */
function parseYaml(text: string, file: string): unknown {
  return parseYamlValueBounded(text, { limits: CONFIG_FILE_LIMITS, source: file });
}
import {
  admissionConfigurationSchema,
  eventRateLimitConfigurationSchema,
  validateAdmission,
  validateEventRateLimit,
  type AdmissionConfiguration,
  type EventRateLimitConfiguration,
} from './admission.js';
import {
  authenticationConfigurationSchema,
  validateAuthentication,
  type AuthenticationConfiguration,
} from './authentication.js';
import {
  authorizationConfigurationSchema,
  validateAuthorization,
  type AuthorizationConfiguration,
} from './authorization.js';
import { configApiVersion, DEFAULT_PLATFORM_DOMAIN } from './common.js';
import {
  encryptionConfigurationSchema,
  validateEncryption,
  withKmsDefaults,
  type EncryptionConfiguration,
} from './encryption.js';
import { formatPath, fromZodIssues, IssueList, type FieldPath } from './issues.js';
import {
  tracingConfigurationSchema,
  validateTracing,
  type TracingConfiguration,
} from './tracing.js';
import { isOneOf, isRecord } from '../../common/util/json-shape.js';
import { errnoCode } from '../../common/util/errno.js';

export const CONFIG_KINDS = [
  'AdmissionConfiguration',
  'AuthenticationConfiguration',
  'AuthorizationConfiguration',
  'EncryptionConfiguration',
  'TracingConfiguration',
] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

export interface ConfigLoadOptions {
  readonly platformDomain?: string;
  /** `--anonymous-auth` was set explicitly on the command line. */
  readonly anonymousAuthFlagSet?: boolean;
}

export interface ResolvedAdmissionConfiguration {
  readonly config: AdmissionConfiguration;
  /** EventRateLimit's configuration, from `configuration` or the file at `path`. */
  readonly eventRateLimit: EventRateLimitConfiguration | undefined;
}

export type LoadedConfig =
  | {
      readonly kind: 'AdmissionConfiguration';
      readonly file: string;
      readonly config: ResolvedAdmissionConfiguration;
    }
  | {
      readonly kind: 'AuthenticationConfiguration';
      readonly file: string;
      readonly config: AuthenticationConfiguration;
    }
  | {
      readonly kind: 'AuthorizationConfiguration';
      readonly file: string;
      readonly config: AuthorizationConfiguration;
    }
  | {
      readonly kind: 'EncryptionConfiguration';
      readonly file: string;
      readonly config: EncryptionConfiguration;
    }
  | {
      readonly kind: 'TracingConfiguration';
      readonly file: string;
      readonly config: TracingConfiguration;
    };

export type ConfigOf<K extends ConfigKind> = Extract<LoadedConfig, { kind: K }>['config'];

function fail(file: string, issues: IssueList | string[], flag?: string): never {
  const problems =
    issues instanceof IssueList
      ? issues.issues.map((i) => `${file}: ${formatPath(i.path)}: ${i.message}`)
      : issues.map((m) => `${file}: ${m}`);
  throw new ConfigError(
    problems.length === 1
      ? (problems[0] ?? '')
      : `${problems.length} problems:\n  ${problems.join('\n  ')}`,
    {
      file,
      problems,
      ...(flag === undefined ? {} : { flag }),
      ...(issues instanceof IssueList && issues.issues[0] !== undefined
        ? { field: formatPath(issues.issues[0].path) }
        : {}),
    },
  );
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    fail(file, [
      code === 'ENOENT' ? 'file does not exist' : `cannot read file (${code ?? 'error'})`,
    ]);
  }
  try {
    return parseYaml(text, file);
  } catch (err) {
    if (err instanceof InputLimitError) fail(file, [err.message.slice(file.length + 2)]);
    if (err instanceof LocatedYamlError) fail(file, [err.located]);
    // Only the first line: the rest of yaml's message quotes the file, which may hold a secret.
    const msg = err instanceof Error ? (err.message.split('\n')[0] ?? '') : 'parse error';
    fail(file, [`invalid YAML or JSON: ${msg}`]);
  }
}

function parseWith<S extends z.ZodType>(
  schema: S,
  doc: unknown,
  issues: IssueList,
  base: FieldPath = [],
): z.infer<S> | undefined {
  const r = schema.safeParse(doc, { reportInput: true });
  if (r.success) return r.data;
  const inner = new IssueList();
  fromZodIssues(r.error.issues, inner);
  for (const i of inner.issues) issues.add([...base, ...i.path], i.message);
  return undefined;
}

/**
 * Parses and validates one document of a known or detected kind; throws ConfigError listing every
 * problem.
 */
export function parseConfigDocument(
  file: string,
  doc: unknown,
  opts: ConfigLoadOptions = {},
  expected?: ConfigKind,
): LoadedConfig {
  const domain = opts.platformDomain ?? DEFAULT_PLATFORM_DOMAIN;
  const issues = new IssueList();
  const k = documentKind(file, doc, domain, expected, issues);
  const loaded = parseKind(k, file, doc, { ...opts, platformDomain: domain }, issues);
  if (!issues.ok || loaded === undefined) fail(file, issues);
  return loaded;
}

/**
 * apiVersion and kind checked (the kind one of ours, the expected one when given); fails otherwise.
 */
function documentKind(
  file: string,
  doc: unknown,
  domain: string,
  expected: ConfigKind | undefined,
  issues: IssueList,
): ConfigKind {
  if (!isRecord(doc)) fail(file, ['must be a YAML or JSON object with apiVersion and kind']);
  const apiVersion = doc['apiVersion'];
  const kind = doc['kind'];
  const wantVersion = configApiVersion(domain);
  if (apiVersion === undefined) issues.required(['apiVersion']);
  else if (apiVersion !== wantVersion)
    issues.unsupported(['apiVersion'], textOf(apiVersion), [wantVersion]);
  if (kind === undefined) issues.required(['kind']);
  else if (typeof kind !== 'string' || !isOneOf(CONFIG_KINDS, kind)) {
    issues.unsupported(['kind'], textOf(kind), expected === undefined ? CONFIG_KINDS : [expected]);
  } else if (expected !== undefined && kind !== expected)
    issues.unsupported(['kind'], kind, [expected]);
  // A kind that is not ours has its issue above.
  if (!issues.ok || typeof kind !== 'string' || !isOneOf(CONFIG_KINDS, kind)) fail(file, issues);
  return kind;
}

/**
 * The document decoded by its kind's schema and validated by its rules; undefined when it does not
 * decode.
 */
function parseKind(
  k: ConfigKind,
  file: string,
  doc: unknown,
  opts: ConfigLoadOptions & { platformDomain: string },
  issues: IssueList,
): LoadedConfig | undefined {
  switch (k) {
    case 'AuthenticationConfiguration': {
      const cfg = parseWith(authenticationConfigurationSchema, doc, issues);
      if (cfg === undefined) return undefined;
      validateAuthentication(issues, cfg, {
        anonymousAuthFlagSet: opts.anonymousAuthFlagSet ?? false,
      });
      return { kind: k, file, config: cfg };
    }
    case 'AuthorizationConfiguration': {
      const cfg = parseWith(authorizationConfigurationSchema, doc, issues);
      if (cfg === undefined) return undefined;
      validateAuthorization(issues, cfg);
      return { kind: k, file, config: cfg };
    }
    case 'EncryptionConfiguration': {
      const cfg = parseWith(encryptionConfigurationSchema, doc, issues);
      if (cfg === undefined) return undefined;
      validateEncryption(issues, cfg);
      return { kind: k, file, config: withKmsDefaults(cfg) };
    }
    case 'TracingConfiguration': {
      const cfg = parseWith(tracingConfigurationSchema, doc, issues);
      if (cfg === undefined) return undefined;
      validateTracing(issues, cfg);
      return { kind: k, file, config: cfg };
    }
    case 'AdmissionConfiguration': {
      const cfg = parseWith(admissionConfigurationSchema, doc, issues);
      if (cfg === undefined) return undefined;
      validateAdmission(issues, cfg);
      const eventRateLimit = resolveEventRateLimit(file, cfg, opts.platformDomain, issues);
      return { kind: k, file, config: { config: cfg, eventRateLimit } };
    }
  }
}

function resolveEventRateLimit(
  file: string,
  cfg: AdmissionConfiguration,
  domain: string,
  issues: IssueList,
): EventRateLimitConfiguration | undefined {
  const i = cfg.plugins.findIndex((p) => p.name === 'EventRateLimit');
  const entry = cfg.plugins[i];
  if (entry === undefined) return undefined;
  let doc: unknown;
  let base: FieldPath;
  if (entry.configuration !== undefined) {
    doc = entry.configuration;
    base = ['plugins', i, 'configuration'];
  } else if (entry.path !== undefined && entry.path !== '') {
    const target = resolve(dirname(file), entry.path);
    base = ['plugins', i, 'path'];
    try {
      doc = parseYaml(readFileSync(target, 'utf8'), target);
    } catch (err) {
      if (err instanceof InputLimitError) {
        issues.invalid(base, entry.path, err.message);
        return undefined;
      }
      const code = errnoCode(err);
      issues.invalid(
        base,
        entry.path,
        code === 'ENOENT' ? 'file does not exist' : `cannot read or parse ${target}`,
      );
      return undefined;
    }
    base = [...base, `(${target})`];
  } else {
    issues.required(['plugins', i, 'configuration']);
    return undefined;
  }
  const parsed = parseWith(eventRateLimitConfigurationSchema, doc, issues, base);
  if (parsed !== undefined) validateEventRateLimit(issues, base, parsed, domain);
  return parsed;
}

/**
 * Reads and validates a file of the given kind (or any kind); throws ConfigError naming the flag.
 */
export function loadConfigFile<K extends ConfigKind>(
  file: string,
  kind: K,
  opts: ConfigLoadOptions = {},
  flag?: string,
): ConfigOf<K> {
  try {
    const loaded = parseConfigDocument(file, readDocument(file), opts, kind);
    // parseConfigDocument refused any other kind; TypeScript cannot narrow a union by a generic K.
    return loaded.config as ConfigOf<K>;
  } catch (err) {
    if (err instanceof ConfigError && flag !== undefined) {
      throw new ConfigError(`${flag}: ${err.message}`, {
        file,
        flag,
        problems: err.problems,
        ...(err.field === undefined ? {} : { field: err.field }),
      });
    }
    throw err;
  }
}

export interface ValidateConfigFilesResult {
  readonly ok: boolean;
  /** One line per problem, each naming the file and the field. */
  readonly errors: readonly string[];
  readonly kinds: readonly (ConfigKind | undefined)[];
}

/** `plat-apiserver --validate-config FILE...`: validates files of any of the five kinds. */
export function validateConfigFiles(
  paths: readonly string[],
  opts: ConfigLoadOptions = {},
): ValidateConfigFilesResult {
  const errors: string[] = [];
  const kinds: (ConfigKind | undefined)[] = [];
  for (const file of paths) {
    try {
      kinds.push(parseConfigDocument(file, readDocument(file), opts).kind);
    } catch (err) {
      kinds.push(undefined);
      if (err instanceof ConfigError) errors.push(...err.problems);
      else errors.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { ok: errors.length === 0, errors, kinds };
}
