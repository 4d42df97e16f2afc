// The fault: the API server away for two minutes (the lease resumes, the node turns Ready again
// without a restart), at the reference's default durations (lease 40 s renewed every 10 s,
// status every 10 s, grace period 40 s). plat-apiserver is stopped for BENCH_OUTAGE_SECONDS
// (default 120) while the agent runs, then started again on the same port, cert dir and data dir.
// The figure: how long after the restart the lease was renewed and the node was Ready and
// untainted, and whether the agent stayed the same process. Not part of npm test.
import { runApiServerOutage } from '../test/helpers/apiserver-outage.js';

const SECONDS = Number(process.env['BENCH_OUTAGE_SECONDS'] ?? 120);

const f = await runApiServerOutage({
  node: 'outage-node',
  outageMs: SECONDS * 1000,
  recoverTimeoutMs: 120_000,
});
const same = f.pidAfter === f.pidBefore && f.agentRunning && f.starts === 1;
process.stdout.write(
  `plat-apiserver down ${(f.outageMs / 1000).toFixed(1)} s: lease renewed ${(f.leaseResumedMs / 1000).toFixed(2)} s and node Ready (untainted) ${(f.readyMs / 1000).toFixed(2)} s after the restart; ` +
    `renewTime ${f.renewTimeBefore} -> ${f.renewTimeAfter}; same agent process (pid ${f.pidBefore}, started once): ${same}; node Unknown seen after the restart: ${f.sawUnknown}\n`,
);
if (!same) process.exitCode = 1;
