// `plat-apiserver token create [--ttl 24h] [--print-join-config FILE] [--description TEXT]
// [--groups G1,G2] [--usages signing,authentication] [--platconfig FILE] [--platform-domain D]`,
// as the reference's `kubeadm token create`: creates a bootstrap token Secret through the API
// with the admin platconfig (default <cert-dir>/admin.platconfig), prints the token, and with
// --print-join-config writes a bootstrap platconfig for a node (server, CA embedded, the token;
// mode 0600) so a node joins with `nodeagent --bootstrap-platconfig FILE`.

import {
  writePlatconfig,
  type ConnectionConfig,
  type Platconfig,
} from '../../common/platconfig/platconfig.js';
import { parseDurationMs } from '../../common/util/values/duration.js';
import { FlagError, userMessage } from '../../common/util/errors.js';
import {
  adminRequest,
  connect,
  namesFromOptions,
  parseSubcommand,
  type TokenCommandIo,
} from './admin-client.js';
import {
  bootstrapTokenSecretType,
  extraGroupsProblem,
  generateToken,
  parseToken,
  SECRET_PREFIX,
  USAGES,
} from './token.js';
import { isOneOf, recordOf } from '../../common/util/json-shape.js';
import { DEFAULT_PLATFORM_DOMAIN, type Names } from '../../common/names.js';
import { namesForToken, serverNames } from './server-names.js';

interface CreateOptions {
  readonly platconfig: string;
  /** The label domain of the profile (bootstrap.<it>/token). */
  readonly platformDomain: string;
  /** The profile's system namespace, where token Secrets live. */
  readonly namespace: string;
  readonly ttlMs: number;
  readonly description: string;
  readonly groups: readonly string[];
  readonly usages: readonly string[];
  readonly joinConfig: string | undefined;
  readonly token: string;
  /** The names of --platform-profile and --platform-domain, and whether either was given. */
  readonly names: Names;
  readonly namesGiven: boolean;
}

export const CREATE_USAGE =
  'usage: plat-apiserver token create [TOKEN] [--ttl 24h] [--print-join-config FILE] ' +
  '[--description TEXT] [--groups G,...] [--usages signing,authentication] ' +
  '[--platconfig FILE] [--platform-domain D] [--platform-profile platform|kubernetes]';
const MAX_TTL_MS = 10 * 365 * 24 * 3600 * 1000;

const CREATE_FLAGS = [
  { name: 'ttl', def: '24h0m0s' },
  { name: 'description', def: '' },
  { name: 'groups', def: '' },
  { name: 'usages', def: 'signing,authentication' },
  { name: 'print-join-config' },
] as const;

