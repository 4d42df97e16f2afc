// Decoding a NodeAgentConfiguration file or drop-in: strict first, then the reference's lenient
// fallback (unknown and duplicate fields are dropped with a warning naming each), while a wrong
// kind or apiVersion, an empty or unreadable file and a syntax error are fatal and name file, line
// and column. Relative paths resolve against the file's own directory.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../util/errors.js';
import { CONFIG_KIND, configApiVersion } from './defaults.js';
import { isPlainObject, type JsonObject } from './merge.js';
import { nodeAgentConfigurationSchema } from './schema.js';
import { locate, parseYaml, where, type ParsedYaml } from './yaml-doc.js';

/** Fields holding file paths, resolved against the directory of the file that sets them. */
export const PATH_FIELDS: readonly string[] = [
  'staticPodPath',
  'tlsCertFile',
  'tlsPrivateKeyFile',
  'authentication.x509.clientCAFile',
  'resolvConf',
  'volumePluginDir',
];

export interface LoadedConfigFile {
  path: string;
  /** The decoded document, unknown and duplicate fields removed, relative paths made absolute. */
  content: JsonObject;
  /** One line per dropped field. */
  warnings: string[];
}

export interface LoadOptions {
  /** --platform-domain, when given on the command line; otherwise the file's platformDomain. */
  platformDomain?: string | undefined;
  /** Default platform domain when neither the flag nor the file names one. */
  defaultPlatformDomain: string;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

export function errnoText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && ERRNO_TEXT[code] !== undefined) return ERRNO_TEXT[code];
  return err instanceof Error ? err.message : String(err);
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isPlainObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
  return out;
}

function deleteAt(obj: unknown, path: readonly PropertyKey[], key: string): void {
  let cur: unknown = obj;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === 'number') cur = cur[seg];
    else if (isPlainObject(cur)) cur = cur[String(seg)];
    else return;
  }
  if (isPlainObject(cur)) delete cur[key];
}

function dotted(path: readonly PropertyKey[]): string {
  let s = '';
  for (const seg of path) s += typeof seg === 'number' ? `[${seg}]` : s === '' ? String(seg) : `.${String(seg)}`;
  return s;
}

function issueText(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * Decodes one file's text. `isDropIn` switches the messages and allows `null` (a merge-patch
 * delete). Throws ConfigError with every fatal problem of the file.
 */
export function decodeConfigText(file: string, text: string, opts: LoadOptions & { isDropIn?: boolean }): LoadedConfigFile {
  const what = opts.isDropIn === true ? 'drop-in config file' : 'config file';
  const fail = (problems: string[]): never => {
    throw new ConfigError(problems.join('; '), { file, problems });
  };
  if (text.trim() === '') fail([`${what} "${file}" was empty`]);
  let parsed: ParsedYaml;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    return fail([`${where(file, undefined)}: ${err instanceof Error ? err.message : String(err)}`]);
  }
  if (parsed.errors.length > 0) fail(parsed.errors.map((e) => `${where(file, e.pos)}: ${e.message}`));
  const value = parsed.value;
  if (value === null || value === undefined) fail([`${what} "${file}" was empty`]);
  if (!isPlainObject(value)) fail([`${where(file, undefined)}: expected a ${CONFIG_KIND} mapping, got ${Array.isArray(value) ? 'a list' : typeof value}`]);
  const content = value as JsonObject;
  const warnings = parsed.duplicates.map((d) => `${where(file, d.pos)}: duplicate field "${d.path}" ignored, the last value is used`);

  // Identity: kind and apiVersion, in the platform domain of the flag, else of the file.
  const fileDomain = typeof content['platformDomain'] === 'string' ? content['platformDomain'] : undefined;
  const domain = opts.platformDomain ?? fileDomain ?? opts.defaultPlatformDomain;
  const wantVersion = configApiVersion(domain);
  const problems: string[] = [];
  const kind = content['kind'];
  const apiVersion = content['apiVersion'];
  const noKind = kind === undefined || kind === null || kind === '';
  const noVersion = apiVersion === undefined || apiVersion === null || apiVersion === '';
  if (noKind && noVersion) problems.push(`${where(file, undefined)}: apiVersion and kind are missing: expected apiVersion: ${wantVersion} and kind: ${CONFIG_KIND}`);
  else if (noKind) problems.push(`${where(file, undefined)}: kind is missing: expected kind: ${CONFIG_KIND}`);
  else if (kind !== CONFIG_KIND) problems.push(`${where(file, locate(parsed, ['kind']))}: kind ${JSON.stringify(kind)} is not supported: expected kind: ${CONFIG_KIND}`);
  if (noVersion) {
    if (!noKind) problems.push(`${where(file, undefined)}: apiVersion is missing: expected apiVersion: ${wantVersion}`);
  } else if (apiVersion !== wantVersion) problems.push(`${where(file, locate(parsed, ['apiVersion']))}: apiVersion ${JSON.stringify(apiVersion)} is not supported: expected apiVersion: ${wantVersion}`);
  if (problems.length > 0) fail(problems);

  // Strict decoding; unknown keys are dropped with a warning, wrong types are fatal.
  const check = opts.isDropIn === true ? withoutNulls(content) : content;
  const result = nodeAgentConfigurationSchema.safeParse(check);
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const full = [...issue.path, key];
          warnings.push(`${where(file, locate(parsed, full))}: unknown field "${dotted(full)}" ignored`);
          deleteAt(content, issue.path, key);
        }
      } else {
        problems.push(`${where(file, locate(parsed, issue.path))}: field ${dotted(issue.path)}: ${issueText(issue)}`);
      }
    }
    if (problems.length > 0) fail(problems);
  }
  resolveRelativePaths(content, dirname(file));
  return { path: file, content, warnings };
}

/** Makes the path fields of `content` absolute against `dir` (empty values stay empty). */
export function resolveRelativePaths(content: JsonObject, dir: string): void {
  for (const field of PATH_FIELDS) {
    const parts = field.split('.');
    let cur: unknown = content;
    for (const p of parts.slice(0, -1)) cur = isPlainObject(cur) ? cur[p] : undefined;
    const last = parts[parts.length - 1] ?? field;
    if (!isPlainObject(cur)) continue;
    const v = cur[last];
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) cur[last] = resolve(dir, v);
  }
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`failed to read ${what} "${file}": ${errnoText(err)}`, { file, cause: err });
  }
}

/** Reads and decodes the --config file (path as given, relative to the working directory). */
export async function loadConfigFile(path: string, opts: LoadOptions): Promise<LoadedConfigFile> {
  const file = resolve(path);
  return decodeConfigText(file, await readText(file, 'config file'), opts);
}

/** Reads and decodes one drop-in. */
export async function loadDropInFile(path: string, opts: LoadOptions): Promise<LoadedConfigFile> {
  return decodeConfigText(path, await readText(path, 'drop-in config file'), { ...opts, isDropIn: true });
}
