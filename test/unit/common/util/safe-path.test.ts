import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, realpath, rm, symlink, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsafePathError } from '../../../../src/common/util/errors.js';
import { HOSTILE_SEGMENTS } from '../../../helpers/hostile-names.js';
import {
  assertUnder,
  joinUnder,
  mkdirUnder,
  pathForRemoval,
  pathForWrite,
  pathSegmentProblem,
  rmUnder,
} from '../../../../src/common/util/safe-path.js';

test('a segment is one plain name: traversal, absolute, separators, encodings, NUL, control characters and over-long names are refused', () => {
  for (const s of HOSTILE_SEGMENTS)
    assert.notEqual(pathSegmentProblem(s), undefined, JSON.stringify(s));
  for (const s of [
    '0123456789abcdef0123456789abcdef',
    '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a',
    'web.log',
    '..json',
    'a..b',
    'x'.repeat(255),
  ]) {
    assert.equal(pathSegmentProblem(s), undefined, s);
  }
});

test('joinUnder joins plain names under the root and throws UnsafePathError naming the name for anything else', () => {
  assert.equal(
    joinUnder('/var/lib/na', 'pods', 'abc', 'volumes', 'data'),
    '/var/lib/na/pods/abc/volumes/data',
  );
  assert.equal(joinUnder('/var/lib/na/', 'pods'), '/var/lib/na/pods');
  for (const s of HOSTILE_SEGMENTS) {
    assert.throws(
      () => joinUnder('/var/lib/na', 'pods', s),
      (err: unknown) =>
        err instanceof UnsafePathError &&
        err.code === 'UnsafePath' &&
        err.message.includes('refusing path under /var/lib/na'),
    );
  }
  assert.throws(() => joinUnder('', 'x'), UnsafePathError);
  assert.throws(() => joinUnder('/a\0b', 'x'), UnsafePathError);
});

test('assertUnder accepts only normalised absolute paths inside the root', () => {
  assert.equal(assertUnder('/r', '/r/pods/a/c.log'), '/r/pods/a/c.log');
  for (const p of [
    '/r/../etc/passwd',
    '/etc/passwd',
    'pods/a',
    '/r/pods/./a',
    '/r2/x',
    '/r/a\0b',
  ]) {
    assert.throws(() => assertUnder('/r', p), UnsafePathError, p);
  }
});

test('symbolic links: a write through a link that leads out of the root is refused; a link inside the root is fine', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'na-safe-path-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'pods'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(root, 'pods', 'escape'));
  await symlink(join(outside, 'file'), join(root, 'pods', 'file-link'));
  await mkdir(join(root, 'real'));
  await symlink(join(root, 'real'), join(root, 'pods', 'inner'));

  await assert.rejects(pathForWrite(root, 'pods', 'escape', 'x.log'), /a symbolic link leads out/);
  await assert.rejects(mkdirUnder(root, ['pods', 'escape', 'volumes', 'v']), UnsafePathError);
  await assert.rejects(
    pathForWrite(root, 'pods', 'file-link'),
    /is a dangling symbolic link/,
    'writing through it would create its target outside',
  );
  await writeFile(join(outside, 'file'), 'x');
  await assert.rejects(pathForWrite(root, 'pods', 'file-link'), /a symbolic link leads out/);
  await assert.rejects(rmUnder(root, ['pods', 'escape', 'victim']), UnsafePathError);
  assert.equal(await pathForWrite(root, 'pods', 'inner', 'x'), join(root, 'pods', 'inner', 'x'));
  assert.deepEqual(await readdir(outside), ['file'], 'nothing was created outside');

  // removing the link itself is fine: rm unlinks it and leaves its target alone
  assert.equal(await pathForRemoval(root, 'pods', 'escape'), join(root, 'pods', 'escape'));
  await rmUnder(root, ['pods', 'escape']);
  assert.deepEqual(await readdir(outside), ['file']);
  await assert.rejects(rmUnder(root, []), /refusing to remove the root/);
});

test('the root itself may be a symbolic link (an operator moving /var/lib/nodeagent elsewhere)', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'na-safe-path-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, 'data'));
  await symlink(join(base, 'data'), join(base, 'root'));
  const p = await mkdirUnder(join(base, 'root'), ['pods', 'u1']);
  assert.equal(p, join(base, 'root', 'pods', 'u1'));
  assert.ok((await stat(join(base, 'data', 'pods', 'u1'))).isDirectory());
});

test('a symbolic link where the root should be, leading elsewhere, still bounds everything below it', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'na-safe-path-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, 'root', 'pods'), { recursive: true });
  await symlink('../..', join(base, 'root', 'pods', 'up'));
  await assert.rejects(
    pathForWrite(join(base, 'root'), 'pods', 'up', 'x'),
    /a symbolic link leads out/,
  );
});

test('a root moved while the program runs: what is inside its new place is accepted, a link out is still refused', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'na-safe-path-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, 'old', 'pods'), { recursive: true });
  await mkdir(join(base, 'new', 'pods'), { recursive: true });
  await symlink(join(base, 'old'), join(base, 'root'));
  await mkdirUnder(join(base, 'root'), ['pods', 'u1']); // the root's real place is now known
  await rm(join(base, 'root'));
  await symlink(join(base, 'new'), join(base, 'root'));
  await mkdirUnder(join(base, 'root'), ['pods', 'u2']);
  assert.ok((await stat(join(base, 'new', 'pods', 'u2'))).isDirectory());
  await symlink(join(base, 'outside'), join(base, 'new', 'pods', 'away'));
  await mkdir(join(base, 'outside'));
  const newRoot = await realpath(join(base, 'new'));
  await assert.rejects(pathForWrite(join(base, 'root'), 'pods', 'away', 'x'), (err: unknown) => {
    assert.match(String(err), /a symbolic link leads out/);
    assert.ok(
      String(err).includes(`outside ${newRoot} (`),
      `names the root's new place: ${String(err)}`,
    );
    return true;
  });
});
