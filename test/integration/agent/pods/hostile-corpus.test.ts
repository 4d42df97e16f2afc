// The built agent (process:// runtime, static pods from a directory, a 1 s relist) keeps a good
// pod running, untouched (same process, answering), through the whole hostile-manifest corpus,
// names every hostile file once, touches nothing outside its root dir, and costs little while it
// relists them: CPU below 10 % of a core and RSS not growing, read from /proc/<pid>/stat and status.
// A second test serves `metadata.uid: "../../victim"` from --manifest-url.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import {
  cp,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { standaloneAgentArgs, tempDir, waitFor } from './agent-harness.js';
import { killProcessPods, processRuntime } from './runtimes.js';
import { freePort, stopChild } from '../../../helpers/processes.js';
import { launcherEnv } from '../../../helpers/launcher.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-manifests');
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

interface Agent {
  child: ChildProcess;
  output: () => string;
}

/** Starts the built agent; `started` has it, for the test's one clean-up to stop first. */
function startAgent(args: string[], started: ChildProcess[]): Agent {
  const child = spawn('bin/nodeagent', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: launcherEnv(),
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  started.push(child);
  return { child, output: () => out };
}

function agentArgs(root: string, node: string, extra: string[]): string[] {
  return [...standaloneAgentArgs(root, node), ...extra];
}

/** A pod whose one container answers its own pid over HTTP on 127.0.0.1. */
function pidServerPod(name: string, port: number): string {
  const js = `require('http').createServer((q,s)=>s.end(String(process.pid))).listen(${port},'127.0.0.1')`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [{ name: 'web', command: ['node', '-e', js] }],
    },
  });
}

async function answer(port: number): Promise<string | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return r.ok ? await r.text() : undefined;
  } catch {
    return undefined;
  }
}

function procSample(pid: number): { cpuTicks: number; rssKb: number } {
  const stat = execFileSync('cat', [`/proc/${pid}/stat`]).toString();
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is state (field 3); utime and stime are fields 14 and 15
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  const status = execFileSync('cat', [`/proc/${pid}/status`]).toString();
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return { cpuTicks, rssKb };
}

/** How many skip lines of the agent's log name `file`. */
function skipLinesNaming(output: string, file: string): number {
  return output
    .split('\n')
    .filter(
      (l) =>
        l.includes('file source: invalid manifest') &&
        (l.includes(`file=${file} `) || l.includes(`file="${file}"`)),
    ).length;
}

async function listTree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

