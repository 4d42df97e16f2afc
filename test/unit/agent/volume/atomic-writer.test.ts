// The reference's atomic writer layout: a timestamped directory `..<UTC>.<n>` (0755) holding the
// files with their modes, `..data` a symlink to it swapped by a rename, each user-visible name a
// symlink `name -> ..data/name`; an unchanged payload is not rewritten; names that went are
// removed with the old directory; a reader racing updates never sees a mixed set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  payloadPathProblem,
  writeAtomic,
  type Payload,
} from '../../../../src/agent/volume/atomic-writer.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

function payload(entries: Record<string, [string, number]>): Payload {
  return new Map(
    Object.entries(entries).map(([k, [v, mode]]) => [k, { data: Buffer.from(v), mode }]),
  );
}

async function dir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'na-atomic-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return d;
}

test('atomic writer: ..data -> ..<yyyy_mm_dd_hh_mm_ss>.<n> (0755), names as ..data/<name> links, files with their modes', async (t) => {
  const d = await dir(t);
  const clock = new ManualClock(Date.UTC(2026, 10, 29, 4, 5, 6));
  await writeAtomic(d, payload({ a: ['A', 0o644], 'sub/b': ['B', 0o400] }), { clock });
  const ts = await readlink(join(d, '..data'));
  assert.match(ts, /^\.\.2026_11_29_04_05_06\.\d+$/);
  assert.equal((await stat(join(d, ts))).mode & 0o7777, 0o755);
  assert.equal(await readlink(join(d, 'a')), '..data/a');
  assert.equal(await readlink(join(d, 'sub')), '..data/sub');
  assert.equal(await readFile(join(d, 'sub/b'), 'utf8'), 'B');
  assert.equal((await stat(join(d, 'a'))).mode & 0o7777, 0o644);
  assert.equal((await stat(join(d, 'sub/b'))).mode & 0o7777, 0o400);
  assert.deepEqual((await readdir(d)).sort(), [ts, '..data', 'a', 'sub'].sort());
});

test('atomic writer: an unchanged payload keeps its directory; a change swaps it and drops names that went', async (t) => {
  const d = await dir(t);
  const clock = new ManualClock();
  await writeAtomic(d, payload({ a: ['1', 0o644], b: ['1', 0o644] }), { clock });
  const first = await readlink(join(d, '..data'));
  await writeAtomic(d, payload({ a: ['1', 0o644], b: ['1', 0o644] }), { clock });
  assert.equal(await readlink(join(d, '..data')), first, 'nothing rewritten');
  clock.advance(1000);
  await writeAtomic(d, payload({ a: ['2', 0o644] }), { clock });
  const second = await readlink(join(d, '..data'));
  assert.notEqual(second, first);
  assert.deepEqual((await readdir(d)).sort(), ['..data', second, 'a'].sort());
  assert.equal(await readFile(join(d, 'a'), 'utf8'), '2');
});

test('atomic writer: paths as the reference validates them', () => {
  assert.equal(payloadPathProblem('/abs'), 'invalid path: must be relative path: /abs');
  assert.equal(payloadPathProblem('a/../b'), "invalid path: must not contain '..': a/../b");
  assert.equal(payloadPathProblem('..a'), "invalid path: must not start with '..': ..a");
  assert.equal(payloadPathProblem(''), 'invalid path: must not be empty: ""');
  assert.equal(payloadPathProblem('ok/file'), undefined);
});

// Reads, in another thread, `..data` once and then both files of the directory it names; a read
// that lands between a removal and its retry starts over. Answers the mixed sets it saw.
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
let reads = 0, mixed = 0;
const deadline = Date.now() + workerData.ms;
while (Date.now() < deadline) {
  try {
    const ts = fs.readlinkSync(path.join(workerData.dir, '..data'));
    const a = fs.readFileSync(path.join(workerData.dir, ts, 'a'), 'utf8');
    const b = fs.readFileSync(path.join(workerData.dir, ts, 'b'), 'utf8');
    const viaLinks = fs.readFileSync(path.join(workerData.dir, 'a'), 'utf8');
    if (a !== b || viaLinks.length !== a.length) mixed++;
    reads++;
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
}
parentPort.postMessage({ reads, mixed });
`;

test('atomic writer: a reader racing 200 updates never sees a mixed or half-written set', async (t) => {
  const d = await dir(t);
  const clock = new ManualClock();
  const big = (n: number): string => String(n).padStart(6, '0').repeat(4_000);
  await writeAtomic(d, payload({ a: [big(0), 0o644], b: [big(0), 0o644] }), { clock });
  const worker = new Worker(READER, { eval: true, workerData: { dir: d, ms: 1500 } });
  const result = new Promise<{ reads: number; mixed: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  for (let n = 1; n <= 200; n++) {
    clock.advance(10);
    await writeAtomic(d, payload({ a: [big(n), 0o644], b: [big(n), 0o644] }), { clock });
  }
  const { reads, mixed } = await result;
  assert.ok(reads > 0, 'the reader read');
  assert.equal(mixed, 0);
});
