// Serving a node log query as the reference's journalServer on Linux
// (kubelet_server_journal.go, kubelet_server_journal_linux.go): each service journald knows
// (`journalctl --field _SYSTEMD_UNIT` lists <service>.service) is read with journalctl and the
// reference's arguments; the others from /var/log/<service>, <service>.log or
// <service>/<service>.log; everything within 30 s; gzip when the client asks exactly for it.
// journalctl runs without a shell: the service names are checked to [a-zA-Z-_0-9@], the pattern
// is one argument.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip, constants as zlib } from 'node:zlib';
import type { Clock } from '../../../../common/util/clock.js';
import { hasOptions, type GoTime, type NodeLogQuery } from './query.js';

const DEADLINE_MS = 30_000;

export interface JournalOptions {
  /** The journalctl program (tests give another). */
  journalctl: string;
  logDir: string;
  clock: Clock;
}

/** The reference's dateLayout "2006-1-2 15:4:5", on the wall clock the time was written in. */
function journalDate(t: GoTime): string {
  const { y, mo, d, h, mi, s } = t.wall;
  return `${String(y).padStart(4, '0')}-${mo}-${d} ${h}:${mi}:${s}`;
}

/** getLoggingCmd's arguments. */
export function journalArgs(n: NodeLogQuery, services: readonly string[]): string[] {
  const args = ['--utc', '--no-pager', '--output=short-precise'];
  if (n.sinceTime !== undefined) args.push(`--since=${journalDate(n.sinceTime)}`);
  if (n.untilTime !== undefined) args.push(`--until=${journalDate(n.untilTime)}`);
  if (n.tailLines !== undefined) args.push('--pager-end', `--lines=${n.tailLines}`);
  for (const s of services) if (s !== '') args.push(`--unit=${s}`);
  if (n.pattern !== '') args.push(`--grep=${n.pattern}`);
  if (n.boot !== undefined) args.push('--boot', String(n.boot));
  return args;
}

/** Runs the program, its stdout and stderr into `out`; resolves with how it ended. */
function run(
  program: string,
  args: readonly string[],
  out: Writable | undefined,
  signal: AbortSignal,
): Promise<{ started: boolean; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const sink = (d: Buffer): void => {
      if (out !== undefined) out.write(d);
      else if (output.length < 4 << 20) output += d.toString('utf8');
    };
    child.stdout.on('data', sink);
    child.stderr.on('data', sink);
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve({ started: err.name === 'AbortError', output }),
    );
    child.once('close', () => resolve({ started: true, output }));
  });
}

async function isNativeLogger(
  o: JournalOptions,
  service: string,
  signal: AbortSignal,
): Promise<boolean> {
  const r = await run(o.journalctl, ['--field', '_SYSTEMD_UNIT'], undefined, signal);
  return r.started && r.output.includes(`${service}.service`);
}

/** heuristicsCopyFileLogs: the first of the three names that is a file. */
async function copyFileLog(
  o: JournalOptions,
  out: Writable,
  service: string,
  signal: AbortSignal,
): Promise<void> {
  for (const name of [service, `${service}.log`, `${service}/${service}.log`]) {
    const file = join(o.logDir, normalize(`/${name}`));
    const st = await stat(file).catch(() => undefined);
    if (st === undefined || st.isDirectory()) continue;
    await new Promise<void>((resolve) => {
      const r = createReadStream(file, { signal });
      r.on('error', (err) => {
        out.write(`\nerror getting log for ${service}: ${err.message}\n`);
        resolve();
      });
      r.on('end', resolve);
      r.pipe(out, { end: false });
    });
    return;
  }
  out.write(`\nlog not found for ${service}\n`);
}

/** nodeLogQuery.Copy for boot 0 (the reference's copyForBoot). */
async function copy(
  n: NodeLogQuery,
  o: JournalOptions,
  out: Writable,
  signal: AbortSignal,
): Promise<void> {
  const native: string[] = [];
  const files: string[] = [];
  for (const s of n.services) ((await isNativeLogger(o, s, signal)) ? native : files).push(s);
  if (native.length > 0) {
    const r = await run(o.journalctl, journalArgs(n, native), out, signal);
    if (!r.started) out.write('\nerror: journal output not available\n');
  }
  if (files.length > 0 && hasOptions(n)) {
    out.write(
      `\noptions present and query resolved to log files for [${files.join(' ')}]\ntry ` +
        `without specifying options\n`,
    );
    return;
  }
  for (const s of files) {
    if (signal.aborted) {
      out.write('\ncontext error: context deadline exceeded\n');
      return;
    }
    await copyFileLog(o, out, s, signal);
  }
}

/** journalServer.ServeHTTP for a validated query of services. */
export async function serveJournal(
  req: IncomingMessage,
  res: ServerResponse,
  n: NodeLogQuery,
  o: JournalOptions,
): Promise<void> {
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  o.clock.sleep(DEADLINE_MS, stop.signal).then(
    () => stop.abort(),
    () => undefined,
  );
  const signal = stop.signal;
  const gzip = req.headers['accept-encoding'] === 'gzip';
  res.writeHead(200, {
    'content-type': 'text/plain;charset=UTF-8',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  let out: Writable = res;
  if (gzip) {
    const compressed = createGzip({ level: zlib.Z_BEST_SPEED });
    compressed.pipe(res);
    out = compressed;
  }
  try {
    await copy(n, o, out, signal);
  } finally {
    out.end();
    stop.abort();
  }
}
