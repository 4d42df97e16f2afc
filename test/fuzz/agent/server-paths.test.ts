// Fuzzes the started agent's HTTPS server (the built program, standalone, process runtime, its
// own flag defaults: anonymous on, AlwaysAllow, bound here to 127.0.0.1) with fast-check: paths
// under every endpoint (encoded, dotted, malformed percent-encoding), any method, and the query
// parameters the handlers read, with hostile values. A client error is never a 5xx and the agent
// survives every input: afterwards it still answers and still runs its pod.
// Commands sent to /exec and /run start only harmless programs (echo, true) or ones that do not
// exist; their arguments are arbitrary.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { BIN, REPO } from '../../integration/agent/cli/run-cli.js';
import { killProcessPods } from '../../integration/agent/pods/runtimes.js';
import { freePort, stopChild } from '../../helpers/processes.js';
import { fuzzParams } from '../../helpers/fuzz-runs.js';
import { NO_CGROUPS_ARGS } from '../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../helpers/agent-pod-logs.js';
import { launcherEnv } from '../../helpers/launcher.js';

const NODE = 'fuzz-node';
const POD = `web-${NODE}`;

let dir = '';
let child: ChildProcess | undefined;
let base = '';
let output = '';
const tls = new Agent({ connect: { rejectUnauthorized: false }, pipelining: 0 });

async function send(method: string, path: string): Promise<{ status: number; body: string }> {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    dispatcher: tls,
    headersTimeout: 10_000,
    bodyTimeout: 2_000,
  });
  let body = '';
  try {
    // a followed log streams until the client goes away: read what comes, then leave
    for await (const chunk of res.body) {
      body += String(chunk);
      if (body.length > 4096) break;
    }
  } catch {
    // the body timeout of a stream that stays open
  } finally {
    res.body.destroy();
  }
  return { status: res.statusCode, body };
}

async function waitUntil(
  what: string,
  fn: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child?.exitCode !== null)
      throw new Error(`the agent exited while waiting for ${what}:\n${output}`);
    if (await fn().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}:\n${output}`);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'na-fuzz-server-'));
  const manifests = join(dir, 'manifests');
  await mkdir(manifests);
  await writeFile(
    join(manifests, 'web.yaml'),
    'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: busybox, command: [sleep, "600"]}]}\n',
  );
  const port = await freePort();
  child = spawn(
    BIN,
    [
      `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--pod-manifest-path=${manifests}`,
      '--container-runtime-endpoint=process://',
      `--hostname-override=${NODE}`,
      '--address=127.0.0.1',
      `--port=${port}`,
      '--read-only-port=0',
      '--healthz-port=0',
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
      ...testPodLogsArgs(dir),
      '--fail-swap-on=false',
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: launcherEnv() },
  );
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  base = `https://127.0.0.1:${port}`;
  await waitUntil(
    'the pod to answer /exec',
    async () => (await send('POST', `/exec/default/${POD}/c?command=true`)).status === 200,
  );
});

after(async () => {
  await stopChild(child);
  await killProcessPods(join(dir, 'root'));
  await tls.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const PREFIXES = [
  '',
  '/',
  '/healthz',
  '/healthz/ping',
  '/healthz/syncloop',
  '/pods',
  '/metrics',
  '/metrics/cadvisor',
  '/metrics/probes',
  '/metrics/resource',
  '/stats',
  '/stats/summary',
  '/spec',
  '/configz',
  '/runningpods',
  '/runningpods/',
  '/containerLogs',
  '/logs',
  '/logs/',
  '/run',
  '/exec',
  '/attach',
  '/portForward',
  '/checkpoint',
  '/debug/pprof',
  '/cri',
  '/flagz',
];
const RAW_SEGMENTS = [
  'default',
  POD,
  'c',
  'u1',
  '',
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E%2e',
  '%2f',
  '%2F..%2F',
  '%zz',
  '%',
  '%0',
  '%00',
  '%c0%ae',
  '%ff',
  '~',
  'a;b',
  '*',
  '%20',
];
const segment = fc.oneof(
  fc.constantFrom(...RAW_SEGMENTS),
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(s)),
);
const path = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 5 }), fc.boolean())
  .map(([p, segs, slash]) => `${p}${segs.map((s) => `/${s}`).join('')}${slash ? '/' : ''}` || '/');