test(
  'the built agent keeps a good pod untouched through the hostile corpus: each file named once, nothing outside the root, CPU < 10 % and RSS not growing at a 1 s relist',
  { timeout: 120_000 },
  async (t) => {
    const base = await tempDir('na-hostile-');
    const agents: ChildProcess[] = [];
    // node:test runs a test's after hooks in the order they were added: the agents stop before
    // their pods are killed and the directory goes, so that none writes into it afterwards
    t.after(async () => {
      for (const child of agents) await stopChild(child);
      await killProcessPods(join(base.path, 'root'));
      await base.cleanup();
    });
    const root = join(base.path, 'root');
    const manifests = join(base.path, 'manifests');
    const victim = join(base.path, 'victim');
    await mkdir(manifests);
    await mkdir(victim);
    await writeFile(join(victim, 'canary'), 'keep me');
    const port = await freePort();
    await writeFile(join(manifests, 'good.json'), pidServerPod('good', port));
    const agent = startAgent(
      agentArgs(root, `hostile-${process.pid}`, [
        '--pod-manifest-path',
        manifests,
        '--file-check-frequency',
        '1s',
      ]),
      agents,
    );
    const fail =
      (what: string) =>
      (err: unknown): never => {
        throw new Error(
          `${what}: ${String(err)}\n--- agent output ---\n${agent.output().slice(-6000)}`,
        );
      };
    const goodPid = await waitFor('the good pod to answer', () => answer(port), 30_000).catch(
      fail('good pod'),
    );
    const observer = processRuntime.observe?.(root);
    assert.ok(observer);
    t.after(() => observer.close());
    const apps = async (): Promise<string[]> =>
      (await observer.listContainers())
        .filter((c) => c.kind === 'app')
        .map((c) => `${c.id}:${c.state}`);
    const before = await apps();
    assert.equal(before.length, 1);
    const outsideBefore = await listTree(victim);

    // the corpus, plus what a repository cannot hold
    const corpus = (await readdir(CORPUS)).filter((n) => n !== 'README.md');
    // Copied to a staging dir first, then renamed in: a file the agent saw half-written (empty,
    // then whole) is a change of content and rightly named again, so each file arrives whole.
    const staging = join(base.path, 'staging');
    await cp(CORPUS, staging, { recursive: true, filter: (src) => !src.endsWith('README.md') });
    for (const n of corpus) await rename(join(staging, n), join(manifests, n));
    await rm(staging, { recursive: true });
    await symlink(join(manifests, 'nowhere.yaml'), join(manifests, 'link-dangling.yaml'));
    // loops made whole at once (a two-link loop made one link at a time is dangling in between,
    // another reason): a points at itself, then b at a
    await symlink(join(manifests, 'link-loop-a.yaml'), join(manifests, 'link-loop-a.yaml'));
    await symlink(join(manifests, 'link-loop-a.yaml'), join(manifests, 'link-loop-b.yaml'));
    await symlink('/etc/passwd', join(manifests, 'link-etc-passwd.yaml'));
    await symlink('/etc', join(manifests, 'link-dir.yaml'));
    await mkdir(join(manifests, 'subdir.yaml'));
    execFileSync('mkfifo', [join(manifests, 'fifo.yaml')]);
    await writeFile(join(base.path, 'over-10mb.yaml'), '');
    await truncate(join(base.path, 'over-10mb.yaml'), 10 * 1024 * 1024 + 1);
    await rename(join(base.path, 'over-10mb.yaml'), join(manifests, 'over-10mb.yaml'));
    const all = [
      ...corpus,
      'link-dangling.yaml',
      'link-loop-a.yaml',
      'link-loop-b.yaml',
      'link-etc-passwd.yaml',
      'link-dir.yaml',
      'subdir.yaml',
      'fifo.yaml',
      'over-10mb.yaml',
    ];
    const t0 = Date.now();
    await waitFor(
      'every hostile file to be named',
      () => all.every((n) => skipLinesNaming(agent.output(), join(manifests, n)) >= 1),
      45_000,
      200,
    ).catch(fail('named'));
    t.diagnostic(`${all.length} hostile files named in ${Date.now() - t0} ms`);

    // a few relists to settle, then measure over several more
    await new Promise((r) => setTimeout(r, 2500));
    const pid = agent.child.pid ?? 0;
    const samples = [procSample(pid)];
    const started = Date.now();
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      samples.push(procSample(pid));
    }
    const seconds = (Date.now() - started) / 1000;
    const first = samples[0];
    const last = samples.at(-1);
    assert.ok(first && last);
    const cpu = (last.cpuTicks - first.cpuTicks) / CLK_TCK / seconds;
    const rss = samples.map((s) => s.rssKb);
    // Growth above the first sample: a leak per relist shows as a rise; memory the GC gives back
    // (a drop) is no leak.
    const rssGrowthMb = (Math.max(...rss) - rss[0]!) / 1024;
    t.diagnostic(
      `agent over ${seconds.toFixed(1)} s (${Math.round(seconds)} relists): CPU ${(cpu * 100).toFixed(1)} % of a core; RSS ${rss.map((k) => Math.round(k / 1024)).join(', ')} MB`,
    );
    assert.ok(cpu < 0.1, `CPU ${(cpu * 100).toFixed(1)} % of a core, want < 10 %`);
    assert.ok(
      rssGrowthMb < 16,
      `RSS not growing: up ${rssGrowthMb.toFixed(1)} MB over the first sample, want < 16 MB`,
    );

    // the good pod: same process, answering; nothing else ever ran
    assert.equal(await answer(port), goodPid, 'the same process answers');
    assert.deepEqual(await apps(), before, 'the same container, still running, none added');
    // each file named once, however many relists went by
    for (const n of all)
      assert.equal(skipLinesNaming(agent.output(), join(manifests, n)), 1, `${n} named once`);
    assert.match(agent.output(), /metadata\.uid: Invalid value: \\?"\.\.\/\.\.\/victim\\?"/);
    // nothing created or removed outside the root dir: ../../victim from <root>/pods is the victim dir
    assert.deepEqual(await listTree(victim), outsideBefore);
    assert.equal(await readFile(join(victim, 'canary'), 'utf8'), 'keep me');
    assert.deepEqual((await readdir(base.path)).sort(), ['manifests', 'root', 'victim']);
    assert.equal(agent.child.exitCode, null, 'the agent is still running');
  },
);

test(
  '--manifest-url serving metadata.uid "../../victim": rejected with its reason; nothing made, and nothing removed when the URL empties',
  { timeout: 60_000 },
  async (t) => {
    const base = await tempDir('na-hostile-url-');
    const agents: ChildProcess[] = [];
    // node:test runs a test's after hooks in the order they were added: the agents stop before
    // their pods are killed and the directory goes, so that none writes into it afterwards
    t.after(async () => {
      for (const child of agents) await stopChild(child);
      await killProcessPods(join(base.path, 'root'));
      await base.cleanup();
    });
    const root = join(base.path, 'root');
    const victim = join(base.path, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'canary'), 'keep me');
    let body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'evil', uid: '../../victim' },
      spec: { containers: [{ name: 'c', command: ['sleep', '60'] }] },
    });
    let served = 0;
    const server: Server = createServer((_q, res) => {
      served++;
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/pods`;
    const agent = startAgent(
      agentArgs(root, `hostile-url-${process.pid}`, [
        '--manifest-url',
        url,
        '--http-check-frequency',
        '1s',
      ]),
      agents,
    );
    await waitFor(
      'the rejection to be logged',
      () =>
        /metadata\.uid: Invalid value: \\?"\.\.\/\.\.\/victim\\?": must be a 32-character lower-case hex hash/.test(
          agent.output(),
        ),
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${agent.output().slice(-4000)}`);
    });
    body = '';
    const after = served;
    await waitFor('two more polls with an empty body', () => served >= after + 2, 10_000);
    assert.deepEqual(await readdir(victim), ['canary']);
    assert.equal(await readFile(join(victim, 'canary'), 'utf8'), 'keep me');
    assert.deepEqual((await readdir(base.path)).sort(), ['root', 'victim']);
    const pods = await readdir(join(root, 'pods')).catch(() => [] as string[]);
    assert.deepEqual(pods, [], 'no pod dir was made');
    assert.equal(agent.child.exitCode, null);
  },
);
