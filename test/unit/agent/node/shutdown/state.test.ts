// graceful_node_shutdown_state: Go's time encoding both ways; a file that is not the state is an
// error naming it (the manager logs it and goes on), never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goTimeJson, ShutdownStateFile } from '../../../../../src/agent/node/shutdown/state.js';

test('graceful_node_shutdown_state: Go time JSON written atomically (0644) and read back; hostile files are errors naming the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-state-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(goTimeJson(undefined), '0001-01-01T00:00:00Z');
  assert.equal(goTimeJson(Date.UTC(2026, 0, 1, 0, 0, 0, 120)), '2026-01-01T00:00:00.12Z');
  const f = new ShutdownStateFile(dir);
  assert.deepEqual(await f.load(), {}, 'no file: no times');
  await f.store({ startMs: Date.UTC(2026, 0, 1) });
  const path = join(dir, 'graceful_node_shutdown_state');
  assert.equal(
    await readFile(path, 'utf8'),
    '{"startTime":"2026-01-01T00:00:00Z","endTime":"0001-01-01T00:00:00Z"}',
  );
  assert.equal((await stat(path)).mode & 0o777, 0o644);
  assert.deepEqual(await f.load(), { startMs: Date.UTC(2026, 0, 1), endMs: undefined });
  for (const bad of ['not json', '[1]', 'null', 'x'.repeat(5000)]) {
    await writeFile(path, bad);
    await assert.rejects(
      f.load(),
      (e: Error) => e.message.startsWith(`${path} `),
      bad.slice(0, 10),
    );
  }
  await writeFile(path, '{"startTime":"garbage","endTime":42}');
  assert.deepEqual(await f.load(), { startMs: undefined, endMs: undefined });
});
