// `plat-apiserver token list [--platconfig FILE] [--platform-domain D] [--platform-profile P]`, as
// the reference's `kubeadm token list`: the bootstrap token Secrets of the system namespace
// (field selector type=bootstrap.<domain>/token), each read as kubeadm reads one
// (BootstrapTokenFromSecret: a Secret it cannot read is reported on stderr and skipped), printed
// as its text printer does: columns TOKEN TTL EXPIRES USAGES DESCRIPTION EXTRA GROUPS, `<forever>`
// / `<never>` / `<none>` for what is absent, the TTL as a short human duration (`<invalid>` once
// expired), aligned as Go's tabwriter (minwidth 10, padding 3) aligns them; like kubeadm, the
// header is aligned with the first token and every later token on its own.

import { FlagError, userMessage } from '../../common/util/errors.js';
import {
  adminRequest,
  connect,
  namesFromOptions,
  parseSubcommand,
  type TokenCommandIo,
} from './admin-client.js';
import { bootstrapTokenSecretType, parseToken, SECRET_PREFIX, secretValue } from './token.js';
import { recordOf, listOf } from '../../common/util/json-shape.js';

export const LIST_USAGE =
  'usage: plat-apiserver token list [--platconfig FILE] [--platform-domain D] ' +
  '[--platform-profile platform|kubernetes]';

type Obj = Record<string, unknown>;

export interface ListedToken {
  readonly token: string;
  /** The expiration as the reference formats it (RFC 3339, whole seconds), undefined for never. */
  readonly expires: string | undefined;
  readonly expiresMs: number | undefined;
  readonly usages: readonly string[];
  readonly description: string;
  readonly groups: readonly string[];
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** kubeadm's BootstrapTokenFromSecret: the token a Secret holds, or why it cannot be read. */
export function tokenFromSecret(secret: Obj): ListedToken | { problem: string } {
  const rawName = recordOf(secret['metadata'])['name'];
  const name = typeof rawName === 'string' ? rawName : '';
  const id = secretValue(secret, 'token-id');
  if (id === '') return { problem: `bootstrap Token Secret has no token-id data: ${name}` };
  if (name !== `${SECRET_PREFIX}${id}`)
    return {
      problem:
        `bootstrap token name is not of the form '${SECRET_PREFIX}(token-id)'. Actual: ` +
        `${JSON.stringify(name)}. Expected: ${JSON.stringify(`${SECRET_PREFIX}${id}`)}`,
    };
  const secretText = secretValue(secret, 'token-secret');
  if (secretText === '')
    return { problem: `bootstrap Token Secret has no token-secret data: ${name}` };
  const token = `${id}.${secretText}`;
  if (parseToken(token) === undefined)
    return {
      problem:
        `bootstrap Token Secret is invalid and couldn't be parsed: the bootstrap token ` +
        `"${id}.<secret>" was not of the form "^([a-z0-9]{6})\\.([a-z0-9]{16})$"`,
    };
  const expiration = secretValue(secret, 'expiration');
  const m = RFC3339.exec(expiration);
  const expiresMs = m === null ? undefined : Date.parse(expiration);
  if (expiration !== '' && (m === null || expiresMs === undefined || Number.isNaN(expiresMs)))
    return { problem: `can't parse expiration time of bootstrap token ${JSON.stringify(name)}` };
  const data =
    secret['data'] !== null && typeof secret['data'] === 'object'
      ? Object.keys(secret['data'])
      : [];
  const usages = data
    .filter((k) => k.startsWith('usage-bootstrap-') && secretValue(secret, k) === 'true')
    .map((k) => k.slice('usage-bootstrap-'.length))
    .sort();
  const groupsText = secretValue(secret, 'auth-extra-groups');
  return {
    token,
    expires: m === null ? undefined : `${m[1] ?? ''}${m[3] ?? ''}`,
    expiresMs,
    usages,
    description: secretValue(secret, 'description'),
    groups: groupsText === '' ? [] : groupsText.split(','),
  };
}

/** The reference's duration.ShortHumanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * Go's text/tabwriter with minwidth 10, padding 3 over one block of rows (the last cell unpadded).
 */
export function tabwrite(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row
      .slice(0, -1)
      .forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.max(cell.length + 3, 10))));
  return rows
    .map(
      (row) =>
        row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('') +
        '\n',
    )
    .join('');
}

export function tokenRow(t: ListedToken, now: Date): string[] {
  const orNone = (s: string): string => (s === '' ? '<none>' : s);
  const ttl =
    t.expiresMs === undefined ? '<forever>' : shortHumanDuration(t.expiresMs - now.getTime());
  return [
    t.token,
    ttl,
    t.expires ?? '<never>',
    orNone(t.usages.join(',')),
    orNone(t.description),
    orNone(t.groups.join(',')),
  ];
}

const HEADER = ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];

/** `token list`: 0 on success, 1 with a message on stderr. */
export async function runList(argv: readonly string[], io: TokenCommandIo): Promise<number> {
  try {
    const o = parseSubcommand('token list', argv, [], 0, LIST_USAGE).options;
    const names = namesFromOptions(o);
    const conn = await connect(o['platconfig'] ?? '');
    const selector = encodeURIComponent(`type=${bootstrapTokenSecretType(names.labelDomain)}`);
    const r = await adminRequest(
      conn,
      'GET',
      `/api/v1/namespaces/${encodeURIComponent(names.namespaces.system)}` +
        `/secrets?fieldSelector=${selector}`,
    );
    if (r.status !== 200)
      throw new FlagError(`failed to list bootstrap tokens (HTTP ${r.status}): ${r.message}`);
    const items = listOf(r.json?.['items']);
    let first = true;
    for (const item of items) {
      const t = tokenFromSecret(recordOf(item));
      if ('problem' in t) {
        io.err(`${t.problem}\n`);
        continue;
      }
      io.out(tabwrite(first ? [HEADER, tokenRow(t, io.now())] : [tokenRow(t, io.now())]));
      first = false;
    }
    return 0;
  } catch (err) {
    io.err(`plat-apiserver token list: ${userMessage(err)}\n`);
    return 1;
  }
}
