// The node log query (enableSystemLogQuery, feature gate NodeLogQuery): /logs/?query=... parsed
// and validated as the reference's newNodeLogQuery and nodeLogQuery.validate
// (pkg/kubelet/kubelet_server_journal.go, Kubernetes 1.32), errors in apimachinery's field.Error
// words and aggregated as utilerrors does.
import { stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { userMessage } from '../../../../common/util/errors.js';

export const MAX_TAIL_LINES = 100000;
const MAX_SERVICE_LENGTH = 256;
const MAX_SERVICES = 4;
const UNSAFE_SERVICE = /[^a-zA-Z\-_0-9@]+/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A time as Go's time.Parse(RFC3339) keeps it: the wall clock as written and its offset. */
export interface GoTime {
  ms: number;
  wall: { y: number; mo: number; d: number; h: number; mi: number; s: number; frac: string };
  zone: string;
}

export interface NodeLogQuery {
  services: string[];
  files: string[];
  sinceTime?: GoTime;
  untilTime?: GoTime;
  tailLines?: number;
  boot?: number;
  pattern: string;
}

/** Go's %q for the ASCII printable range (JSON's escapes are the same there). */
function q(s: string): string {
  return JSON.stringify(s);
}

/** Go's %#v of a []string. */
export function goStringSlice(v: readonly string[]): string {
  return `[]string{${v.map(q).join(', ')}}`;
}

/**
 * utilerrors.NewAggregate(...).Error(): one message as is, several in brackets, duplicates once.
 */
export function aggregate(errors: readonly string[]): string {
  const seen = [...new Set(errors)];
  return seen.length === 1 ? (seen[0] ?? '') : `[${seen.join(', ')}]`;
}

export function parseGoTime(v: string): GoTime | undefined {
  const m = RFC3339.exec(v);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zone = (m[8] ?? 'Z').toUpperCase();
  const offsetMin =
    zone === 'Z'
      ? 0
      : (zone.startsWith('-') ? -1 : 1) *
        (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > days ||
    h > 23 ||
    mi > 59 ||
    s > 59 ||
    Math.abs(offsetMin) >= 24 * 60
  )
    return undefined;
  const frac = m[7] ?? '';
  const ms =
    Date.UTC(y, mo - 1, d, h, mi, s) + Math.floor(Number(`0${frac}`) * 1000) - offsetMin * 60_000;
  return { ms, wall: { y, mo, d, h, mi, s, frac }, zone };
}

/** time.Time.String(): 2006-01-02 15:04:05.999999999 -0700 MST. */
export function goTimeString(t: GoTime): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const { y, mo, d, h, mi, s, frac } = t.wall;
  const f = frac.replace(/0+$/, '') === '.' ? '' : frac.replace(/0+$/, '');
  const off = t.zone === 'Z' ? '+0000' : t.zone.replace(':', '');
  return (
    `${p(y, 4)}-${p(mo)}-${p(d)} ${p(h)}:${p(mi)}:${p(s)}${f} ${off} ` +
    (t.zone === 'Z' ? 'UTC' : off)
  );
}

/** strconv.Atoi: a signed base-10 int64, or Go's error text. */
function atoi(v: string): number | string {
  if (!/^[+-]?\d+$/.test(v)) return `strconv.Atoi: parsing ${q(v)}: invalid syntax`;
  const n = BigInt(v);
  if (n > 2n ** 63n - 1n || n < -(2n ** 63n))
    return `strconv.Atoi: parsing ${q(v)}: value out of range`;
  return Number(n);
}

function parseTimes(params: URLSearchParams, nlq: NodeLogQuery, errors: string[]): void {
  for (const name of ['sinceTime', 'untilTime'] as const) {
    const v = params.get(name) ?? '';
    if (v === '') continue;
    const t = parseGoTime(v);
    if (t === undefined) errors.push(`${name}: Invalid value: ${q(v)}: invalid time format`);
    else nlq[name] = t;
  }
}

function parseInts(params: URLSearchParams, nlq: NodeLogQuery, errors: string[]): void {
  for (const name of ['boot', 'tailLines'] as const) {
    const v = params.get(name) ?? '';
    if (v === '') continue;
    const n = atoi(v);
    if (typeof n === 'string') errors.push(`${name}: Invalid value: ${q(v)}: ${n}`);
    else nlq[name] = n;
  }
}

