// --feature-gates switches on what a gate guards: PlatletCrashLoopBackOffMax (the reference's
// KubeletCrashLoopBackOffMax, alpha in 1.32, off by default) defaults
// crashLoopBackOff.maxContainerRestartPeriod to 5m0s; off, the field stays unset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { buildConfiguration } from '../../../../src/agent/config/effective.js';

const build = (argv: string[]) => buildConfiguration({ specs: FLAGS, parsed: parseArgs(argv) });

test('--feature-gates=PlatletCrashLoopBackOffMax=true gives crashLoopBackOff.maxContainerRestartPeriod its 5m0s default; without the gate it stays unset', async () => {
  const off = await build([]);
  assert.deepEqual(off.problems, []);
  assert.equal(off.config.crashLoopBackOff.maxContainerRestartPeriod, null);
  const on = await build(['--feature-gates=PlatletCrashLoopBackOffMax=true']);
  assert.deepEqual(on.problems, []);
  assert.deepEqual(on.config.featureGates, { PlatletCrashLoopBackOffMax: true });
  assert.equal(on.config.crashLoopBackOff.maxContainerRestartPeriod, '5m0s');
});
