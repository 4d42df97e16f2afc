// The watchers of apiserver-watch.bench.ts, in a process of their own, so the figure is the
// server's delivery and not the benchmark's own event loop (which also sends the writes) parsing
// every line of every watcher. Reads one JSON line of settings on stdin (ReaderSettings), opens
// the watches over node:https (one connection each, 50 at a time), prints `ready`, then `got
// <name>` once every watcher has received the event named <name>; on `stop` it prints the
// arrival times (process.hrtime, milliseconds: the same monotonic clock in every process) as one
// JSON line and exits.

import { request, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';

export interface ReaderSettings {
  readonly url: string;
  readonly n: number;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly servername?: string;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const arrivals = new Map<string, number[]>();
const requests: ClientRequest[] = [];
let settings: ReaderSettings | undefined;

function onLine(line: string, at: number): void {
  const name = /"name":"(w\d+)"/.exec(line)?.[1];
  if (name === undefined || settings === undefined) return;
  const times = arrivals.get(name) ?? [];
  times.push(at);
  arrivals.set(name, times);
  if (times.length === settings.n) process.stdout.write(`got ${name}\n`);
}

function read(res: IncomingMessage): void {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    const at = nowMs();
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i), at);
      buf = buf.slice(i + 1);
    }
  });
  res.on('error', () => undefined);
}

function open(s: ReaderSettings): Promise<void> {
  const u = new URL(s.url);
  const opts: RequestOptions = {
    host: u.hostname,
    port: u.port,
    path: `${u.pathname}${u.search}`,
    agent: false,
    headers: s.token === undefined ? {} : { authorization: `Bearer ${s.token}` },
    ...(s.ca === undefined ? {} : { ca: s.ca }),
    ...(s.cert === undefined ? {} : { cert: s.cert }),
    ...(s.key === undefined ? {} : { key: s.key }),
    ...(s.servername === undefined ? {} : { servername: s.servername }),
  };
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`watch: ${String(res.statusCode)}`));
        return;
      }
      read(res);
      resolve();
    });
    req.on('error', reject);
    req.end();
    requests.push(req);
  });
}

async function openAll(s: ReaderSettings): Promise<void> {
  // In batches: 1,000 simultaneous TLS handshakes would only measure the handshake queue.
  for (let i = 0; i < s.n; i += 50) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(s.n, i + 50); j++) batch.push(open(s));
    await Promise.all(batch);
  }
}

function stop(): void {
  process.stdout.write(`${JSON.stringify(Object.fromEntries(arrivals))}\n`, () => {
    for (const r of requests) r.destroy();
    process.exit(0);
  });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (settings === undefined) {
    settings = JSON.parse(line) as ReaderSettings;
    openAll(settings).then(
      () => process.stdout.write('ready\n'),
      (err: unknown) => {
        process.stderr.write(
          `watch readers: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        process.exit(1);
      },
    );
  } else if (line === 'stop') stop();
});
