// The latency probe of node-sim-agents.bench.ts, in a process of its own: in the simulated run the
// simulator's hundred nodes live in the benchmark's event loop, and a probe there would time their
// turns too, which the real agents' run has not. Reads one JSON line of settings on stdin
// (ProbeSettings), makes its node and lease, prints `ready`, then renews the lease and reads the
// node every 100 ms (one keep-alive connection); on `stop` it prints every call's duration in ms
// as one JSON line and exits. A call answered with another status than expected ends it (status
// 1, the call and the server's words on stderr).

import { Agent, request } from 'node:https';
import { createInterface } from 'node:readline';
import type { Endpoint } from './apiserver-target.js';
import { LEASES, leaseObject, microTime, nodeObject } from './node-sim-objects.js';

/** The server to probe (what is unset is left out of the JSON line) and the probe's node. */
export interface ProbeSettings extends Endpoint {
  readonly name: string;
  readonly runId: string;
}
const durations: number[] = [];
let stopped = false;

function send(
  s: ProbeSettings,
  agent: Agent,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const u = new URL(path, s.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (s.token !== undefined) headers['authorization'] = `Bearer ${s.token}`;
  if (text !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method, agent, headers },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (out += c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status === 200 || status === 201) resolve(JSON.parse(out) as Record<string, unknown>);
          else reject(new Error(`probe: ${method} ${path}: ${status} ${out.slice(0, 300)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function timed<T>(call: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const r = await call();
  durations.push(performance.now() - t);
  return r;
}

async function run(s: ProbeSettings): Promise<void> {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 1,
    ...(s.ca === undefined ? {} : { ca: s.ca }),
    ...(s.cert === undefined ? {} : { cert: s.cert }),
    ...(s.key === undefined ? {} : { key: s.key }),
    ...(s.servername === undefined ? {} : { servername: s.servername }),
  });
  const node = await send(
    s,
    agent,
    'POST',
    '/api/v1/nodes',
    nodeObject(s.name, 65_000, s.runId, Date.now()),
  );
  const uid = String((node['metadata'] as Record<string, unknown>)['uid']);
  let lease = await send(s, agent, 'POST', LEASES, leaseObject(s.name, uid, s.runId, Date.now()));
  process.stdout.write('ready\n');
  while (!stopped) {
    const spec = { ...(lease['spec'] as object), renewTime: microTime(Date.now()) };
    const body = { ...lease, spec };
    lease = await timed(() => send(s, agent, 'PUT', `${LEASES}/${s.name}`, body));
    await timed(() => send(s, agent, 'GET', `/api/v1/nodes/${s.name}`));
    await new Promise((r) => setTimeout(r, 100));
  }
  agent.destroy();
  process.stdout.write(`${JSON.stringify(durations)}\n`, () => process.exit(0));
}

function fail(err: unknown): void {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

let started = false;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (!started) {
    started = true;
    run(JSON.parse(line) as ProbeSettings).catch(fail);
  } else if (line === 'stop') stopped = true;
});
