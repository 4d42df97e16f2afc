// What the `plat-apiserver token` subcommands share: the options naming the cluster (the admin
// platconfig, the platform domain and profile), parsed by the shared pflag-style tokenizer
// (src/common/cli), and one JSON request to
// the API server with the platconfig's client certificate. A refusal becomes a FlagError carrying
// the server's Status message.

import {
  goQuotedList,
  parseStringFlags,
  type StringFlagDef,
  type StringFlags,
} from '../../common/cli/string-flags.js';
import { Agent, request } from 'undici';
import {
  DEFAULT_PLATFORM_DOMAIN,
  isPlatformProfile,
  namesFor,
  unknownProfileMessage,
  type Names,
} from '../../common/names.js';
import { loadConnection, type ConnectionConfig } from '../../common/platconfig/platconfig.js';
import { FlagError, userMessage } from '../../common/util/errors.js';
import { isRecord } from '../../common/util/json-shape.js';

export interface TokenCommandIo {
  out(text: string): void;
  err(text: string): void;
  now(): Date;
}

/** The options every token subcommand takes: which cluster, under which names. */
const CLUSTER_FLAGS: readonly StringFlagDef[] = [
  { name: 'platconfig', def: '/var/run/plat-apiserver/admin.platconfig' },
  { name: 'platform-domain', def: DEFAULT_PLATFORM_DOMAIN },
  { name: 'platform-profile', def: 'platform' },
];

export interface SubcommandLine {
  /** Option values by long name (the given text, else the default). */
  readonly options: Readonly<Record<string, string>>;
  /** Options that were given, by long name (absent when not on the command line). */
  readonly given: Readonly<Record<string, string>>;
  readonly args: readonly string[];
}

/**
 * Parses a token subcommand's command line: the cluster options plus `flags`, at most `maxArgs`
 * arguments. Errors are FlagErrors ending in `usage`.
 */
export function parseSubcommand(
  name: string,
  argv: readonly string[],
  flags: readonly StringFlagDef[],
  maxArgs: number,
  usage: string,
): SubcommandLine {
  const defs = [...CLUSTER_FLAGS, ...flags];
  let line: StringFlags;
  try {
    line = parseStringFlags(argv, defs);
  } catch (err) {
    if (err instanceof FlagError)
      throw new FlagError(`${err.message}; ${usage}`, {
        ...(err.flag !== undefined ? { flag: err.flag } : {}),
        cause: err,
      });
    throw err;
  }
  // cobra's words: NoArgs and MaximumNArgs
  if (maxArgs === 0 && line.positionals.length > 0)
    throw new FlagError(
      `unknown command ${JSON.stringify(line.positionals[0])} for "plat-apiserver ` +
        `${name}"; ${usage}`,
    );
  if (line.positionals.length > maxArgs)
    throw new FlagError(
      `accepts at most ${maxArgs} arg(s), received ${line.positionals.length} ` +
        `${goQuotedList(line.positionals)}; ${usage}`,
    );
  const options: Record<string, string> = {};
  const given: Record<string, string> = {};
  for (const d of defs) {
    options[d.name] = line.value(d.name);
    const g = line.given(d.name);
    if (g !== undefined) given[d.name] = g;
  }
  return { options, given, args: line.positionals };
}

/** The profile's names from --platform-profile and --platform-domain. */
export function namesFromOptions(o: Readonly<Record<string, string>>): Names {
  const profile = o['platform-profile'] ?? 'platform';
  if (!isPlatformProfile(profile))
    throw new FlagError(unknownProfileMessage(profile, 'flag --platform-profile'), {
      flag: 'platform-profile',
    });
  return namesFor(profile, o['platform-domain'] ?? DEFAULT_PLATFORM_DOMAIN);
}

export async function connect(platconfig: string): Promise<ConnectionConfig> {
  try {
    return await loadConnection(platconfig);
  } catch (err) {
    throw new FlagError(`--platconfig ${platconfig}: ${userMessage(err)}`, { flag: 'platconfig' });
  }
}

export interface AdminResponse {
  readonly status: number;
  readonly json: Record<string, unknown> | undefined;
  /** The Status message of a refusal (or the start of the body). */
  readonly message: string;
}

/** One request with the platconfig's client certificate (admin credentials). */
export async function adminRequest(
  conn: ConnectionConfig,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<AdminResponse> {
  if (conn.certPem === undefined || conn.keyPem === undefined)
    throw new FlagError(
      '--platconfig: the platconfig has no client certificate; the token commands need ' +
        'admin credentials',
      { flag: 'platconfig' },
    );
  const agent = new Agent({
    connect: {
      ...(conn.caPem !== undefined ? { ca: conn.caPem } : {}),
      cert: conn.certPem,
      key: conn.keyPem,
      rejectUnauthorized: !conn.insecureSkipTlsVerify,
    },
  });
  try {
    const res = await request(`${conn.server.replace(/\/+$/, '')}${path}`, {
      method,
      dispatcher: agent,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await res.body.text();
    let json: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      json = isRecord(parsed) ? parsed : undefined;
    } catch {
      json = undefined;
    }
    const message = typeof json?.['message'] === 'string' ? json['message'] : text.slice(0, 500);
    return { status: res.statusCode, json, message };
  } catch (err) {
    throw new FlagError(
      `the API server at ${conn.server} could not be reached: ${userMessage(err)}`,
    );
  } finally {
    await agent.close();
  }
}
