// The built agent runs a static pod written the way manifests that work on every real kubelet are
// written, in YAML 1.1 forms that the reference reads through sigs.k8s.io/yaml (go-yaml v2):
// `hostNetwork: yes` is true, `terminationGracePeriodSeconds: 1_0` is 10, `enableServiceLinks: off`
// is false, `activeDeadlineSeconds: 0644` is 420. Read as YAML 1.2 the manifest would be refused
// (strings where the pod wants a bool and a number). The process:// pod writes a marker file; its
// appearing proves the agent accepted and ran the pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { standaloneAgentArgs, tempDir, waitFor } from './agent-harness.js';
import { startAgent } from '../../../helpers/agent-process.js';
import { ourReading } from '../../../helpers/yaml-reading.js';

test(
  'the built agent runs a static pod whose manifest uses YAML 1.1 forms the reference accepts (hostNetwork: yes, 1_0, off, 0644)',
  { timeout: 60_000 },
  async (t) => {
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
    assert.deepEqual(
      [
        spec['hostNetwork'],
        spec['enableServiceLinks'],
        spec['terminationGracePeriodSeconds'],
        spec['activeDeadlineSeconds'],
      ],
      [true, false, 10, 420],
    );
    // the file arrives whole: written beside, then renamed in
    await writeFile(join(base.path, 'pod.yaml'), manifest);
    await rename(join(base.path, 'pod.yaml'), join(manifests, 'pod.yaml'));
    const agent = startAgent([
      ...standaloneAgentArgs(root, `yaml11-${process.pid}`),
      '--pod-manifest-path',
      manifests,
      '--file-check-frequency',
      '1s',
    ]);
    t.after(() => agent.stop());
    await waitFor(
      'the pod ran',
      async () => (await readFile(marker, 'utf8').catch(() => '')) === 'ran',
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n--- agent output ---\n${agent.output().slice(-4000)}`);
    });
    assert.doesNotMatch(agent.output(), /invalid manifest/, 'the manifest was not refused');
  },
);
