// Decoding a NodeAgentConfiguration file or drop-in: strict first, then the reference's lenient
// fallback (unknown and duplicate fields are dropped with a warning naming each), while a wrong
// kind or apiVersion, an empty or unreadable file and a syntax error are fatal and name file, line
// and column. Relative paths resolve against the file's own directory.
//
// Two parsers, for start-up time: a clean document (the common case) is read with js-yaml (core
// schema, duplicate keys refused, no anchors) and checked against the published schema's shape;
// anything else - a syntax error, a duplicate or unknown field, a wrong type or identity, anchors
// - goes through the `yaml` library and zod, which know line and column and word every problem.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError, InputLimitError, userMessage } from '../../common/util/errors.js';
import { errnoCode } from '../../common/util/errno.js';
import { CONFIG_FILE_LIMITS } from '../../common/util/parse-limits.js';
import { checkSize } from '../../common/util/bounded-input.js';
import { namesFor, type PlatformProfile } from '../../common/names.js';
import { CONFIG_KIND, configApiVersion } from './defaults.js';
import { translateKubeletConfiguration } from './kubelet-config.js';
import { fastYamlValue } from '../../common/util/fast-yaml.js';
import { isPlainObject, type JsonObject } from './merge.js';
import { takePreRead, type PreRead, type PreReadFile } from './pre-read.js';
import { loadShapeSchema, shapeOk, type ShapeSchema } from './shape-check.js';
import { where } from './where.js';
import type * as YamlDoc from './yaml-doc.js';
import type { ParsedYaml } from './yaml-doc.js';

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
  /**
   * The published JSON Schema for the fast pre-check (see shape-check.ts); undefined: always zod.
   */
  shape?: ShapeSchema | undefined;
  /** --platform-domain, when given on the command line; otherwise the file's platformDomain. */
  platformDomain?: string | undefined;
  /** Default platform domain when neither the flag nor the file names one. */
  defaultPlatformDomain: string;
  /** The naming profile: under `kubernetes` the file is a KubeletConfiguration. */
  profile?: PlatformProfile | undefined;
  /**
   * What the naming-profile inference already read (pre-read.ts): those files are not read again.
   */
  preRead?: PreRead | undefined;
}

/** decodeConfigText's options: the file's fast decoding, when already done, comes along. */
export interface DecodeOptions extends LoadOptions {
  isDropIn?: boolean;
  /**
   * fastYamlValue(text), already computed (pre-read.ts); when the key is absent it is computed
   * here.
   */
  fast?: PreReadFile['fast'];
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

export function errnoText(err: unknown): string {
  const code = errnoCode(err);
  if (code !== undefined && ERRNO_TEXT[code] !== undefined) return ERRNO_TEXT[code];
  return err instanceof Error ? err.message : String(err);
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isPlainObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
  return out;
}

/** What the checks see of a decoded document: a drop-in's nulls (merge-patch deletes) left out. */
function checked(content: JsonObject, opts: DecodeOptions): unknown {
  return opts.isDropIn === true ? withoutNulls(content) : content;
}

function shapeClean(shape: ShapeSchema, content: JsonObject, opts: DecodeOptions): boolean {
  return shapeOk(shape, checked(content, opts));
}

/** The text as js-yaml reads it (pre-read when it could be), undefined for the full parser. */
function fastValue(text: string, opts: DecodeOptions): unknown {
  return ('fast' in opts ? opts.fast : fastYamlValue(text))?.value;
}

/** Our document's top-level fields, as the published shape lists them (own keys only). */
function shapeFields(shape: ShapeSchema): ReadonlySet<string> {
  return new Set(Object.keys(shape.properties ?? {}));
}

function deleteAt(obj: unknown, path: readonly PropertyKey[], key: string): void {
  let cur: unknown = obj;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === 'number') cur = cur[seg];
    else if (isPlainObject(cur)) cur = cur[String(seg)];
    else return;
  }
  // Cur is the parsed document itself: the key zod named is removed from it in place.
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
  if (isPlainObject(cur)) delete cur[key];
}

