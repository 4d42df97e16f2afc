// --protect-kernel-defaults against a fake /proc/sys (the reference's settings and message), and
// --oom-score-adj written to a stand-in for /proc/self/oom_score_adj.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { enforceKernelDefaults } from '../../../../src/agent/cli/kernel-defaults.js';
import { applySelfOomScoreAdj } from '../../../../src/agent/cli/self-oom.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

async function fakeProcSys(values: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'procsys-'));
  for (const [k, v] of Object.entries(values)) {
    await mkdir(dirname(join(dir, k)), { recursive: true });
    await writeFile(join(dir, k), `${v}\n`);
  }
  return dir;
}

const GOOD = {
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
};

test('--protect-kernel-defaults refuses the start naming every setting that differs, in the reference words', async (t) => {
  const dir = await fakeProcSys({ ...GOOD, 'vm/overcommit_memory': '0', 'kernel/panic': '1' });
  t.after(() => rm(dir, { recursive: true, force: true }));
  await assert.rejects(enforceKernelDefaults(true, dir, recordingLogger()), (err: Error) => {
    assert.match(
      err.message,
      /invalid kernel flag: vm\/overcommit_memory, expected value: 1, actual value: 0/,
    );
    assert.match(
      err.message,
      /invalid kernel flag: kernel\/panic, expected value: 10, actual value: 1/,
    );
    assert.doesNotMatch(err.message, /panic_on_oops/);
    return true;
  });
  const good = await fakeProcSys(GOOD);
  t.after(() => rm(good, { recursive: true, force: true }));
  await enforceKernelDefaults(true, good, recordingLogger());
});

test('without it, each difference is logged once and the host is left as it is', async (t) => {
  const dir = await fakeProcSys({ ...GOOD, 'kernel/panic_on_oops': '0' });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const log = recordingLogger();
  await enforceKernelDefaults(false, dir, log);
  assert.equal(log.lines.length, 1);
  assert.match(
    log.lines[0]?.msg ?? '',
    /invalid kernel flag: kernel\/panic_on_oops, expected value: 1, actual value: 0/,
  );
  assert.equal(await readFile(join(dir, 'kernel/panic_on_oops'), 'utf8'), '0\n');
});

test('--oom-score-adj is written to the agent itself; when not permitted it says so naming the option', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'oom-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'oom_score_adj');
  await writeFile(file, '0\n');
  assert.equal(await applySelfOomScoreAdj(-999, file, recordingLogger()), true);
  assert.equal((await readFile(file, 'utf8')).trim(), '-999');
  const log = recordingLogger();
  assert.equal(await applySelfOomScoreAdj(-500, join(dir, 'missing', 'oom_score_adj'), log), false);
  assert.equal(log.lines[0]?.fields['option'], '--oom-score-adj');
  assert.match(log.lines[0]?.msg ?? '', /Could not set the agent's oom_score_adj/);
});
