// Every manifest of the hostile corpus (test/fixtures/hostile-manifests) is refused by the file
// source with a one-line reason, named once, and none of them yields a pod; the YAML reasons are
// asserted word for word, and the library's warnings arrive as notes, not process warnings.
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
import { setYamlNoteSink } from '../../../../src/common/util/yaml-notes.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-manifests');

/**
 * The reasons asserted word for word (after the file's path). A sequence as a mapping key is
 * refused as the reference refuses it (go-yaml v2: `yaml: invalid map key: []interface {}{"a", "b"}`),
 * not stringified to "[ a, b ]"; tags the schema does not know are read as if untagged (a note
 * says so), so `!!binary djE=` is the text "djE=", not a Buffer.
 */
const REASONS: Readonly<Record<string, string>> = {
  'yaml-complex-key.yaml':
    ': line 1, column 3: invalid map key: the key is a sequence; a mapping key must be a string, a number within int64 or a boolean: manifest skipped',
  'yaml-tags.yaml':
    ': no kind "Pod" is registered for version "djE=" (accepted: apiVersion: v1 with kind: Pod or PodList)',
};

test('the hostile corpus: every file skipped, each named once with a one-line reason, no pod', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-corpus-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await cp(CORPUS, dir, { recursive: true });
  const names = (await readdir(dir)).filter((n) => n !== 'README.md').sort();
  assert.ok(names.length >= 100, `a corpus of at least 100 files (${names.length})`);
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const notes: string[] = [];
  setYamlNoteSink((n) => notes.push(n));
  t.after(() => setYamlNoteSink(undefined));
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
  await src.relist();
  await src.relist();
  assert.deepEqual(
    snaps.at(-1)?.pods.map((p) => p.metadata.name),
    [],
  );
  const skipped = logger.lines.filter((l) => l.msg === 'file source: invalid manifest skipped');
  const byFile = new Map<string, number>();
  for (const l of skipped)
    byFile.set(String(l.fields.file), (byFile.get(String(l.fields.file)) ?? 0) + 1);
  for (const n of names) {
    if (n === 'README.md') continue;
    assert.equal(byFile.get(join(dir, n)), 1, `${n} named once`);
  }
  for (const l of skipped) {
    const reason = String(l.fields.err);
    assert.ok(!reason.includes('\n'), `one line, no stack trace: ${reason.slice(0, 300)}`);
    assert.ok(reason.length < 8000, `bounded: ${reason.length} characters`);
    assert.ok(
      reason.startsWith(String(l.fields.file)),
      `the reason names the file: ${reason.slice(0, 200)}`,
    );
  }
  for (const [n, reason] of Object.entries(REASONS)) {
    assert.deepEqual(
      skipped.filter((l) => l.fields.file === join(dir, n)).map((l) => String(l.fields.err)),
      [`${join(dir, n)}${reason}`],
      n,
    );
  }
  const tags = join(dir, 'yaml-tags.yaml');
  assert.deepEqual(
    notes.filter((n) => n.startsWith(`${tags}:`)),
    [
      `${tags}: line 1, column 13: Unresolved tag: tag:yaml.org,2002:binary (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it`,
      `${tags}: line 3, column 18: Unresolved tag: tag:yaml.org,2002:js/function (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it`,
    ],
    'the tags it does not know are noted once each',
  );
  assert.equal(
    src.files.work.parses,
    names.length + 1,
    'each file parsed once (README.md too), not again at the second relist',
  );
});
