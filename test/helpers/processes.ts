// Small helpers the integration and e2e tests share for the programs they start.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The first port of the kernel's ephemeral range (listen(0) and outgoing connections use it). */
function ephemeralLow(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 0 ? first : 32768;
  } catch {
    return 32768;
  }
}

/** Ports this process handed out already (never twice: two servers of one test would collide). */
const handedOut = new Set<number>();

function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as { port: number }).port;
      s.close(() => resolve(got));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a program that takes its port as a
 * flag. It is picked below the kernel's ephemeral range: a port from listen(0) goes back to that
 * range when it is closed, where any process of a loaded machine (another test's listen(0), an
 * outgoing connection) can take it before the program binds it; below the range only another
 * freePort could, at random. Falls back to listen(0) when the range leaves no room.
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow() - 1;
  for (let i = 0; high - low >= 1000 && i < 50; i++) {
    const candidate = low + randomInt(high - low + 1);
    if (handedOut.has(candidate)) continue;
    if ((await listenOn(candidate)) !== undefined) {
      handedOut.add(candidate);
      return candidate;
    }
  }
  const port = await listenOn(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  handedOut.add(port);
  return port;
}

/** Stops a child process: SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
}

/** Whether a process with this pid exists (signal 0: nothing is sent). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
