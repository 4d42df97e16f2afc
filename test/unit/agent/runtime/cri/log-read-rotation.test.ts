// A log read while the files are being rotated (the current file renamed, the previous rotated one
// compressed and removed, the oldest dropped) gives every line once, in order: no gaps, no repeats.
// The rotations here come as fast as the reads, far more often than the agent's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFile,
  mkdtemp,
  readFile,
  readdir,
  rename,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readLogAcrossRotation } from '../../../../../src/agent/runtime/cri/logs.js';
import { parseCriLog } from '../../../../../src/agent/runtime/cri/cri-log.js';

const record = (n: number): string => `2026-11-29T10:00:00.000000000Z stdout F line ${n}\n`;

/** One rotation as the agent makes it (gc/log-rotation.ts): rename, compress the previous, keep 3. */
async function rotate(log: string, stamp: number): Promise<void> {
  const dir = join(log, '..');
  const name = `${log}.${String(stamp).padStart(8, '0')}-000000`;
  await rename(log, name);
  await writeFile(log, '');
  const plain = (await readdir(dir))
    .filter((n) => n.startsWith('0.log.') && !n.endsWith('.gz') && join(dir, n) !== name)
    .map((n) => join(dir, n));
  for (const f of plain) {
    // as the agent compresses: written as <f>.tmp, renamed to <f>.gz, then <f> removed
    await writeFile(`${f}.tmp`, gzipSync(await readFile(f)));
    await rename(`${f}.tmp`, `${f}.gz`);
    await unlink(f);
  }
  const all = (await readdir(dir)).filter((n) => n.startsWith('0.log.')).sort();
  for (const old of all.slice(0, Math.max(0, all.length - 3))) await unlink(join(dir, old));
}

test('a read during rotations gives consecutive lines: none missing, none twice', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-log-rot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const log = join(dir, '0.log');
  await writeFile(log, '');
  let n = 0;
  let stop = false;
  // Reads are counted, and the writer rotates at most once per read: the agent rotates once per
  // monitor interval (seconds) while a follow reads every second, so a read meets at most one
  // rotation, as here; on a loaded machine a fixed pause could let rotations outrun the reads.
  let reads = 0;
  const nextRead = async (after: number): Promise<void> => {
    while (reads <= after && !stop) await new Promise((r) => setImmediate(r));
  };
  const writer = (async () => {
    for (let stamp = 1; !stop; stamp++) {
      const seen = reads;
      for (let i = 0; i < 5; i++) await appendFile(log, record(++n));
      await rotate(log, stamp);
      await nextRead(seen);
    }
  })();
  const bad: string[] = [];
  for (let r = 0; r < 300 && bad.length === 0; r++) {
    const text = await readLogAcrossRotation(log);
    reads++;
    const nums = parseCriLog(text).map((l) => Number(/line (\d+)/.exec(l.text)?.[1]));
    const broken = nums.findIndex((x, i) => i > 0 && x !== (nums[i - 1] ?? 0) + 1);
    if (broken > 0) bad.push(`read ${r}: ${nums[broken - 1]} then ${nums[broken]}`);
  }
  stop = true;
  await writer;
  assert.deepEqual(bad, []);
});
