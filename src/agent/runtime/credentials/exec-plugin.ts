// The reference's exec plugin protocol: `ENV=... <bin-dir>/<name> args...` with a
// CredentialProviderRequest on stdin and a CredentialProviderResponse on stdout, one minute at
// most (the reference's catch-all timeout), the agent's environment plus the configured env.
// Stdout is bounded and never quoted in an error: it holds the credentials.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../../../common/util/clock.js';
import { CONFIG_FILE_LIMITS, parseYamlValueBounded } from '../../../common/util/bounded-parse.js';
import { tryDurationMs } from '../../config/values.js';
import type { CredentialProvider } from './provider-config.js';
import { isRecord } from '../../../common/util/json-shape.js';

export const PLUGIN_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_STDERR_CHARS = 2048;

const responseSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  cacheKeyType: z.string(),
  cacheDuration: z.string().optional(),
  auth: z
    .record(
      z.string(),
      z.strictObject({ username: z.string().optional(), password: z.string().optional() }),
    )
    .optional(),
});

export interface PluginResponse {
  cacheKeyType: string;
  /** undefined: the provider's default cache duration. */
  cacheDurationMs?: number;
  auth: Record<string, { username: string; password: string }>;
}

export interface ExecPluginOptions {
  provider: CredentialProvider;
  binDir: string;
  clock: Clock;
  /** Default PLUGIN_TIMEOUT_MS. */
  timeoutMs?: number;
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

function run(o: ExecPluginOptions, stdin: string): Promise<RunResult> {
  const { provider } = o;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const v of provider.env) env[v.name] = v.value;
  const stop = new AbortController();
  return new Promise((resolve, reject) => {
    const child = spawn(join(o.binDir, provider.name), provider.args, {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let timedOut = false;
    o.clock.sleep(o.timeoutMs ?? PLUGIN_TIMEOUT_MS, stop.signal).then(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      () => undefined,
    );
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += d.toString('utf8');
    });
    child.on('error', (err) => {
      stop.abort();
      reject(err);
    });
    child.on('close', (code) => {
      stop.abort();
      resolve({
        code: outBytes > MAX_OUTPUT_BYTES ? null : code,
        stdout: Buffer.concat(out),
        stderr: stderr.slice(0, MAX_STDERR_CHARS).trim(),
        timedOut,
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

/**
 * Runs the plugin for `image` and returns its decoded answer; throws with the reference's words.
 */
export async function execPlugin(o: ExecPluginOptions, image: string): Promise<PluginResponse> {
  const { provider } = o;
  const request = JSON.stringify({
    kind: 'CredentialProviderRequest',
    apiVersion: provider.apiVersion,
    image,
  });
  const what = `error execing credential provider plugin ${provider.name} for image ${image}`;
  let r: RunResult;
  try {
    r = await run(o, request);
  } catch (err) {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (r.timedOut) throw new Error(`${what}: context deadline exceeded: ${r.stderr}`);
  if (r.code !== 0)
    throw new Error(
      `${what}: ` +
        `${r.code === null ? 'output over 1 MiB or killed' : `exit status ${r.code}`}: ` +
        r.stderr,
    );
  let value: unknown;
  try {
    value = parseYamlValueBounded(r.stdout.toString('utf8'), {
      limits: CONFIG_FILE_LIMITS,
      source: `credential provider ${provider.name} response`,
    });
  } catch {
    throw new Error('error reading GVK from response: the plugin did not write a JSON object');
  }
  const apiVersion = isRecord(value) ? value['apiVersion'] : undefined;
  if (apiVersion !== provider.apiVersion) {
    throw new Error(
      `apiVersion from credential plugin response did not match expected apiVersion:` +
        `${provider.apiVersion}, actual apiVersion:` +
        (typeof apiVersion === 'string' ? apiVersion : ''),
    );
  }
  const parsed = responseSchema.safeParse(value);
  // never the details: the response holds credentials
  if (!parsed.success || parsed.data.kind !== 'CredentialProviderResponse')
    throw new Error('error decoding credential provider plugin response from stdout');
  const cacheDurationMs =
    parsed.data.cacheDuration === undefined ? undefined : tryDurationMs(parsed.data.cacheDuration);
  if (parsed.data.cacheDuration !== undefined && cacheDurationMs === undefined)
    throw new Error('error decoding credential provider plugin response from stdout');
  const auth: PluginResponse['auth'] = {};
  for (const [k, v] of Object.entries(parsed.data.auth ?? {}))
    auth[k] = { username: v.username ?? '', password: v.password ?? '' };
  return {
    cacheKeyType: parsed.data.cacheKeyType,
    ...(cacheDurationMs !== undefined ? { cacheDurationMs } : {}),
    auth,
  };
}
