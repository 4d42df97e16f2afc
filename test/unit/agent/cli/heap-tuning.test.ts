import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { MEMORY_MODE_FLAG, operatorChoseHeapMode, operatorNodeArgs, startHeapMode } from '../../../../src/agent/cli/heap-tuning.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

test('the operator args are node\'s command line and NODE_OPTIONS', () => {
  assert.deepEqual(operatorNodeArgs({ NODE_OPTIONS: ' --no-optimize-for-size  --trace-gc ' }, ['--inspect']), ['--inspect', '--no-optimize-for-size', '--trace-gc']);
  assert.deepEqual(operatorNodeArgs({}, []), []);
});

test('the memory-mode flag given to node in any spelling is the operator\'s choice', () => {
  for (const given of ['--optimize-for-size', '--optimize_for_size', '--no-optimize-for-size', '--optimize-for-size=true']) assert.equal(operatorChoseHeapMode([given]), true, given);
  assert.equal(operatorChoseHeapMode(['--max-semi-space-size=4', 'optimize-for-size', '--trace-gc']), false);
});

function harness(operatorArgs: string[] = []): { clock: ManualClock; flags: string[]; use: (share: number) => void; memory: () => boolean; ac: AbortController; lines: ReturnType<typeof recordingLogger>['lines'] } {
  const clock = new ManualClock();
  const flags: string[] = [];
  let share = 0;
  const ac = new AbortController();
  const logger = recordingLogger();
  const memory = startHeapMode({ clock, logger, signal: ac.signal, operatorArgs, loopBusy: () => share, setFlag: (f) => flags.push(f), periodMs: 5000 });
  // the event loop busy `busy` of the time over the next period
  const use = (busy: number): void => {
    share = busy;
    clock.advance(5000);
  };
  return { clock, flags, use, memory, ac, lines: logger.lines };
}

test('memory mode goes on while the agent is quiet and off while it is busy, with a band between', () => {
  const h = harness();
  h.use(0.5);
  assert.deepEqual(h.flags, [], 'busy from the start: V8 defaults');
  h.use(0.1);
  assert.deepEqual(h.flags, [MEMORY_MODE_FLAG]);
  assert.equal(h.memory(), true);
  h.use(0.2);
  assert.deepEqual(h.flags, [MEMORY_MODE_FLAG], 'between quiet and busy: unchanged');
  h.use(0.4);
  assert.deepEqual(h.flags, [MEMORY_MODE_FLAG, '--no-optimize-for-size']);
  h.use(0.2);
  assert.equal(h.memory(), false, 'between quiet and busy: stays off');
  assert.deepEqual(h.lines.map((l) => l.msg), ['V8 heap sized for memory: the agent is quiet', 'V8 heap sized for throughput: the agent is busy']);
  h.ac.abort();
  h.use(0);
  assert.equal(h.flags.length, 2, 'no switch after the stop signal');
});

test('a flag the operator gave is left as given, and the log says so once', () => {
  const h = harness(['--no-optimize-for-size']);
  h.use(0);
  h.use(0);
  assert.deepEqual(h.flags, []);
  assert.equal(h.lines.length, 1);
  assert.match(h.lines[0]?.msg ?? '', /the operator gave node this flag; the agent leaves it as given/);
});

// The young generation after a burst of mid-lived objects in a child process, with and without
// the memory-mode flag set at run time as the agent sets it: the flag takes effect after start-up.
function youngGenerationAfterBurst(memoryMode: boolean): number {
  const script = [
    "const v8 = await import('node:v8');",
    memoryMode ? `v8.setFlagsFromString(${JSON.stringify(MEMORY_MODE_FLAG)});` : '',
    'const keep = new Array(50000);',
    "for (let i = 0; i < 2000000; i++) keep[i % 50000] = { i, s: 'x' + i, a: [i, i] };",
    "process.stdout.write(String(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));",
  ].join('\n');
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' }));
}

test('set at run time, the memory-mode flag keeps the young generation smaller than V8 sizes it by default', () => {
  const tuned = youngGenerationAfterBurst(true);
  const untuned = youngGenerationAfterBurst(false);
  assert.ok(tuned < untuned, `young generation with the flag ${tuned} bytes, without ${untuned} bytes`);
});
