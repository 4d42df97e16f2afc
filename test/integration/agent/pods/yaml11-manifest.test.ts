// The built agent runs a static pod written the way manifests that work on every real kubelet are
// written, in YAML 1.1 forms that the reference reads through sigs.k8s.io/yaml (go-yaml v2):
// `hostNetwork: yes` is true, `terminationGracePeriodSeconds: 1_0` is 10, `enableServiceLinks: off`
// is false, `activeDeadlineSeconds: 0644` is 420. Read as YAML 1.2 the manifest would be refused
// (strings where the pod wants a bool and a number). The process:// pod writes a marker file; its
// appearing proves the agent accepted and ran the pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, waitFor } from './agent-harness.js';
import { stopChild } from '../../../helpers/processes.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import { launcherEnv } from '../../../helpers/launcher.js';
import { ourReading } from '../../../helpers/yaml-reading.js';

test('the built agent runs a static pod whose manifest uses YAML 1.1 forms the reference accepts (hostNetwork: yes, 1_0, off, 0644)', { timeout: 60_000 }, async (t) => {
  const base = await tempDir('na-yaml11-');
  t.after(() => base.cleanup());
  const root = join(base.path, 'root');
  const manifests = join(base.path, 'manifests');
  const marker = join(base.path, 'ran');
  await mkdir(manifests);
  const manifest = [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: yaml11',
    '  namespace: default',
    'spec:',
    '  hostNetwork: yes',
    '  enableServiceLinks: off',
    '  terminationGracePeriodSeconds: 1_0',
    '  activeDeadlineSeconds: 0644',
    '  restartPolicy: Never',
    '  containers:',
    '  - name: c',
    '    image: local',
    `    command: [sh, -c, 'printf ran > "$0"', '${marker}']`,
    '',
  ].join('\n');
  // The reference's YAMLToJSON of this spec (test/oracle/yaml-to-json): hostNetwork true,
  // enableServiceLinks false, terminationGracePeriodSeconds 10, activeDeadlineSeconds 420.
  const read = ourReading(manifest);
  assert.ok('json' in read, JSON.stringify(read));
  const spec = (JSON.parse(read.json) as { spec: Record<string, unknown> }).spec;
  assert.deepEqual([spec['hostNetwork'], spec['enableServiceLinks'], spec['terminationGracePeriodSeconds'], spec['activeDeadlineSeconds']], [true, false, 10, 420]);
  // the file arrives whole: written beside, then renamed in
  await writeFile(join(base.path, 'pod.yaml'), manifest);
  await rename(join(base.path, 'pod.yaml'), join(manifests, 'pod.yaml'));
  const args = [
    '--container-runtime-endpoint', 'process://', '--root-dir', root, '--hostname-override', `yaml11-${process.pid}`,
    '--sync-frequency', '10s', '--fail-cgroupv1=false', ...NO_CGROUPS_ARGS, ...testPodLogsArgs(root), '--enable-server=false', '--healthz-port=0', '--read-only-port=0',
    '--pod-manifest-path', manifests, '--file-check-frequency', '1s',
  ];
  const child = spawn('bin/nodeagent', args, { stdio: ['ignore', 'pipe', 'pipe'], env: launcherEnv() });
  t.after(() => stopChild(child));
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  await waitFor('the pod ran', async () => (await readFile(marker, 'utf8').catch(() => '')) === 'ran', 30_000).catch((err: unknown) => {
    throw new Error(`${String(err)}\n--- agent output ---\n${output.slice(-4000)}`);
  });
  assert.doesNotMatch(output, /invalid manifest/, 'the manifest was not refused');
});
