// "The API server away (the lease resumes, the node turns Ready again without a restart)", with
// short configured durations so it runs in seconds: lease 2 s (renewed every 0.5 s), status every
// 1 s, grace period 3 s, and plat-apiserver down for 10 s: five lease durations and more than
// three grace periods. Two minutes at the default durations is
// bench/apiserver-outage.bench.ts (its figure is in the report).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runApiServerOutage } from '../helpers/apiserver-outage.js';

test(
  'plat-apiserver stopped for 5 lease durations and restarted on its port and data dir: the lease resumes, the node is Ready again, the agent never restarted',
  { timeout: 180_000 },
  async () => {
    const f = await runApiServerOutage({
      node: 'node-outage',
      leaseSeconds: 2,
      statusUpdateFrequency: '1s',
      gracePeriod: '3s',
      outageMs: 10_000,
      recoverTimeoutMs: 30_000,
    });
    const tail = `\n--- agent output ---\n${f.agentOutput.slice(-3000)}`;
    assert.ok(f.outageMs >= 10_000, `down ${f.outageMs} ms`);
    assert.ok(f.renewalFailuresLogged, `the agent said its lease renewals failed${tail}`);
    assert.ok(
      Date.parse(f.renewTimeAfter) > Date.parse(f.renewTimeBefore),
      `renewTime advanced: ${f.renewTimeBefore} -> ${f.renewTimeAfter}`,
    );
    // Renewals every 0.5 s, retries capped at that interval: the lease is back within seconds.
    assert.ok(f.leaseResumedMs < 5_000, `lease resumed ${f.leaseResumedMs} ms after the restart`);
    assert.ok(f.readyMs < 10_000, `Ready ${f.readyMs} ms after the restart${tail}`);
    assert.equal(f.pidAfter, f.pidBefore, 'the same agent process');
    assert.ok(f.agentRunning, `the agent still runs${tail}`);
    assert.equal(f.starts, 1, `the agent started once${tail}`);
    console.log(
      `# outage ${f.outageMs} ms: lease resumed ${f.leaseResumedMs} ms and node Ready ${f.readyMs} ms after the restart (Unknown seen: ${f.sawUnknown})`,
    );
  },
);

test(
  'an in-memory plat-apiserver restarted under a running agent comes back empty: the agent lists again from the latest resourceVersion, registers its node again, and the node is Ready within the status update period',
  { timeout: 180_000 },
  async () => {
    const f = await runApiServerOutage({
      node: 'node-amnesia',
      leaseSeconds: 4,
      statusUpdateFrequency: '2s',
      outageMs: 1_000,
      recoverTimeoutMs: 30_000,
      persistent: false,
    });
    const tail = `\n--- agent output ---\n${f.agentOutput.slice(-3000)}`;
    assert.match(
      f.agentOutput,
      /node not found on the API server \(deleted, or the server lost its data\); registering it again/,
      `the agent said why it registers again${tail}`,
    );
    assert.doesNotMatch(f.agentOutput, /Too large resource version[^\n]*retrying/, tail);
    // One status period (2 s) finds the node gone and registers it with its status; the margin
    // is for the machine's load, and the figure is printed.
    assert.ok(f.readyMs < 4_000, `Ready ${f.readyMs} ms after the restart${tail}`);
    assert.equal(f.pidAfter, f.pidBefore, 'the same agent process');
    assert.equal(f.starts, 1, `the agent started once${tail}`);
    console.log(`# in-memory restart: node registered and Ready ${f.readyMs} ms after the restart`);
  },
);
