// One contract for the static pod sources (file and HTTP): full snapshots, static defaults,
// UIDs stable across a restart of the source, bad input keeps the pods, removal empties.
import { namesFor } from '../../../../src/common/names.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSource } from '../../../../src/agent/source/file.js';
import { HttpSource } from '../../../../src/agent/source/http.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

interface Driver {
  /** Replace the source's content: name → manifest text ('' entries mean an empty body/dir). */
  set(content: Record<string, string>): Promise<void>;
  /** A new source instance over the same content; `poll` reads it once. */
  fresh(onSnapshot: (s: PodSnapshot) => void): { poll: () => Promise<void> };
  close(): Promise<void>;
}

const common = {
  nodeName: 'Node1',
  names: namesFor('platform', 'platform.io'),
  validation: { requireImage: false, requireCommand: true },
  logger: recordingLogger(),
  clock: new ManualClock(),
};

async function fileDriver(): Promise<Driver> {
  const dir = await mkdtemp(join(tmpdir(), 'na-contract-file-'));
  let n = 0;
  return {
    async set(content) {
      for (const f of await readdir(dir)) await unlink(join(dir, f));
      for (const [name, text] of Object.entries(content)) {
        await writeFile(join(dir, `${name}.yaml`), text);
        // distinct mtimes even within one clock tick
        const { utimes } = await import('node:fs/promises');
        const t = new Date(Date.now() + ++n * 1000);
        await utimes(join(dir, `${name}.yaml`), t, t);
      }
    },
    fresh(onSnapshot) {
      const src = new FileSource({
        ...common,
        path: dir,
        checkFrequencyMs: 60_000,
        onSnapshot,
        watch: false,
      });
      return { poll: () => src.relist() };
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function httpDriver(): Promise<Driver> {
  let body = '';
  const server = createServer((_q, res) => res.end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    async set(content) {
      const texts = Object.values(content);
      // several pods: a multi-document YAML body
      body = texts.join('\n---\n');
    },
    fresh(onSnapshot) {
      const src = new HttpSource({
        ...common,
        url,
        headers: {},
        checkFrequencyMs: 60_000,
        onSnapshot,
      });
      return { poll: () => src.poll(new AbortController().signal) };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const pod = (name: string, cmd = 'sleep'): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, command: [${cmd}, "1"]}]}\n`;

for (const [name, make] of [
  ['file', fileDriver],
  ['http', httpDriver],
] as const) {
  describe(`static pod source contract: ${name}`, () => {
    test('snapshots, defaults, stable UIDs, bad input keeps pods, removal empties', async (t) => {
      const d = await make();
      t.after(() => d.close());
      const snaps: PodSnapshot[] = [];
      const src = d.fresh((s) => snaps.push(s));
      const last = (): string[] =>
        (snaps.at(-1)?.pods ?? []).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();

      await d.set({ a: pod('a'), b: pod('b') });
      await src.poll();
      assert.deepEqual(last(), ['default/a-node1', 'default/b-node1']);
      const a = snaps.at(-1)?.pods.find((p) => p.metadata.name === 'a-node1');
      assert.match(a?.metadata.uid ?? '', /^[0-9a-f]{32}$/);
      assert.equal(a?.spec.nodeName, 'Node1');
      assert.equal(a?.metadata.annotations?.['platform.io/config.hash'], a?.metadata.uid);
      assert.equal(snaps.at(-1)?.source, name);

      // a restarted agent computes the same UIDs
      const again: PodSnapshot[] = [];
      await d.fresh((s) => again.push(s)).poll();
      assert.deepEqual(
        again
          .at(-1)
          ?.pods.map((p) => p.metadata.uid)
          .sort(),
        snaps
          .at(-1)
          ?.pods.map((p) => p.metadata.uid)
          .sort(),
      );

      await d.set({ a: pod('a'), b: pod('b', 'changed') });
      await src.poll();
      const b2 = snaps.at(-1)?.pods.find((p) => p.metadata.name === 'b-node1');
      assert.notEqual(
        b2?.metadata.uid,
        again.at(-1)?.pods.find((p) => p.metadata.name === 'b-node1')?.metadata.uid,
        'an edit changes the UID',
      );

      const before = last();
      await d.set({ a: 'apiVersion: v1\nkind: Pod\nmetadata: {name: a\n', b: pod('b', 'changed') });
      await src.poll();
      assert.ok(
        last().includes('default/a-node1') || name === 'http',
        'file: the invalid file keeps its pod',
      );
      if (name === 'http') assert.deepEqual(last(), before, 'http: a bad body keeps every pod');

      await d.set({});
      await src.poll();
      assert.deepEqual(last(), []);
    });
  });
}
