// The built agent on process:// with hostile manifests beside a good pod: 10,000-level nesting as
// JSON, YAML flow and YAML block in the manifest directory and at --manifest-url, and an alias
// bomb. The agent does not abort (it did: V8 out of memory in a regular expression, at every
// start), names each skipped file with the limit once, keeps running the good pod (same process,
// answering) through several relists, and stops cleanly. A config file nested as deep is a fatal
// error naming the file and the limit.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, waitFor } from '../integration/agent/pods/agent-harness.js';
import { killProcessPods, processRuntime } from '../integration/agent/pods/runtimes.js';
import { freePort, httpText, startAgent, webManifest } from './static-pods-harness.js';
import { NO_CGROUPS_ARGS } from '../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../helpers/agent-pod-logs.js';
import { launcherEnv } from '../helpers/launcher.js';

const N = 10_000;
const deepJson = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep-json"},"spec":{"containers":[{"name":"c","command":["true"]}],"x":${'{"a":'.repeat(N)}1${'}'.repeat(N)}}}`;
const deepFlow = `{apiVersion: v1, kind: Pod, metadata: {name: deep-flow}, spec: {containers: [{name: c, command: ["true"]}], x: ${'['.repeat(N)}${']'.repeat(N)}}}`;
const deepBlock = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: deep-block\nspec:\n  containers:\n  - name: c\n    command: ["true"]\n  x:\n  ${'- '.repeat(N)}v\n`;
const bomb =
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bomb\nspec:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n';

test(
  'hostile manifests (files and --manifest-url) are skipped with the limit named; the good pod keeps running',
  { timeout: 120_000 },
  async (t) => {
    const root = await tempDir('na-e2e-hostile-');
    const manifests = await tempDir('na-e2e-hostile-manifests-');
    let urlHits = 0;
    const server: Server = createServer((_req, res) => {
      urlHits++;
      res.end(deepJson);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    const urlPort = typeof address === 'object' && address !== null ? address.port : 0;
    const port = await freePort();
    await writeFile(
      join(manifests.path, 'web.json'),
      webManifest(processRuntime, 'hostile-web', port, 'still-here'),
    );
    await writeFile(join(manifests.path, 'deep.json'), deepJson);
    await writeFile(join(manifests.path, 'deep-flow.yaml'), deepFlow);
    await writeFile(join(manifests.path, 'deep-block.yaml'), deepBlock);
    await writeFile(join(manifests.path, 'bomb.yaml'), bomb);
    const agent = startAgent([
      '--pod-manifest-path',
      manifests.path,
      '--manifest-url',
      `http://127.0.0.1:${urlPort}/pods`,
      '--http-check-frequency',
      '1s',
      '--container-runtime-endpoint',
      processRuntime.endpoint(root.path),
      '--root-dir',
      root.path,
      '--hostname-override',
      `hostile-${process.pid}`,
      '--file-check-frequency',
      '1s',
      '--sync-frequency',
      '5s',
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
      ...testPodLogsArgs(root.path),
      '--enable-server=false',
      '--healthz-port=0',
      '--read-only-port=0',
    ]);
    t.after(async () => {
      await agent.stop();
      await killProcessPods(root.path);
      server.close();
      await root.cleanup();
      await manifests.cleanup();
    });
    const fail = (what: string) => (err: unknown) => {
      throw new Error(
        `${what}: ${String(err)}\n--- agent output ---\n${agent.output().slice(-4000)}`,
      );
    };
    await waitFor(
      'the good pod to answer',
      async () => (await httpText(port)) === 'still-here',
      60_000,
    ).catch(fail('good pod'));
    for (const file of ['deep.json', 'deep-flow.yaml', 'deep-block.yaml']) {
      await waitFor(
        `the skip of ${file}`,
        () =>
          agent
            .output()
            .split('\n')
            .some(
              (l) =>
                l.includes('file source: invalid manifest skipped') &&
                l.includes(join(manifests.path, file)) &&
                l.includes('limit maxDepth=100'),
            ),
        20_000,
      ).catch(fail(file));
    }
    await waitFor(
      'the skip of bomb.yaml',
      () =>
        agent
          .output()
          .split('\n')
          .some(
            (l) =>
              l.includes(join(manifests.path, 'bomb.yaml')) && l.includes('limit maxAliases=100'),
          ),
      20_000,
    ).catch(fail('bomb'));
    await waitFor(
      'the URL skip',
      () =>
        agent
          .output()
          .split('\n')
          .some(
            (l) =>
              l.includes('http source: could not read pods') &&
              l.includes(`127.0.0.1:${urlPort}/pods`) &&
              l.includes('limit maxDepth=100'),
          ),
      20_000,
    ).catch(fail('url'));
    // several relists of both sources later: alive, the same pod answering, each file named once
    const hitsBefore = urlHits;
    await waitFor('three more URL polls', () => urlHits >= hitsBefore + 3, 30_000).catch(
      fail('polls'),
    );
    assert.equal(agent.child.exitCode, null, 'the agent is still running');
    assert.equal(await httpText(port), 'still-here');
    const skips = agent
      .output()
      .split('\n')
      .filter(
        (l) =>
          l.includes('invalid manifest skipped') && l.includes(join(manifests.path, 'deep.json')),
      );
    assert.equal(skips.length, 1, 'an unchanged bad file is named once, not at every relist');
    assert.equal(await agent.stop(), 0);
  },
);

test('a config file nested 10,000 levels deep is a fatal error naming the file and the limit', async (t) => {
  const dir = await tempDir('na-e2e-hostile-config-');
  t.after(() => dir.cleanup());
  const file = join(dir.path, 'config.yaml');
  await writeFile(
    file,
    `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nx:\n  ${'- '.repeat(N)}v\n`,
  );
  const r = spawnSync('bin/nodeagent', ['--config', file, '--root-dir', dir.path], {
    encoding: 'utf8',
    timeout: 30_000,
    env: launcherEnv(),
  });
  assert.notEqual(r.status, 0);
  assert.equal(r.signal, null, 'an exit, not a crash');
  assert.match(
    r.stderr + r.stdout,
    new RegExp(
      `config file "${file.replaceAll('/', '\\/')}": more than 100 levels of nesting \\(limit maxDepth=100\\) at byte offset \\d+`,
    ),
  );
});
