// The watchers of apiserver-watch.bench.ts, in a process of their own, so the figure is the
// server's delivery and not the benchmark's own event loop (which also sends the writes) parsing
// every line of every watcher. Reads one JSON line of settings on stdin (ReaderSettings), opens
// the watches (watch-stream.ts: one TLS connection each, 50 at a time), prints `ready`, then `got
// <name>` once every watcher has received the event named <name>; on `stop` it prints the
// arrival times (process.hrtime, milliseconds: the same monotonic clock in every process) as one
// JSON line and exits.

import { createInterface } from 'node:readline';
import type { TLSSocket } from 'node:tls';
import { openWatchStream, type WatchStreamOptions } from './watch-stream.js';

export interface ReaderSettings extends WatchStreamOptions {
  readonly n: number;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const arrivals = new Map<string, number[]>();
const sockets: TLSSocket[] = [];
let settings: ReaderSettings | undefined;

function onLine(line: string, at: number): void {
  const name = /"name":"((?:w|warm)\d+)"/.exec(line)?.[1];
  if (name === undefined || settings === undefined) return;
  const times = arrivals.get(name) ?? [];
  times.push(at);
  arrivals.set(name, times);
  if (times.length === settings.n) process.stdout.write(`got ${name}\n`);
}

async function open(s: ReaderSettings): Promise<void> {
  sockets.push(await openWatchStream(s, onLine, nowMs));
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
    for (const r of sockets) r.destroy();
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
