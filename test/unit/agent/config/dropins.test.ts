import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listDropIns, loadDropIns } from '../../../../src/agent/config/dropins.js';
import { overlayFile } from '../../../../src/agent/config/merge.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';
const opts = { defaultPlatformDomain: 'platform.io' };

async function tree(
  t: { after(fn: () => unknown): void },
  files: Record<string, string>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'na-dropins-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

test('drop-ins: only names ending in exactly .conf, depth-first in lexical order per directory', async (t) => {
  const dir = await tree(t, {
    '20-b.conf': HEAD,
    '10-a.conf': HEAD,
    '15-sub/05.conf': HEAD,
    '15-sub/99.conf': HEAD,
    '15-sub/deeper/01.conf': HEAD,
    'z.conf.bak': 'not yaml: [',
    'notes.txt': 'x',
    'a.CONF': 'x',
    conf: 'x',
    'x.conf.d/1.conf': HEAD,
  });
  const got = (await listDropIns(dir)).map((p) => p.slice(dir.length + 1));
  assert.deepEqual(got, [
    '10-a.conf',
    '15-sub/05.conf',
    '15-sub/99.conf',
    '15-sub/deeper/01.conf',
    '20-b.conf',
    'x.conf.d/1.conf',
  ]);
});

test('drop-ins: a missing directory or a file in its place is an error', async (t) => {
  const dir = await tree(t, { 'file.conf': HEAD });
  await assert.rejects(
    listDropIns(join(dir, 'nope')),
    (err: unknown) =>
      err instanceof ConfigError &&
      /failed to read config dir ".*nope": no such file or directory/.test(err.message),
  );
  await assert.rejects(listDropIns(join(dir, 'file.conf')), /is not a directory/);
});

test('drop-ins: one bad file aborts, naming it', async (t) => {
  const dir = await tree(t, {
    '10.conf': `${HEAD}port: 1\n`,
    '20.conf': 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: Pod\n',
  });
  await assert.rejects(loadDropIns(dir, opts), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /20\.conf" line 2, column 1: kind "Pod" is not supported/);
    return true;
  });
  const dir2 = await tree(t, { '10.conf': 'port: 1\n' });
  await assert.rejects(loadDropIns(dir2, opts), /10\.conf": apiVersion and kind are missing/);
});

test('a file replaces map-valued defaults whole but merges nested structures', () => {
  const defaults = {
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
  };
  const out = overlayFile(
    defaults,
    {
      evictionHard: { 'memory.available': '1Gi' },
      authentication: { anonymous: { enabled: false } },
    },
    (p) => p === 'evictionHard',
  );
  assert.deepEqual(out, {
    evictionHard: { 'memory.available': '1Gi' },
    authentication: { anonymous: { enabled: false }, webhook: { enabled: false } },
  });
  assert.deepEqual(
    defaults.evictionHard,
    { 'memory.available': '100Mi', 'nodefs.available': '10%' },
    'inputs are not changed',
  );
});
