// pods/log query parameters as the reference decodes and validates PodLogOptions: booleans true
// unless "false" or "0"; integers as Go's strconv.ParseInt (400 BadRequest with its message);
// sinceTime as RFC 3339; then ValidatePodLogOptions (422 Invalid). The agent's query is built
// as LogLocation builds the kubelet's.

import { goQuote } from '../../common/util/go-quote.js';
import { normalizeTime } from '../schema/go-time.js';
import { badRequest, invalid } from '../status.js';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  insecureSkipTLSVerifyBackend: boolean;
  sinceSeconds?: bigint;
  sinceTime?: string;
  tailLines?: bigint;
  limitBytes?: bigint;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function goBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

function goInt64(q: URLSearchParams, name: string): bigint | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v))
    throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX)
    throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: value out of range`);
  return n;
}

function sinceTimeOf(q: URLSearchParams): string | undefined {
  const v = q.get('sinceTime');
  if (v === null) return undefined;
  if (v === '' || v === 'null') return '0001-01-01T00:00:00Z';
  const t = normalizeTime('Time', v);
  if (!t.ok) throw badRequest(t.message);
  return t.value ?? '0001-01-01T00:00:00Z';
}

export function parsePodLogOptions(q: URLSearchParams, podName: string): PodLogOptions {
  const o: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: goBool(q, 'follow'),
    previous: goBool(q, 'previous'),
    timestamps: goBool(q, 'timestamps'),
    insecureSkipTLSVerifyBackend: goBool(q, 'insecureSkipTLSVerifyBackend'),
  };
  const sinceSeconds = goInt64(q, 'sinceSeconds');
  const tailLines = goInt64(q, 'tailLines');
  const limitBytes = goInt64(q, 'limitBytes');
  const sinceTime = sinceTimeOf(q);
  if (sinceSeconds !== undefined) o.sinceSeconds = sinceSeconds;
  if (tailLines !== undefined) o.tailLines = tailLines;
  if (limitBytes !== undefined) o.limitBytes = limitBytes;
  if (sinceTime !== undefined) o.sinceTime = sinceTime;
  validate(o, podName);
  return o;
}

function validate(o: PodLogOptions, podName: string): void {
  const errs: {
    type: 'FieldValueInvalid' | 'FieldValueForbidden';
    field: string;
    value?: unknown;
    detail: string;
  }[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0n)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'tailLines',
      value: Number(o.tailLines),
      detail: 'must be greater than or equal to 0',
    });
  if (o.limitBytes !== undefined && o.limitBytes < 1n)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'limitBytes',
      value: Number(o.limitBytes),
      detail: 'must be greater than 0',
    });
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push({
      type: 'FieldValueForbidden',
      field: '',
      detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1n) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'sinceSeconds',
      value: Number(o.sinceSeconds),
      detail: 'must be greater than 0',
    });
  }
  if (errs.length > 0) throw invalid('PodLogOptions', '', podName, errs);
}

/** The agent's /containerLogs query, in the reference's order. */
export function agentLogQuery(o: PodLogOptions): string {
  const p = new URLSearchParams();
  if (o.follow) p.set('follow', 'true');
  if (o.previous) p.set('previous', 'true');
  if (o.timestamps) p.set('timestamps', 'true');
  if (o.sinceSeconds !== undefined) p.set('sinceSeconds', o.sinceSeconds.toString());
  if (o.sinceTime !== undefined) p.set('sinceTime', o.sinceTime);
  if (o.tailLines !== undefined) p.set('tailLines', o.tailLines.toString());
  if (o.limitBytes !== undefined) p.set('limitBytes', o.limitBytes.toString());
  // Go's url.Values.Encode sorts by key.
  p.sort();
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}
