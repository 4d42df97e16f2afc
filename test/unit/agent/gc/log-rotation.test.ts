// Log rotation on a runtime that reopens logs (CRI ReopenContainerLog), as the reference's
// container log manager: at or over the size the log is renamed <log>.<YYYYMMDD-hhmmss> and the
// runtime told to reopen it; the rotated file from before is gzip'd, at most containerLogMaxFiles
// files stay, leftovers (.tmp) go; a failed reopen renames the log back; only running containers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { LogRotation } from '../../../../src/agent/gc/log-rotation.js';
import type { ContainerRuntime, RuntimeContainer } from '../../../../src/agent/runtime/types.js';
import { rotationStamp } from '../../../../src/agent/runtime/rotated-logs.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

function scene(dir: string, clock: ManualClock, state: RuntimeContainer['state'] = 'running') {
  const log = join(dir, '0.log');
  const reopened: string[] = [];
  const rt = {
    fail: false,
    listContainers: () =>
      Promise.resolve([
        { id: 'c1', kind: 'app', state } as RuntimeContainer,
        { id: 's1', kind: 'sandbox', state } as RuntimeContainer,
      ]),
    logPath: (id: string) => (id === 'c1' ? log : undefined),
    reopenContainerLog(id: string) {
      if (this.fail) return Promise.reject(new Error('reopen refused'));
      reopened.push(id);
      return writeFile(log, '');
    },
  };
  const logger = recordingLogger();
  const rotation = new LogRotation({
    runtime: rt as unknown as ContainerRuntime,
    maxBytes: 100,
    maxFiles: 3,
    workers: 1,
    roots: [dir],
    clock,
    logger,
  });
  return { log, rt, reopened, rotation, logger };
}

test('CRI rotation: renamed with the time, reopened; the previous rotated file gzip-compressed; at most containerLogMaxFiles files', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-rot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock(new Date(2026, 4, 6, 7, 8, 9));
  const s = scene(dir, clock);
  await writeFile(s.log, 'x'.repeat(99));
  assert.equal(await s.rotation.run(), 0, 'under containerLogMaxSize');
  await writeFile(join(dir, '0.log.20200101-000000.tmp'), 'leftover');
  const stamps: string[] = [];
  for (let i = 1; i <= 3; i++) {
    await writeFile(s.log, `round ${i} `.padEnd(100, 'x'));
    stamps.push(rotationStamp(clock.now()));
    assert.equal(await s.rotation.run(), 1, 'at containerLogMaxSize: rotated');
    clock.advance(1000);
  }
  assert.equal(stamps[0], '20260506-070809', "Go's 20060102-150405 in local time");
  assert.deepEqual(s.reopened, ['c1', 'c1', 'c1']);
  assert.deepEqual((await readdir(dir)).sort(), [
    '0.log',
    `0.log.${stamps[1]}.gz`,
    `0.log.${stamps[2]}`,
  ]);
  assert.match(await readFile(join(dir, `0.log.${stamps[2]}`), 'utf8'), /^round 3 /);
  assert.match(
    gunzipSync(await readFile(join(dir, `0.log.${stamps[1]}.gz`))).toString(),
    /^round 2 /,
  );
});

test('CRI rotation: a failed ReopenContainerLog renames the log back; exited containers are left alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-rot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock();
  const s = scene(dir, clock);
  await writeFile(s.log, 'y'.repeat(200));
  s.rt.fail = true;
  assert.equal(await s.rotation.run(), 0);
  assert.deepEqual(await readdir(dir), ['0.log'], 'renamed back');
  assert.equal((await readFile(s.log, 'utf8')).length, 200);
  assert.ok(s.logger.lines.some((l) => l.msg === 'failed to rotate log for container'));
  const exited = scene(dir, clock, 'exited');
  assert.equal(await exited.rotation.run(), 0);
  assert.deepEqual(exited.reopened, []);
});
