import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryWatch } from '../../../../src/agent/source/directory-watch.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  path: (dir: string) => string,
) {
  const dir = await mkdtemp(join(tmpdir(), 'na-dirwatch-'));
  const seen: (string | null)[] = [];
  const waiters: (() => void)[] = [];
  const logger = recordingLogger();
  const w = new DirectoryWatch({
    path: path(dir),
    logger,
    onEvent: (f) => {
      seen.push(f);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  t.after(async () => {
    w.close();
    await rm(dir, { recursive: true, force: true });
  });
  /** Resolves once an event named `file` arrived (inotify delivers a directory's events in order). */
  const until = async (file: string): Promise<void> => {
    while (!seen.includes(file)) await new Promise<void>((r) => waiters.push(r));
  };
  return { dir, w, seen, until, logger };
}

test("one watch of the directory reports manifests, not dotfiles (editors' swap files)", async (t) => {
  const { dir, w, seen, until } = await setup(t, (d) => d);
  await w.arm();
  await writeFile(join(dir, '.web.yaml.swp'), 'x');
  await writeFile(join(dir, 'web.yaml'), 'x');
  await until('web.yaml');
  assert.deepEqual(
    seen.filter((f) => f?.startsWith('.') === true),
    [],
  );
});

test('a single manifest file: its directory is watched, its neighbours are not reported', async (t) => {
  const { dir, w, seen, until } = await setup(t, (d) => join(d, 'pod.yaml'));
  await writeFile(join(dir, 'pod.yaml'), 'a');
  await w.arm();
  await writeFile(join(dir, 'other.yaml'), 'x');
  // an editor's save: a new file renamed over the manifest (a watch of the file itself would lose it)
  await writeFile(join(dir, 'pod.yaml.tmp'), 'b');
  await rename(join(dir, 'pod.yaml.tmp'), join(dir, 'pod.yaml'));
  await until('pod.yaml');
  await writeFile(join(dir, 'pod.yaml'), 'c');
  const before = seen.length;
  await writeFile(join(dir, 'pod.yaml'), 'd');
  while (seen.length === before) await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    seen.filter((f) => f !== 'pod.yaml'),
    [],
  );
});

test('a path that appears later, and a directory replaced under the path, are watched once arm() runs again', async (t) => {
  const { dir, w, until, logger } = await setup(t, (d) => join(d, 'manifests'));
  const path = join(dir, 'manifests');
  await w.arm(); // missing: nothing to watch yet, and nothing to say (the source names the missing path)
  assert.deepEqual(logger.lines, []);
  await mkdir(path);
  await w.arm();
  await writeFile(join(path, 'a.yaml'), 'x');
  await until('a.yaml');
  await rm(path, { recursive: true });
  await mkdir(path);
  await w.arm();
  await writeFile(join(path, 'b.yaml'), 'x');
  await until('b.yaml');
  assert.deepEqual(logger.lines, []);
});
