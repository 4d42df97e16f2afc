// What the `plat-apiserver token` subcommands share: the options naming the cluster (the admin
// platconfig, the platform domain and profile), parsed with commander, and one JSON request to
// the API server with the platconfig's client certificate. A refusal becomes a FlagError carrying
// the server's Status message.

import { Command, CommanderError, Option } from 'commander';
import { Agent, request } from 'undici';
import { DEFAULT_PLATFORM_DOMAIN, isPlatformProfile, namesFor, unknownProfileMessage, type Names } from '../../common/names.js';
import { loadConnection, type ConnectionConfig } from '../../common/platconfig/platconfig.js';
import { FlagError, userMessage } from '../../common/util/errors.js';

export interface TokenCommandIo {
  out(text: string): void;
  err(text: string): void;
  now(): Date;
}

/** A commander command with the cluster options; errors become FlagErrors ending in `usage`. */
export function tokenSubcommand(name: string): Command {
  const cmd = new Command(name).exitOverride().helpOption(false).allowExcessArguments(false);
  cmd.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  cmd.addOption(new Option('--platconfig <file>').default('/var/run/plat-apiserver/admin.platconfig'));
  cmd.addOption(new Option('--platform-domain <domain>').default(DEFAULT_PLATFORM_DOMAIN));
  cmd.addOption(new Option('--platform-profile <profile>').default('platform'));
  return cmd;
}

export function parseSubcommand(cmd: Command, argv: readonly string[], usage: string): Record<string, string | undefined> {
  try {
    cmd.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new FlagError(`${err.message.replace(/^error: /, '')}; ${usage}`);
    throw err;
  }
  return cmd.opts<Record<string, string | undefined>>();
}

/** The profile's names from --platform-profile and --platform-domain. */
export function namesFromOptions(o: Record<string, string | undefined>): Names {
  const profile = o['platformProfile'] ?? 'platform';
  if (!isPlatformProfile(profile)) throw new FlagError(unknownProfileMessage(profile, 'flag --platform-profile'), { flag: 'platform-profile' });
  return namesFor(profile, o['platformDomain'] ?? DEFAULT_PLATFORM_DOMAIN);
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
export async function adminRequest(conn: ConnectionConfig, method: string, path: string, body?: unknown): Promise<AdminResponse> {
  if (conn.certPem === undefined || conn.keyPem === undefined) throw new FlagError('--platconfig: the platconfig has no client certificate; the token commands need admin credentials', { flag: 'platconfig' });
  const agent = new Agent({ connect: { ...(conn.caPem !== undefined ? { ca: conn.caPem } : {}), cert: conn.certPem, key: conn.keyPem, rejectUnauthorized: !conn.insecureSkipTlsVerify } });
  try {
    const res = await request(`${conn.server.replace(/\/+$/, '')}${path}`, {
      method: method as 'GET' | 'POST' | 'DELETE',
      dispatcher: agent,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await res.body.text();
    let json: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
    const message = typeof json?.['message'] === 'string' ? json['message'] : text.slice(0, 500);
    return { status: res.statusCode, json, message };
  } catch (err) {
    throw new FlagError(`the API server at ${conn.server} could not be reached: ${userMessage(err)}`);
  } finally {
    await agent.close();
  }
}
