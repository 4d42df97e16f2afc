// The file source names every skipped file once, with its reason, and a relist of unchanged
// files (good or bad) reads nothing and parses nothing.
import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSource } from '../../../../src/agent/source/file.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const good = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, command: [sleep, "60"]}]}\n`;

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'na-manifest-files-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const src = new FileSource({
    path: dir,
    checkFrequencyMs: 60_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: false, requireCommand: true },
    onSnapshot: (s) => snaps.push(s),
    logger,
    clock: new ManualClock(),
    watch: false,
  });
  const names = (): string[] => (snaps.at(-1)?.pods ?? []).map((p) => p.metadata.name);
  const skips = (): Map<string, string> =>
    new Map(
      logger.lines
        .filter((l) => l.level === 'error')
        .map((l) => [String(l.fields.file), String(l.fields.err)]),
    );
  return { dir, src, logger, names, skips };
}

test('every skipped file is named once with its reason: empty, null, comments, separators, dangling link, directory, FIFO, not UTF-8, invalid', async (t) => {
  const { dir, src, logger, names, skips } = await setup(t);
  await writeFile(join(dir, 'good.yaml'), good('good'));
  await writeFile(join(dir, 'empty.yaml'), '');
  await writeFile(join(dir, 'blank.yaml'), '  \n\n');
  await writeFile(join(dir, 'null.yaml'), 'null\n');
  await writeFile(join(dir, 'comments.yaml'), '# nothing here\n');
  await writeFile(join(dir, 'dashes.yaml'), '---\n---\n');
  await writeFile(
    join(dir, 'latin1.yaml'),
    Buffer.concat([Buffer.from(good('latin')), Buffer.from([0xe9, 0x0a])]),
  );
  await writeFile(join(dir, 'v2.yaml'), good('v2').replace('apiVersion: v1', 'apiVersion: v2'));
  await symlink(join(dir, 'nowhere.yaml'), join(dir, 'dangling.yaml'));
  await mkdir(join(dir, 'subdir'));
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);

  await src.relist();
  assert.deepEqual(names(), ['good-n1']);
  const s = skips();
  assert.equal(
    s.get(join(dir, 'empty.yaml')),
    `${join(dir, 'empty.yaml')}: the file is empty, no pod`,
  );
  assert.equal(
    s.get(join(dir, 'blank.yaml')),
    `${join(dir, 'blank.yaml')}: the file is empty, no pod`,
  );
  assert.equal(s.get(join(dir, 'null.yaml')), `${join(dir, 'null.yaml')}: is null, no pod`);
  assert.equal(
    s.get(join(dir, 'comments.yaml')),
    `${join(dir, 'comments.yaml')}: holds only comments, no pod`,
  );
  assert.equal(
    s.get(join(dir, 'dashes.yaml')),
    `${join(dir, 'dashes.yaml')}: holds only YAML document separators, no pod`,
  );
  assert.equal(
    s.get(join(dir, 'latin1.yaml')),
    `${join(dir, 'latin1.yaml')}: is not valid UTF-8 text`,
  );
  assert.match(s.get(join(dir, 'v2.yaml')) ?? '', /no kind "Pod" is registered for version "v2"/);
  assert.equal(
    s.get(join(dir, 'dangling.yaml')),
    `${join(dir, 'dangling.yaml')}: a dangling symbolic link (to ${join(dir, 'nowhere.yaml')}: ENOENT)`,
  );
  assert.equal(
    s.get(join(dir, 'subdir')),
    `${join(dir, 'subdir')}: a directory (the file source does not recurse), not a manifest`,
  );
  assert.equal(s.get(join(dir, 'fifo.yaml')), `${join(dir, 'fifo.yaml')}: a FIFO, not a manifest`);
  const logged = logger.lines.length;
  assert.equal(logged, 10, 'one line per skipped file');

  for (let i = 0; i < 3; i++) await src.relist();
  assert.equal(logger.lines.length, logged, 'relists say nothing new');

  // a touch (same bytes) says nothing; an edit to another bad content says it once
  const t1 = new Date(Date.now() + 10_000);
  await utimes(join(dir, 'null.yaml'), t1, t1);
  await src.relist();
  assert.equal(logger.lines.length, logged);
  await writeFile(join(dir, 'null.yaml'), '~\n# still nothing\n');
  await src.relist();
  await src.relist();
  assert.equal(logger.lines.length, logged + 1);
  // the dangling link's target appears: the pod runs, and nothing more is logged
  await writeFile(join(dir, '.target.yaml'), good('linked'));
  await rm(join(dir, 'dangling.yaml'));
  await symlink(join(dir, '.target.yaml'), join(dir, 'dangling.yaml'));
  await src.relist();
  assert.deepEqual(names().sort(), ['good-n1', 'linked-n1']);
  assert.equal(logger.lines.length, logged + 1);
});

