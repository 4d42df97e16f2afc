// podLogsDir (the reference's /var/log/pods) is a config-file field without a flag: an agent a
// test spawns gets a --config-dir drop-in that puts it under the test's own directory, so no test
// links container logs into the host's /var/log/pods or cleans up other pods' directories there
// (scripts/run-tests.mjs fails a run that leaves /var/log/pods changed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes the drop-in under `dir` (a directory the test owns and removes) and returns its flags.
 * The drop-in is of the naming profile's kind (a drop-in is also a profile signal).
 */
export function testPodLogsArgs(
  dir: string,
  platformDomain = 'platform.io',
  profile: 'platform' | 'kubernetes' = 'platform',
): string[] {
  const confDir = join(dir, 'test-config.d');
  mkdirSync(confDir, { recursive: true });
  const identity =
    profile === 'kubernetes'
      ? 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration'
      : `apiVersion: nodeagent.config.${platformDomain}/v1beta1\nkind: NodeAgentConfiguration`;
  const doc = `${identity}\npodLogsDir: ${JSON.stringify(join(dir, 'pod-logs'))}\n`;
  writeFileSync(join(confDir, '50-pod-logs-dir.conf'), doc);
  return ['--config-dir', confDir];
}
