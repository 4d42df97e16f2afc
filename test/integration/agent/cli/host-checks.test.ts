// Host checks against real files, processes and the real prlimit(1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { buildNodeAgentFlags } from '../../../../src/agent/config/flags-type.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import {
  detectCgroupVersion,
  HostCheckError,
  raiseOpenFilesLimit,
  readOpenFilesLimit,
  runHostChecks,
} from '../../../../src/agent/cli/host-checks.js';
import { acquireLock } from '../../../../src/agent/cli/lock-file.js';
import type { LogFn, Logger } from '../../../../src/common/log/types.js';
import { runCli } from './run-cli.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const fn = (level: string): LogFn =>
    ((a: string | Record<string, unknown>, msg?: string) =>
      void lines.push(
        `${level} ${typeof a === 'string' ? a : `${msg ?? ''} ${JSON.stringify(a)}`}`,
      )) as LogFn;
  const l: Logger & { lines: string[] } = {
    lines,
    error: fn('error'),
    warn: fn('warn'),
    info: fn('info'),
    debug: fn('debug'),
    trace: fn('trace'),
    child: () => l,
  };
  return l;
}

async function fakeHost(t: { after(fn: () => unknown): void }, swaps: string) {
  const dir = await mkdtemp(join(tmpdir(), 'na-host-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'swaps'), swaps);
  await writeFile(
    join(dir, 'limits'),
    'Limit                     Soft Limit           Hard Limit           Units\nMax open files            2000000              2000000              files\n',
  );
  return {
    dir,
    paths: { cgroupRoot: dir, swaps: join(dir, 'swaps'), limits: join(dir, 'limits') },
  };
}

const HEADER = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n';

test('cgroup v1 is refused naming --fail-cgroupv1, unless it is false', async (t) => {
  const { paths } = await fakeHost(t, HEADER);
  const config = defaultConfiguration('file');
  const flags = buildNodeAgentFlags(FLAGS, new Map());
  const signal = new AbortController().signal;
  assert.equal(
    await detectCgroupVersion(paths.cgroupRoot),
    'v1',
    'a plain directory is not a cgroup2 file system',
  );
  await assert.rejects(
    runHostChecks({ config, flags, logger: recordingLogger(), signal, paths }),
    (err: unknown) => {
      assert.ok(err instanceof HostCheckError);
      assert.match(
        err.message,
        /uses cgroup v1 .* failCgroupV1 \(--fail-cgroupv1\) is true: .* --fail-cgroupv1=false/,
      );
      assert.ok(!err.message.includes('\n'));
      return true;
    },
  );
  config.failCgroupV1 = false;
  const log = recordingLogger();
  const r = await runHostChecks({ config, flags, logger: log, signal, paths });
  assert.equal(r.cgroupVersion, 'v1');
  assert.ok(log.lines.some((l) => l.startsWith('warn This host uses cgroup v1')));
  await r.release();
});

test('singleProcessOOMKill false is refused on cgroup v1 with the reference message; unset or true starts', async (t) => {
  const { paths } = await fakeHost(t, HEADER);
  const config = defaultConfiguration('file');
  config.failCgroupV1 = false;
  config.singleProcessOOMKill = false;
  const flags = buildNodeAgentFlags(FLAGS, new Map());
  const signal = new AbortController().signal;
  await assert.rejects(
    runHostChecks({ config, flags, logger: recordingLogger(), signal, paths }),
    (err: unknown) => {
      assert.ok(err instanceof HostCheckError);
      assert.equal(
        err.message,
        'invalid configuration: singleProcessOOMKill must not be explicitly set to false when using cgroup v1',
      );
      return true;
    },
  );
  for (const v of [true, null]) {
    config.singleProcessOOMKill = v;
    await (
      await runHostChecks({ config, flags, logger: recordingLogger(), signal, paths })
    ).release();
  }
});

test('swap on is refused naming --fail-swap-on, unless it is false', async (t) => {
  const { paths } = await fakeHost(
    t,
    `${HEADER}/swapfile                               file\t\t1048572\t\t0\t\t-2\n`,
  );
  const config = defaultConfiguration('file');
  config.failCgroupV1 = false;
  const flags = buildNodeAgentFlags(FLAGS, new Map());
  const signal = new AbortController().signal;
  await assert.rejects(
    runHostChecks({ config, flags, logger: recordingLogger(), signal, paths }),
    /^HostCheckError: running with swap on is not supported, please disable swap or set failSwapOn \(--fail-swap-on\) to false\. .*contained: \[\/swapfile/,
  );
  config.failSwapOn = false;
  await (
    await runHostChecks({ config, flags, logger: recordingLogger(), signal, paths })
  ).release();
});

test('--max-open-files raises the soft limit through prlimit, or warns naming the flag', async () => {
  const before = await readOpenFilesLimit('/proc/self/limits');
  assert.ok(before !== undefined);
  const log = recordingLogger();
  const want = before.soft + 10;
  await raiseOpenFilesLimit(want, '/proc/self/limits', log);
  const after = await readOpenFilesLimit('/proc/self/limits');
  assert.ok(after !== undefined);
  if (after.soft >= want)
    assert.ok(
      log.lines.some((l) => l.startsWith('info Raised the open-files limit')),
      log.lines.join('\n'),
    );
  else
    assert.ok(
      log.lines.some((l) => l.startsWith('warn') && l.includes('--max-open-files')),
      log.lines.join('\n'),
    );
  const quiet = recordingLogger();
  await raiseOpenFilesLimit(1, '/proc/self/limits', quiet);
  assert.deepEqual(quiet.lines, [], 'nothing to do when the limit is already high enough');
});

test('--lock-file with --exit-on-lock-contention: the holder is told when another process wants the lock', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const lockPath = join(dir, 'nodeagent.lock');
  const moduleUrl = new URL('../../../../src/agent/cli/lock-file.js', import.meta.url).href;
  const script = `
    const { acquireLock } = await import(${JSON.stringify(moduleUrl)});
    const noop = () => {};
    const logger = { error: noop, warn: noop, info: noop, debug: noop, trace: noop, child() { return logger; } };
    const ac = new AbortController();
    const lock = await acquireLock({ path: ${JSON.stringify(lockPath)}, logger, signal: ac.signal, onContention: async () => { await lock.release(); console.log('contention'); process.exit(0); } });
    console.log('held');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(
    process.execPath,
    [...process.execArgv, '--input-type=module', '-e', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const deadline = Date.now() + 15_000;
  while (!out.includes('held') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(out.includes('held'), 'the child holds the lock');
  assert.equal((await readFile(lockPath, 'utf8')).trim(), String(child.pid));

  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code))); // output read whole
  const log = recordingLogger();
  const lock = await acquireLock({
    path: lockPath,
    logger: log,
    signal: AbortSignal.timeout(15_000),
    retryMs: 20,
    maxRetryMs: 100,
  });
  assert.equal(await exited, 0);
  assert.ok(out.includes('contention'));
  assert.ok(
    log.lines.some((l) => l.startsWith('info Waiting for the lock file')),
    log.lines.join('\n'),
  );
  assert.equal((await readFile(lockPath, 'utf8')).trim(), String(process.pid));
  await lock.release();
  await assert.rejects(access(lockPath), 'released lock files are removed');
});

test('a stale lock file (its process is gone) is taken over', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const lockPath = join(dir, 'stale.lock');
  const gone = spawn(process.execPath, ['-e', '0']);
  const pid = gone.pid;
  await new Promise((r) => gone.on('exit', r));
  await writeFile(lockPath, `${pid}\n`);
  const log = recordingLogger();
  const lock = await acquireLock({
    path: lockPath,
    logger: log,
    signal: AbortSignal.timeout(5000),
  });
  assert.ok(log.lines.some((l) => l.startsWith('warn Removing stale lock file')));
  await lock.release();
});

test('the built program refuses a cgroup v1 host before starting anything', async (t) => {
  if ((await detectCgroupVersion('/sys/fs/cgroup')) !== 'v1') {
    t.skip(skipOutsideCi('a cgroup v1 host', '/sys/fs/cgroup is not cgroup v1'));
    return;
  }
  const r = await runCli(['--fail-swap-on=false']);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Flag --'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0] ?? '',
    /^this host uses cgroup v1 .*failCgroupV1 \(--fail-cgroupv1\) is true/,
  );
});
