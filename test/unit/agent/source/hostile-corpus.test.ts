// Every manifest of the hostile corpus (test/fixtures/hostile-manifests) is refused by the file
// source with a one-line reason, named once, and none of them yields a pod.
import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSource } from '../../../../src/agent/source/file.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-manifests');

test('the hostile corpus: every file skipped, each named once with a one-line reason, no pod', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-corpus-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await cp(CORPUS, dir, { recursive: true });
  const names = (await readdir(dir)).filter((n) => n !== 'README.md').sort();
  assert.ok(names.length >= 100, `a corpus of at least 100 files (${names.length})`);
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const src = new FileSource({
    path: dir, checkFrequencyMs: 60_000, nodeName: 'n1', names: namesFor('platform', 'platform.io'),
    validation: { requireImage: false, requireCommand: true }, onSnapshot: (s) => snaps.push(s), logger, clock: new ManualClock(), watch: false,
  });
  await src.relist();
  await src.relist();
  assert.deepEqual(snaps.at(-1)?.pods.map((p) => p.metadata.name), []);
  const skipped = logger.lines.filter((l) => l.msg === 'file source: invalid manifest skipped');
  const byFile = new Map<string, number>();
  for (const l of skipped) byFile.set(String(l.fields.file), (byFile.get(String(l.fields.file)) ?? 0) + 1);
  for (const n of names) {
    if (n === 'README.md') continue;
    assert.equal(byFile.get(join(dir, n)), 1, `${n} named once`);
  }
  for (const l of skipped) {
    const reason = String(l.fields.err);
    assert.ok(!reason.includes('\n'), `one line, no stack trace: ${reason.slice(0, 300)}`);
    assert.ok(reason.length < 8000, `bounded: ${reason.length} characters`);
    assert.ok(reason.startsWith(String(l.fields.file)), `the reason names the file: ${reason.slice(0, 200)}`);
  }
  assert.equal(src.files.work.parses, names.length + 1, 'each file parsed once (README.md too), not again at the second relist');
});