function dotted(path: readonly PropertyKey[]): string {
  let s = '';
  for (const seg of path)
    s += typeof seg === 'number' ? `[${seg}]` : s === '' ? String(seg) : `.${String(seg)}`;
  return s;
}

function issueText(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/** The fast path: the decoded document when it is clean, else undefined (take the full path). */
function decodeClean(
  text: string,
  shape: ShapeSchema,
  opts: DecodeOptions,
): JsonObject | undefined {
  const value = fastValue(text, opts);
  if (!isPlainObject(value)) return undefined;
  const fileDomain =
    typeof value['platformDomain'] === 'string' ? value['platformDomain'] : undefined;
  if (
    value['kind'] !== CONFIG_KIND ||
    value['apiVersion'] !==
      configApiVersion(opts.platformDomain ?? fileDomain ?? opts.defaultPlatformDomain)
  )
    return undefined;
  return shapeClean(shape, value, opts) ? value : undefined;
}

/**
 * The fast path of a KubeletConfiguration (the kubernetes profile): its translation when the file
 * needs no word (no note, no unsupported field) and the result passes the shape check, else
 * undefined (the full path words each problem with its line and column).
 */
function decodeCleanKubelet(
  text: string,
  shape: ShapeSchema,
  opts: DecodeOptions,
): JsonObject | undefined {
  const value = fastValue(text, opts);
  const ref = namesFor('kubernetes').agentConfig;
  if (!isPlainObject(value) || value['kind'] !== ref.kind || value['apiVersion'] !== ref.apiVersion)
    return undefined;
  const known = shapeFields(shape);
  const t = translateKubeletConfiguration(value, namesFor('platform'), (f) => known.has(f));
  if (t.notes.length > 0 || t.unsupported.length > 0) return undefined;
  return shapeClean(shape, t.content, opts) ? t.content : undefined;
}

function failWith(file: string, problems: string[]): never {
  throw new ConfigError(problems.join('; '), { file, problems });
}

/** A file that is empty or over the size limits is refused before it is parsed. */
function checkText(file: string, text: string, what: string): void {
  if (text.trim() === '') failWith(file, [`${what} "${file}" was empty`]);
  try {
    checkSize(text, { limits: CONFIG_FILE_LIMITS, source: `${what} "${file}"` });
  } catch (err) {
    if (err instanceof InputLimitError) failWith(file, [err.message]);
    throw err;
  }
}

/** The YAML document and its top-level mapping; any syntax error or other shape is fatal. */
function parseDocument(
  yaml: typeof YamlDoc,
  file: string,
  text: string,
  what: string,
): { parsed: ParsedYaml; content: JsonObject } {
  let parsed: ParsedYaml;
  try {
    parsed = yaml.parseYaml(text, `${what} "${file}"`);
  } catch (err) {
    if (err instanceof InputLimitError) return failWith(file, [err.message]);
    return failWith(file, [`${where(file, undefined)}: ${userMessage(err)}`]);
  }
  if (parsed.errors.length > 0)
    failWith(
      file,
      parsed.errors.map((e) => `${where(file, e.pos)}: ${e.message}`),
    );
  const value = parsed.value;
  if (value === null || value === undefined) failWith(file, [`${what} "${file}" was empty`]);
  if (!isPlainObject(value))
    return failWith(file, [
      `${where(file, undefined)}: expected a ${CONFIG_KIND} mapping, got ` +
        (Array.isArray(value) ? 'a list' : typeof value),
    ]);
  return { parsed, content: value };
}

function duplicateWarnings(file: string, parsed: ParsedYaml): string[] {
  return parsed.duplicates.map(
    (d) => `${where(file, d.pos)}: duplicate field "${d.path}" ignored, the last value is used`,
  );
}

/** What is wrong with the document's kind and apiVersion (in `domain`); empty when nothing. */
function identityProblems(
  yaml: typeof YamlDoc,
  file: string,
  doc: { parsed: ParsedYaml; content: JsonObject },
  domain: string,
): string[] {
  const wantVersion = configApiVersion(domain);
  const problems: string[] = [];
  const kind = doc.content['kind'];
  const apiVersion = doc.content['apiVersion'];
  const noKind = kind === undefined || kind === null || kind === '';
  const noVersion = apiVersion === undefined || apiVersion === null || apiVersion === '';
  if (noKind && noVersion)
    problems.push(
      `${where(file, undefined)}: apiVersion and kind are missing: expected apiVersion: ` +
        `${wantVersion} and kind: ${CONFIG_KIND}`,
    );
  else if (noKind)
    problems.push(`${where(file, undefined)}: kind is missing: expected kind: ${CONFIG_KIND}`);
  else if (kind !== CONFIG_KIND)
    problems.push(
      `${where(file, yaml.locate(doc.parsed, ['kind']))}: kind ${JSON.stringify(kind)} ` +
        `is not supported: expected kind: ${CONFIG_KIND}`,
    );
  if (noVersion) {
    if (!noKind)
      problems.push(
        `${where(file, undefined)}: apiVersion is missing: expected apiVersion: ${wantVersion}`,
      );
  } else if (apiVersion !== wantVersion)
    problems.push(
      `${where(file, yaml.locate(doc.parsed, ['apiVersion']))}: apiVersion ` +
        `${JSON.stringify(apiVersion)} is not supported: expected apiVersion: ` +
        wantVersion,
    );
  return problems;
}

/**
 * Decodes one file's text. `isDropIn` switches the messages and allows `null` (a merge-patch
 * delete). Throws ConfigError with every fatal problem of the file.
 */
export async function decodeConfigText(
  file: string,
  text: string,
  opts: DecodeOptions,
): Promise<LoadedConfigFile> {
  const what = opts.isDropIn === true ? 'drop-in config file' : 'config file';
  checkText(file, text, what);
  if (opts.shape !== undefined) {
    const clean =
      opts.profile === 'kubernetes'
        ? decodeCleanKubelet(text, opts.shape, opts)
        : decodeClean(text, opts.shape, opts);
    if (clean !== undefined) {
      resolveRelativePaths(clean, dirname(file));
      return { path: file, content: clean, warnings: [] };
    }
  }
  const yaml = await import('./yaml-doc.js');
  const doc = parseDocument(yaml, file, text, what);
  const { parsed, content } = doc;
  if (opts.profile === 'kubernetes') {
    const loaded = await decodeKubeletConfigText(file, { parsed, value: content }, opts);
    loaded.warnings.unshift(...duplicateWarnings(file, parsed));
    return loaded;
  }
  const warnings = duplicateWarnings(file, parsed);
  // Identity: kind and apiVersion, in the platform domain of the flag, else of the file.
  const fileDomain =
    typeof content['platformDomain'] === 'string' ? content['platformDomain'] : undefined;
  const domain = opts.platformDomain ?? fileDomain ?? opts.defaultPlatformDomain;
  const problems = identityProblems(yaml, file, doc, domain);
  if (problems.length > 0) failWith(file, problems);
  await strictDecode(file, { parsed, value: content }, warnings, opts);
  resolveRelativePaths(content, dirname(file));
  return { path: file, content, warnings };
}

/** A document as both parsers see it: the `yaml` library's tree (for positions) and its value. */
interface Decoded {
  parsed: ParsedYaml;
  value: JsonObject;
}

/**
 * Strict decoding: unknown keys are dropped with a warning, wrong types are fatal. A document
 * that passes the shape check needs no zod (which words the problems).
 */
async function strictDecode(
  file: string,
  doc: Decoded,
  warnings: string[],
  opts: DecodeOptions,
): Promise<void> {
  const { parsed, value: content } = doc;
  if (opts.shape !== undefined && shapeClean(opts.shape, content, opts)) return;
  const { locate } = await import('./yaml-doc.js');
  const problems: string[] = [];
  const result = (await import('./schema.js')).nodeAgentConfigurationSchema.safeParse(
    checked(content, opts),
  );
  if (result.success) return;
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const full = [...issue.path, key];
        warnings.push(
          `${where(file, locate(parsed, full))}: unknown field "${dotted(full)}" ignored`,
        );
        deleteAt(content, issue.path, key);
      }
    } else {
      problems.push(
        `${where(file, locate(parsed, issue.path))}: field ${dotted(issue.path)}: ` +
          issueText(issue),
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '), { file, problems });
}

/** Our document's top-level fields: from the published shape, else from the zod schema. */
async function knownFields(shape: ShapeSchema | undefined): Promise<ReadonlySet<string>> {
  if (shape !== undefined) return shapeFields(shape);
  return new Set(Object.keys((await import('./schema.js')).nodeAgentConfigurationSchema.shape));
}

/**
 * The kubernetes profile's --config file: a KubeletConfiguration, translated into our document
 * (kubelet-config.ts), then decoded as ours.
 */
async function decodeKubeletConfigText(
  file: string,
  doc: Decoded,
  opts: DecodeOptions,
): Promise<LoadedConfigFile> {
  const { parsed, value } = doc;
  const { locate } = await import('./yaml-doc.js');
  const ref = namesFor('kubernetes').agentConfig;
  const problems: string[] = [];
  if (value['kind'] !== ref.kind)
    problems.push(
      `${where(file, locate(parsed, ['kind']))}: kind ` +
        `${JSON.stringify(value['kind'] ?? '')} is not supported under ` +
        `--platform-profile=kubernetes: expected kind: ${ref.kind}`,
    );
  if (value['apiVersion'] !== ref.apiVersion)
    problems.push(
      `${where(file, locate(parsed, ['apiVersion']))}: apiVersion ` +
        `${JSON.stringify(value['apiVersion'] ?? '')} is not supported under ` +
        `--platform-profile=kubernetes: expected apiVersion: ${ref.apiVersion}`,
    );
  if (problems.length > 0) throw new ConfigError(problems.join('; '), { file, problems });
  const known = await knownFields(opts.shape);
  const t = translateKubeletConfiguration(value, namesFor('platform'), (f) => known.has(f));
  if (t.unsupported.length > 0) {
    const list = t.unsupported.map(
      (f) =>
        `${where(file, locate(parsed, f.split('.')))}: field ${f} is not supported by ` +
        `nodeagent (set it to its default or remove it)`,
    );
    throw new ConfigError(list.join('; '), { file, problems: list });
  }
  const warnings = t.notes.map(
    (n) => `${where(file, locate(parsed, n.path.split('.')))}: field "${n.path}" ${n.text}`,
  );
  await strictDecode(file, { parsed, value: t.content }, warnings, opts);
  resolveRelativePaths(t.content, dirname(file));
  return { path: file, content: t.content, warnings };
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

/** Read synchronously: nothing else runs while the configuration loads (see profile-signals.ts). */
function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`failed to read ${what} "${file}": ${errnoText(err)}`, {
      file,
      cause: err,
    });
  }
}

/** The file's text (and fast decoding): taken from the pre-read files when there, else read now. */
function source(
  file: string,
  what: string,
  opts: LoadOptions,
): { text: string; fast?: PreReadFile['fast'] } {
  return takePreRead(opts.preRead, file) ?? { text: readText(file, what) };
}

/** Reads and decodes the --config file (path as given, relative to the working directory). */
export async function loadConfigFile(path: string, opts: LoadOptions): Promise<LoadedConfigFile> {
  const file = resolve(path);
  const { text, ...fast } = source(file, 'config file', opts);
  return decodeConfigText(file, text, { shape: loadShapeSchema(), ...opts, ...fast });
}

/** Reads and decodes one drop-in. */
export async function loadDropInFile(path: string, opts: LoadOptions): Promise<LoadedConfigFile> {
  const { text, ...fast } = source(path, 'drop-in config file', opts);
  return decodeConfigText(path, text, {
    shape: loadShapeSchema(),
    ...opts,
    ...fast,
    isDropIn: true,
  });
}