const VALUES = [
  '',
  '0',
  '-1',
  '1',
  '2',
  'true',
  'false',
  'True',
  '1e400',
  '99999999999999999999999',
  '-99999999999999999999',
  'NaN',
  'Infinity',
  '0x10',
  '1.5',
  '2026-01-01T00:00:00Z',
  'yesterday',
  '10s',
  '%zz',
  '%00',
  '\u0000',
];
const value = fc.oneof(
  fc.constantFrom(...VALUES),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const KEYS = [
  'tailLines',
  'limitBytes',
  'sinceSeconds',
  'sinceTime',
  'follow',
  'timestamps',
  'previous',
  'container',
  'input',
  'output',
  'error',
  'stdin',
  'stdout',
  'stderr',
  'tty',
  'pretty',
  'query',
  'boot',
  'pod',
  'namespace',
];
/** A program that is harmless or absent; anything after it is an argument. */
const program = fc.constantFrom(
  '',
  ' ',
  'echo',
  'true',
  'zz-no-such-program',
  '\u0000',
  'echo\u0000',
  './zz-missing',
  '../zz-missing',
);
const pair = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...KEYS), value) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), value) },
);
const query = fc
  .record({
    pairs: fc.array(pair, { maxLength: 6 }),
    command: fc.option(fc.tuple(program, fc.array(value, { maxLength: 4 })), { nil: undefined }),
    cmd: fc.option(
      fc.oneof(
        fc.constantFrom('', ' ', '\t'),
        fc
          .tuple(fc.constantFrom('echo', 'true', 'zz-no-such-program'), value)
          .map(([p, a]) => `${p} ${a}`),
      ),
      { nil: undefined },
    ),
  })
  .map(({ pairs, command, cmd }) => {
    const q = new URLSearchParams();
    for (const [k, v] of pairs) q.append(k, v);
    if (command !== undefined) for (const c of [command[0], ...command[1]]) q.append('command', c);
    if (cmd !== undefined) q.append('cmd', cmd);
    const s = q.toString();
    return s === '' ? '' : `?${s}`;
  });
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');

describe('the agent server under fuzzed paths and query parameters', () => {
  test('an empty command (/exec/...?command=) is 400, not 500', async () => {
    // Regression: it was 500 ("failed to run command in container: The argument 'file' cannot be
    // empty"). The reference's client names the fault "you must specify at least one command
    // for the container"; the reference's kubelet answers an exec it cannot start with 400.
    for (const q of ['?command=', '?command=&command=id', '']) {
      const r = await send('POST', `/exec/default/${POD}/c${q}`);
      assert.equal(r.status, 400, `${q}: ${r.body}`);
      assert.match(
        r.body,
        /^you must specify at least one command for the container: give command=<program>&command=<arg>\.\.\./,
      );
    }
    const nul = await send('POST', `/exec/default/${POD}/c?command=echo&command=a%00b`);
    assert.equal(nul.status, 400, nul.body);
    assert.match(nul.body, /command argument 1 contains a NUL character/);
    const run = await send('POST', `/run/default/${POD}/c?cmd=`);
    assert.equal(run.status, 400, run.body);
    assert.match(
      run.body,
      /^you must specify at least one command for the container: give cmd=<program> <args\.\.\.>/,
    );
  });

  test('the hostile corpus (test/fixtures/agent-server/hostile-requests.txt) is answered below 500', async () => {
    const corpus = await readFile(
      join(REPO, 'test', 'fixtures', 'agent-server', 'hostile-requests.txt'),
      'utf8',
    );
    const lines = corpus.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    assert.ok(lines.length >= 40, `the corpus has ${lines.length} requests`);
    for (const line of lines) {
      const [m = 'GET', p = '/'] = line.split(' ');
      const r = await send(m, p.replaceAll('{pod}', POD));
      assert.ok(r.status < 500, `${line} answered ${r.status}: ${r.body.slice(0, 300)}`);
    }
    assert.equal(child?.exitCode, null, `the agent is still running:\n${output}`);
  });

  test(
    'no input is answered 5xx and the agent survives them all',
    { timeout: 600_000 },
    async () => {
      const answers = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(method, path, query, async (m, p, q) => {
          const r = await send(m, `${p}${q}`);
          answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
          assert.ok(r.status < 500, `${m} ${p}${q} answered ${r.status}: ${r.body.slice(0, 300)}`);
        }),
        fuzzParams(200),
      );
      assert.ok(
        (answers.get(200) ?? 0) > 0 && [...answers.keys()].some((s) => s >= 400),
        `a mix of answers: ${JSON.stringify([...answers])}`,
      );
      assert.equal(child?.exitCode, null, `the agent is still running:\n${output}`);
      assert.equal((await send('GET', '/healthz')).status, 200);
      const echo = await send('POST', `/exec/default/${POD}/c?command=echo&command=still-here`);
      assert.equal(echo.status, 200);
      assert.equal(echo.body, 'still-here\n');
    },
  );
});
