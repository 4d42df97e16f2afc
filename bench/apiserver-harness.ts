// Shared setup of the plat-apiserver benchmarks: an in-process server (controllers off, in
// memory) with an admin HTTPS client over keep-alive connections, and percentile helpers.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parseFlags } from '../src/apiserver/flags.js';
import { startApiServer, type RunningApiServer } from '../src/apiserver/main.js';
import { EXTRA_FLAGS } from '../src/apiserver/plugins.js';
import { silentLogger } from '../src/common/log/types.js';
import { loadConnection } from '../src/common/platconfig/platconfig.js';

export interface BenchServer {
  readonly running: RunningApiServer;
  readonly url: string;
  readonly agent: Agent;
  /** One request; returns the status and the body text. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export async function benchServer(args: readonly string[] = [], connections = 8): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pa-bench-'));
  const parsed = parseFlags(['--secure-port=0', `--cert-dir=${join(dir, 'certs')}`, '--controllers=-csrapproving,-csrsigning', ...args], EXTRA_FLAGS);
  if (parsed.kind !== 'run') throw new Error('unexpected help');
  const running = await startApiServer(parsed.flags, silentLogger());
  const conn = await loadConnection(running.adminPlatconfig);
  const agent = new Agent({ connect: { ca: conn.caPem ?? '', cert: conn.certPem ?? '', key: conn.keyPem ?? '' }, connections, pipelining: 1 });
  return {
    running,
    url: running.url,
    agent,
    call: async (method, path, body) => {
      const res = await request(`${running.url}${path}`, {
        method: method as 'GET',
        dispatcher: agent,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.statusCode, text: await res.body.text() };
    },
    close: async () => {
      await agent.close();
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

export function ms(x: number): string {
  return `${x.toFixed(2)} ms`;
}

/** p50/p99 of `n` sequential calls of `fn` (milliseconds). */
export async function latencies(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export function event(name: string, ns = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
    reason: 'Bench',
    message: 'benchmark event',
    type: 'Normal',
    source: { component: 'bench' },
  };
}
