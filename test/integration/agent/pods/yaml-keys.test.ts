// The built agent reading static pod manifests whose YAML the `yaml` library would only warn
// about: a sequence as a mapping key (test/fixtures/hostile-manifests/yaml-complex-key.yaml) is
// refused, once, with its reason (line, column, what a key may be), and tags it does not know
// (yaml-tags.yaml, and one in its --config file, which the profile inference and the loader both
// read) are notes in the agent's log, once each. Nothing reaches Node's process warnings: once the
// agent has stopped and its streams have closed, its stderr holds no `(node:<pid>) Warning:` line
// (the library's warning would have said "Keys with collection values will be stringified").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { standaloneAgentArgs, tempDir, waitFor } from './agent-harness.js';
import { stopChild } from '../../../helpers/processes.js';
import { launcherEnv } from '../../../helpers/launcher.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-manifests');
const FILES = ['yaml-complex-key.yaml', 'yaml-tags.yaml'];

test(
  'the built agent refuses a sequence as a mapping key once with its reason, notes unknown tags in its log, and writes no process warning',
  { timeout: 60_000 },
  async (t) => {
    const base = await tempDir('na-yaml-keys-');
    t.after(() => base.cleanup());
    const root = join(base.path, 'root');
    const manifests = join(base.path, 'manifests');
    const staging = join(base.path, 'staging');
    await mkdir(manifests);
    await mkdir(staging);
    // each file arrives whole: copied beside, then renamed in
    for (const f of FILES) {
      await copyFile(join(CORPUS, f), join(staging, f));
      await rename(join(staging, f), join(manifests, f));
    }
    // a config file with a tag the library does not know: read by the profile inference and by the loader, noted once
    const config = join(base.path, 'config.yaml');
    await writeFile(
      config,
      'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nclusterDomain: !custom cluster.local\n',
    );
    const args = [
      '--config',
      config,
      ...standaloneAgentArgs(root, `yaml-keys-${process.pid}`),
      '--pod-manifest-path',
      manifests,
      '--file-check-frequency',
      '1s',
    ];
    const child = spawn('bin/nodeagent', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: launcherEnv(),
    });
    const closed = new Promise((r) => child.once('close', r));
    t.after(() => stopChild(child));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const output = (): string => stdout + stderr;
    const complexKey = join(manifests, 'yaml-complex-key.yaml');
    const tags = join(manifests, 'yaml-tags.yaml');
    const skipLines = (file: string): string[] =>
      output()
        .split('\n')
        .filter((l) => l.includes('file source: invalid manifest') && l.includes(file));
    const noteLines = (): string[] =>
      output()
        .split('\n')
        .filter((l) => l.includes('YAML warning ignored') && l.includes(tags));
    await waitFor(
      'both files skipped and the tags noted',
      () =>
        skipLines(complexKey).length > 0 && skipLines(tags).length > 0 && noteLines().length >= 2,
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n--- agent output ---\n${output().slice(-4000)}`);
    });
    await stopChild(child);
    await closed;

    const skips = skipLines(complexKey);
    assert.equal(skips.length, 1, `named once:\n${skips.join('\n')}`);
    assert.ok(
      skips[0]?.includes(
        `${complexKey}: line 1, column 3: invalid map key: the key is a sequence; a mapping key must be a string, a number within int64 or a boolean: manifest skipped`,
      ),
      skips[0],
    );
    const configNotes = output()
      .split('\n')
      .filter((l) => l.includes('YAML warning ignored') && l.includes(config));
    assert.equal(
      configNotes.length,
      1,
      `the config file's tag noted once:\n${configNotes.join('\n')}`,
    );
    assert.ok(
      configNotes[0]?.includes('line 3, column 16: Unresolved tag: !custom'),
      configNotes[0],
    );
    assert.deepEqual(
      noteLines().map((l) => /Unresolved tag: (\S+)/.exec(l)?.[1]),
      ['tag:yaml.org,2002:binary', 'tag:yaml.org,2002:js/function'],
      'each unknown tag noted once, naming the file',
    );
    const warnings = stderr.split('\n').filter((l) => /^\(node:\d+\)|Warning: /.test(l));
    assert.deepEqual(warnings, [], 'no process warning on stderr');
    assert.doesNotMatch(output(), /\[ a, b \]/, 'the key was never stringified');
  },
);
