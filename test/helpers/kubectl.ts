// kubectl for the end-to-end suites: under CI=true a missing kubectl fails the suite (.ci/run
// installs it); elsewhere the suite skips and says why, once.
import { spawnSync } from 'node:child_process';
import { skipOutsideCi } from './skip-outside-ci.js';

/** undefined when kubectl runs; else the reason to skip (outside CI). Throws under CI=true. */
export function kubectlSkipReason(suite: string): string | undefined {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return undefined;
  const reason = `kubectl is not available (${probe.error?.message ?? probe.stderr.trim()}); install it (Debian package kubectl)`;
  return skipOutsideCi(`kubectl for ${suite}`, reason);
}
