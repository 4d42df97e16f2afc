// --file-check-frequency and --http-check-frequency: without notifications, a new manifest is seen
// at the next check and not before (on the Clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor } from '../../../../src/common/names.js';
import { FileSource } from '../../../../src/agent/source/file.js';
import { HttpSource } from '../../../../src/agent/source/http.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { silentLogger } from '../../../../src/common/log/types.js';

const common = {
  nodeName: 'n1',
  names: namesFor('platform', 'platform.io'),
  logger: silentLogger(),
};
const podJson = (name: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '60'] }] },
  });
const names = (snaps: PodSnapshot[]): string[] =>
  (snaps.at(-1)?.pods ?? []).map((p) => p.metadata.name);

/** Advances the clock by `ms` and waits until `done` holds or the check has plainly not happened. */
async function advanceAndSettle(
  clock: ManualClock,
  ms: number,
  done: () => boolean,
): Promise<void> {
  clock.advance(ms);
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
}

test('--file-check-frequency: without notifications a new manifest is seen at the next check, not before', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-filecheck-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock();
  const snaps: PodSnapshot[] = [];
  const ac = new AbortController();
  const src = new FileSource({
    ...common,
    path: dir,
    checkFrequencyMs: 7000,
    validation: { requireImage: false, requireCommand: true },
    onSnapshot: (s) => snaps.push(s),
    clock,
    watch: false,
  });
  t.after(async () => {
    ac.abort();
    await src.closed();
  });
  await src.start(ac.signal);
  assert.deepEqual(names(snaps), []);
  await writeFile(join(dir, 'web.json'), podJson('web'));
  await clock.waitForSleepers(1);
  await advanceAndSettle(clock, 6999, () => names(snaps).length > 0);
  assert.deepEqual(names(snaps), [], 'not seen before the check');
  await advanceAndSettle(clock, 1, () => names(snaps).length > 0);
  assert.deepEqual(names(snaps), ['web-n1']);
  assert.equal(clock.sleeps[0], 7000);
});

test('--http-check-frequency: the manifest URL is fetched again each period', async (t) => {
  let body = podJson('one');
  let fetches = 0;
  const server = createServer((_req, res) => {
    fetches++;
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const clock = new ManualClock();
  const snaps: PodSnapshot[] = [];
  const ac = new AbortController();
  const src = new HttpSource({
    ...common,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`,
    headers: {},
    checkFrequencyMs: 9000,
    validation: { requireImage: true, requireCommand: false },
    onSnapshot: (s) => snaps.push(s),
    clock,
  });
  t.after(async () => {
    ac.abort();
    await src.closed();
  });
  await src.start(ac.signal);
  assert.deepEqual([fetches, names(snaps)], [1, ['one-n1']]);
  body = podJson('two');
  await clock.waitForSleepers(1);
  await advanceAndSettle(clock, 8999, () => fetches > 1);
  assert.equal(fetches, 1, 'not fetched before the period');
  await advanceAndSettle(clock, 1, () => names(snaps).includes('two-n1'));
  assert.deepEqual([fetches, names(snaps)], [2, ['two-n1']]);
  assert.equal(clock.sleeps[0], 9000);
});