test('a relist of unchanged files, good or bad, reads and parses nothing; a touch reads but does not parse', async (t) => {
  const { dir, src } = await setup(t);
  for (let i = 0; i < 20; i++)
    await writeFile(
      join(dir, `bad-${i}.yaml`),
      good(`bad-${i}`).replace('kind: Pod', 'kind: Deployment'),
    );
  await writeFile(join(dir, 'good.yaml'), good('good'));
  await src.relist();
  assert.deepEqual({ ...src.files.work }, { reads: 21, parses: 21 });
  for (let i = 0; i < 5; i++) await src.relist();
  assert.deepEqual(
    { ...src.files.work },
    { reads: 21, parses: 21 },
    'unchanged: no read, no parse',
  );
  const later = new Date(Date.now() + 60_000);
  await utimes(join(dir, 'bad-3.yaml'), later, later);
  await utimes(join(dir, 'good.yaml'), later, later);
  await src.relist();
  assert.deepEqual(
    { ...src.files.work },
    { reads: 23, parses: 21 },
    'touched: read and hashed, same bytes, not parsed',
  );
  await writeFile(join(dir, 'bad-4.yaml'), good('fixed'));
  await src.relist();
  assert.deepEqual({ ...src.files.work }, { reads: 24, parses: 22 });
});

test('an over-large file is skipped from its size alone, without reading it', async (t) => {
  const { dir, src, skips, names } = await setup(t);
  await writeFile(join(dir, 'big.yaml'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
  await src.relist();
  assert.equal(
    skips().get(join(dir, 'big.yaml')),
    `${join(dir, 'big.yaml')}: file is 10485761 bytes, is over the 10 MB limit for a manifest`,
  );
  assert.equal(src.files.work.reads, 0);
  assert.deepEqual(names(), []);
});

test('two files with one pod name: the first wins and the duplicate is named once, not at every relist', async (t) => {
  const { dir, src, logger, names } = await setup(t);
  await writeFile(join(dir, 'a.yaml'), good('same'));
  await writeFile(join(dir, 'b.yaml'), good('same').replace('"60"', '"61"'));
  for (let i = 0; i < 4; i++) await src.relist();
  assert.deepEqual(names(), ['same-n1']);
  // both files are named: the one skipped and the one kept
  assert.deepEqual(
    logger.lines
      .filter((l) => l.msg.startsWith('pod source: duplicate pod name'))
      .map((l) => l.msg),
    [
      `pod source: duplicate pod name default/same-n1 in ${join(dir, 'b.yaml')}: skipped, keeping the first, from ${join(dir, 'a.yaml')}`,
    ],
  );
});

test("the quick start's example folders are read whole: every file gives its pod, nothing is skipped", async () => {
  for (const [path, validation, pod] of [
    ['examples/static-pods', { requireImage: false, requireCommand: true }, 'web-quickstart'],
    [
      'examples/static-pods-docker',
      { requireImage: true, requireCommand: false },
      'web-quickstart',
    ],
  ] as const) {
    const snaps: PodSnapshot[] = [];
    const logger = recordingLogger();
    const src = new FileSource({
      path,
      checkFrequencyMs: 60_000,
      nodeName: 'quickstart',
      names: namesFor('platform', 'platform.io'),
      validation,
      onSnapshot: (s) => snaps.push(s),
      logger,
      clock: new ManualClock(),
      watch: false,
    });
    await src.relist();
    const problems = logger.lines.filter((l) => l.level === 'error' || l.level === 'warn');
    assert.deepEqual(problems, [], `${path}: nothing skipped or warned about`);
    assert.deepEqual(
      (snaps.at(-1)?.pods ?? []).map((p) => p.metadata.name),
      [pod],
      path,
    );
  }
});
