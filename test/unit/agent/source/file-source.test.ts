import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, unlink, utimes, truncate } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSource } from '../../../../src/agent/source/file.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const manifest = (name: string, cmd = 'sleep'): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: c, command: [${cmd}, "60"]}]\n`;

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  path?: (dir: string) => string,
) {
  const dir = await mkdtemp(join(tmpdir(), 'na-filesrc-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const src = new FileSource({
    path: path ? path(dir) : dir,
    checkFrequencyMs: 20_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: false, requireCommand: true },
    onSnapshot: (s) => snaps.push(s),
    logger,
    clock: new ManualClock(),
    watch: false,
  });
  const names = (): string[] => (snaps.at(-1)?.pods ?? []).map((p) => p.metadata.name);
  return { dir, src, snaps, logger, names };
}

async function bump(file: string): Promise<void> {
  const t = new Date(Date.now() + Math.random() * 100_000);
  await utimes(file, t, t);
}

test('lists a directory: sorted, dotfiles and subdirectories ignored, invalid files skipped', async (t) => {
  const { dir, src, names, logger } = await setup(t);
  await writeFile(join(dir, 'b.yaml'), manifest('b'));
  await writeFile(
    join(dir, 'a.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a' },
      spec: { containers: [{ name: 'c', command: ['x'] }] },
    }),
  );
  await writeFile(join(dir, '.hidden.yaml'), manifest('hidden'));
  await writeFile(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: [\n');
  await src.relist();
  assert.deepEqual(names(), ['a-n1', 'b-n1']);
  const err = logger.lines.find((l) => l.level === 'error');
  assert.equal(err?.msg, 'file source: invalid manifest skipped');
  assert.equal(err?.fields.file, join(dir, 'broken.yaml'));
  // logged once per content, not on every relist
  await src.relist();
  assert.equal(logger.lines.filter((l) => l.level === 'error').length, 1);
});

test('an invalid modification keeps the old pod; a deletion removes it', async (t) => {
  const { dir, src, names } = await setup(t);
  const f = join(dir, 'web.yaml');
  await writeFile(f, manifest('web'));
  await src.relist();
  assert.deepEqual(names(), ['web-n1']);
  await writeFile(
    f,
    'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, command: [x]}, {name: c, command: [y]}]}\n',
  );
  await bump(f);
  await src.relist();
  assert.deepEqual(names(), ['web-n1'], 'still the old pod');
  await writeFile(f, manifest('web2'));
  await bump(f);
  await src.relist();
  assert.deepEqual(names(), ['web2-n1']);
  await unlink(f);
  await src.relist();
  assert.deepEqual(names(), []);
});

test('files over 10 MB are rejected', async (t) => {
  const { dir, src, names, logger } = await setup(t);
  const f = join(dir, 'big.yaml');
  await writeFile(f, manifest('big'));
  await truncate(f, 10 * 1024 * 1024 + 1);
  await src.relist();
  assert.deepEqual(names(), []);
  assert.match(
    String(logger.lines.find((l) => l.level === 'error')?.fields.err),
    /over the 10 MB limit/,
  );
});

test('a single file, and a missing path (empty set, one log line)', async (t) => {
  const one = await setup(t, (d) => join(d, 'pod.yaml'));
  await one.src.relist();
  assert.deepEqual(one.names(), []);
  assert.equal(one.snaps.length, 1);
  assert.match(one.logger.lines[0]?.msg ?? '', /does not exist/);
  await writeFile(join(one.dir, 'pod.yaml'), manifest('solo'));
  await one.src.relist();
  assert.deepEqual(one.names(), ['solo-n1']);
});

test('notifications pick up a new file without waiting for the relist', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-filesrc-'));
  const ac = new AbortController();
  const snaps: PodSnapshot[] = [];
  const src = new FileSource({
    path: dir,
    checkFrequencyMs: 600_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: false, requireCommand: true },
    onSnapshot: (s) => snaps.push(s),
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  t.after(async () => {
    ac.abort();
    await src.closed();
    await rm(dir, { recursive: true, force: true });
  });
  // start() resolves once the watcher is ready: no wait for it to attach
  await src.start(ac.signal);
  await writeFile(join(dir, 'late.yaml'), manifest('late'));
  const deadline = Date.now() + 5000;
  while (
    Date.now() < deadline &&
    !snaps.some((s) => s.pods.some((p) => p.metadata.name === 'late-n1'))
  )
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(snaps.some((s) => s.pods.some((p) => p.metadata.name === 'late-n1')));
});

test('a manifest written while the source starts (during its first list) is seen at once, not a --file-check-frequency later', async (t) => {
  // Regression: the first list ran before chokidar was watching, so a file written in that
  // window waited for the next relist (here 10 minutes of a clock that never moves).
  const dir = await mkdtemp(join(tmpdir(), 'na-filesrc-'));
  const ac = new AbortController();
  const snaps: PodSnapshot[] = [];
  let arrived: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (arrived = resolve));
  const src = new FileSource({
    path: dir,
    checkFrequencyMs: 600_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: false, requireCommand: true },
    onSnapshot: (s) => {
      // written synchronously inside the first list, before start() returns
      if (snaps.length === 0) writeFileSync(join(dir, 'early.yaml'), manifest('early'));
      snaps.push(s);
      if (s.pods.some((p) => p.metadata.name === 'early-n1')) arrived();
    },
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  t.after(async () => {
    ac.abort();
    await src.closed();
    await rm(dir, { recursive: true, force: true });
  });
  await src.start(ac.signal);
  assert.deepEqual(snaps[0]?.pods, []);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>(
    (resolve) => (timer = setTimeout(() => resolve('not seen within 5 s'), 5000)),
  );
  assert.equal(await Promise.race([seen.then(() => 'seen'), late]), 'seen');
  clearTimeout(timer);
});