/** newNodeLogQuery: undefined when no known parameter is given (the file server answers). */
export function parseNodeLogQuery(params: URLSearchParams): {
  query?: NodeLogQuery;
  errors: string[];
} {
  const errors: string[] = [];
  const nlq: NodeLogQuery = { services: [], files: [], pattern: '' };
  const queries = params.getAll('query');
  for (const v of queries) {
    if (/[/\\]/.test(v)) nlq.files.push(v);
    else if (v.trim() !== '') nlq.services.push(v);
  }
  if (params.has('query') && nlq.files.length === 0 && nlq.services.length === 0)
    errors.push(`query: Invalid value: ${goStringSlice(queries)}: query cannot be empty`);
  parseTimes(params, nlq, errors);
  parseInts(params, nlq, errors);
  nlq.pattern = params.get('pattern') ?? '';
  if (errors.length > 0) return { errors };
  const empty =
    nlq.services.length === 0 &&
    nlq.files.length === 0 &&
    nlq.pattern === '' &&
    nlq.sinceTime === undefined &&
    nlq.untilTime === undefined &&
    nlq.boot === undefined &&
    nlq.tailLines === undefined;
  return empty ? { errors } : { query: nlq, errors };
}

export function hasOptions(n: NodeLogQuery): boolean {
  return (
    n.sinceTime !== undefined ||
    n.untilTime !== undefined ||
    n.tailLines !== undefined ||
    n.boot !== undefined ||
    n.pattern !== ''
  );
}

function validateServices(services: readonly string[]): string[] {
  const errors: string[] = [];
  for (const s of services) {
    if (Buffer.byteLength(s) > MAX_SERVICE_LENGTH)
      errors.push(`query: Invalid value: ${q(s)}: length must be less than 100`);
    else if (UNSAFE_SERVICE.test(s))
      errors.push(`query: Invalid value: ${q(s)}: input contains unsupported characters`);
  }
  if (services.length > MAX_SERVICES)
    errors.push(`query: Too many: ${services.length}: must have at most ${MAX_SERVICES} items`);
  return errors;
}

/** securejoin + stat of the one file asked, within the log directory. */
/** A failed stat as the reference words it: ENOENT spelled out, any other code as it is. */
function statErrorText(e: unknown): string {
  const code = e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  return code === 'ENOENT' ? 'no such file or directory' : (code ?? 'error');
}

async function validateFile(files: string[], logDir: string): Promise<string | undefined> {
  const file = files[0] ?? '';
  const clean = normalize(`/${file.replace(/\\/g, '/')}`);
  const full = join(logDir, clean);
  if (file.includes('\0') || clean.split(sep).includes('..') || !isAbsolute(full))
    return `query: Invalid value: ${goStringSlice(files)}: invalid path`;
  const err = await stat(full).then(
    () => undefined,
    (e: unknown) => statErrorText(e),
  );
  return err === undefined
    ? undefined
    : `query: Invalid value: ${goStringSlice(files)}: stat ${full}: ${err}`;
}

/** Go's regexp/syntax.Parse(Perl), approximated by the JavaScript parser (the message differs). */
function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    return `error parsing regexp: ${userMessage(err)}`;
  }
}

function validateKinds(n: NodeLogQuery): string | undefined {
  if (n.files.length === 0 && n.services.length === 0)
    return 'query: Required value: cannot be empty with options';
  if (n.files.length > 0 && n.services.length > 0)
    return (
      `query: Invalid value: ${q(`[${n.files.join(' ')}], [${n.services.join(' ')}]`)}: ` +
      `cannot specify a file and service`
    );
  if (n.files.length > 1)
    return `query: Invalid value: ${goStringSlice(n.files)}: cannot specify more than one file`;
  if (n.files.length === 1 && hasOptions(n))
    return `query: Invalid value: ${goStringSlice(n.files)}: cannot specify file with options`;
  return undefined;
}

/** nodeLogQuery.validate, in its order. */
export async function validateNodeLogQuery(n: NodeLogQuery, logDir: string): Promise<string[]> {
  const errors = validateServices(n.services);
  const kind = validateKinds(n);
  if (kind !== undefined) errors.push(kind);
  else if (n.files.length === 1) {
    const f = await validateFile(n.files, logDir);
    if (f !== undefined) errors.push(f);
  }
  if (n.sinceTime !== undefined && n.untilTime !== undefined && n.sinceTime.ms > n.untilTime.ms)
    errors.push(
      `untilTime: Invalid value: ${goTimeString(n.untilTime)}: must be after \`sinceTime\``,
    );
  if (n.boot !== undefined && n.boot > 0)
    errors.push(`boot: Invalid value: ${n.boot}: must be less than 1`);
  if (n.tailLines !== undefined && (n.tailLines < 0 || n.tailLines > MAX_TAIL_LINES))
    errors.push(
      `tailLines: Invalid value: ${n.tailLines}: must be between 0 and ${MAX_TAIL_LINES}` +
        `, inclusive`,
    );
  const p = patternProblem(n.pattern);
  if (p !== undefined) errors.push(`pattern: Invalid value: ${q(n.pattern)}: ${p}`);
  return errors;
}