function list(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function parseCreateArgs(argv: readonly string[]): CreateOptions {
  const line = parseSubcommand('token create', argv, CREATE_FLAGS, 1, CREATE_USAGE);
  const o = line.options;
  const ttlMs = parseDurationMs(o['ttl'] ?? '', 'ttl');
  if (ttlMs < 0 || ttlMs > MAX_TTL_MS)
    throw new FlagError(
      `invalid value "${o['ttl'] ?? ''}" for flag --ttl: must be between 0 (never ` +
        `expires) and 87600h`,
      { flag: 'ttl' },
    );
  const usages = list(o['usages'] ?? '');
  const badUsage = usages.find((u) => !isOneOf(USAGES, u));
  if (badUsage !== undefined)
    throw new FlagError(
      `invalid value "${o['usages'] ?? ''}" for flag --usages: unknown usage ` +
        `"${badUsage}"; valid usages are ${USAGES.join(', ')}`,
      { flag: 'usages' },
    );
  const groups = list(o['groups'] ?? '');
  const groupProblem = extraGroupsProblem(groups);
  if (groupProblem !== undefined)
    throw new FlagError(`invalid value "${o['groups'] ?? ''}" for flag --groups: ${groupProblem}`, {
      flag: 'groups',
    });
  if ((o['description'] ?? '').length > 1024)
    throw new FlagError('flag --description: at most 1024 characters', { flag: 'description' });
  const names = namesFromOptions(o);
  const given = line.args[0];
  if (given !== undefined && parseToken(given) === undefined)
    throw new FlagError(
      `the token "${given.slice(0, 6)}..." does not match the format [a-z0-9]{6}.[a-z0-9]{16}`,
    );
  return {
    platconfig: o['platconfig'] ?? '',
    platformDomain: names.labelDomain,
    namespace: names.namespaces.system,
    ttlMs,
    description: o['description'] ?? '',
    groups,
    usages,
    joinConfig: line.given['print-join-config'],
    token: given ?? generateToken(),
    names,
    namesGiven:
      line.given['platform-profile'] !== undefined || line.given['platform-domain'] !== undefined,
  };
}

/** The bootstrap token Secret (the reference's layout), with string data. */
export function tokenSecret(o: CreateOptions, now: Date): Record<string, unknown> {
  const t = parseToken(o.token);
  if (t === undefined) throw new FlagError('malformed token');
  const data: Record<string, string> = { 'token-id': t.id, 'token-secret': t.secret };
  if (o.ttlMs > 0)
    data['expiration'] = new Date(now.getTime() + o.ttlMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const u of o.usages) data[`usage-bootstrap-${u}`] = 'true';
  if (o.groups.length > 0) data['auth-extra-groups'] = o.groups.join(',');
  if (o.description !== '') data['description'] = o.description;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${SECRET_PREFIX}${t.id}`, namespace: o.namespace },
    type: bootstrapTokenSecretType(o.platformDomain),
    stringData: data,
  };
}

/** A platconfig for a node's bootstrap: the server, its CA (embedded) and the token. */
export function joinPlatconfig(
  conn: Pick<ConnectionConfig, 'server' | 'caPem'>,
  token: string,
): Platconfig {
  if (conn.caPem === undefined)
    throw new FlagError(
      '--print-join-config: the admin platconfig names no certificate authority to ' +
        'embed (insecure-skip-tls-verify is not passed on to nodes)',
      { flag: 'print-join-config' },
    );
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'plat-apiserver',
        cluster: {
          server: conn.server,
          'certificate-authority-data': Buffer.from(conn.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'tls-bootstrap-token-user', user: { token } }],
    contexts: [
      {
        name: 'tls-bootstrap-token-user@plat-apiserver',
        context: { cluster: 'plat-apiserver', user: 'tls-bootstrap-token-user' },
      },
    ],
    'current-context': 'tls-bootstrap-token-user@plat-apiserver',
  };
}

function namespaceOf(secret: Record<string, unknown>): string {
  const namespace = recordOf(secret['metadata'])['namespace'];
  return encodeURIComponent(typeof namespace === 'string' ? namespace : '');
}

async function postSecret(conn: ConnectionConfig, secret: Record<string, unknown>): Promise<void> {
  const r = await adminRequest(
    conn,
    'POST',
    `/api/v1/namespaces/${namespaceOf(secret)}/secrets`,
    secret,
  );
  if (r.status !== 201)
    throw new FlagError(
      `the API server at ${conn.server} refused the token Secret (HTTP ${r.status}): ${r.message}`,
    );
}

/**
 * The agent command line that joins with the file under the server's names: the reference's
 * spelling and profile under the kubernetes profile, the platform domain when not the default
 * (an agent under other names asks for certificates the server does not sign).
 */
export function joinHint(names: Names, file: string): string {
  if (names.profile === 'kubernetes')
    return `nodeagent --platform-profile=kubernetes --bootstrap-kubeconfig=${file} ...`;
  const domain =
    names.labelDomain === DEFAULT_PLATFORM_DOMAIN ? '' : ` --platform-domain=${names.labelDomain}`;
  return `nodeagent --bootstrap-platconfig=${file}${domain} ...`;
}

/** `token create`: 0 on success, 1 with a message on stderr. */
export async function runCreate(argv: readonly string[], io: TokenCommandIo): Promise<number> {
  try {
    const parsed = parseCreateArgs(argv);
    const conn = await connect(parsed.platconfig);
    // The server's own names decide the Secret's type and namespace (refused when the flags
    // differ).
    const names = namesForToken(
      conn.server,
      await serverNames(conn),
      parsed.names,
      parsed.namesGiven,
    );
    const o = { ...parsed, platformDomain: names.labelDomain, namespace: names.namespaces.system };
    const join = o.joinConfig === undefined ? undefined : joinPlatconfig(conn, o.token);
    await postSecret(conn, tokenSecret(o, io.now()));
    if (o.joinConfig !== undefined && join !== undefined) {
      await writePlatconfig(o.joinConfig, join);
      io.err(
        `wrote the bootstrap platconfig for a node to ${o.joinConfig} (mode 0600); join ` +
          `with: ${joinHint(names, o.joinConfig)}\n`,
      );
    }
    io.out(`${o.token}\n`);
    return 0;
  } catch (err) {
    io.err(`plat-apiserver token create: ${userMessage(err)}\n`);
    return 1;
  }
}
