// The one way a test skips for a missing tool or host feature: outside CI it says why, once, and
// returns the reason for `{ skip }`; under CI=true nothing skips (.ci/run installs every tool and
// CI's hosts are cgroup v1 and root), so it throws and the test fails.

export function skipOutsideCi(what: string, reason: string): string {
  if (process.env['CI'] === 'true') throw new Error(`CI=true requires ${what}: ${reason}`);
  process.stdout.write(`# skipping ${what}: ${reason}\n`);
  return reason;
}
