// --experimental-mounter-path: nodeagent mounts nothing itself, so a set path is said once to
// have no effect, naming why; unset, nothing is said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noteMounterPath } from '../../../../src/agent/volume/mounter-path.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

test('--experimental-mounter-path set: one warning naming the option and why nodeagent runs no mount command; unset: nothing', () => {
  const log = recordingLogger();
  noteMounterPath('/usr/local/bin/mount.wrapper', log);
  assert.deepEqual(
    log.lines.map((l) => [l.level, l.msg]),
    [
      [
        'warn',
        '--experimental-mounter-path cannot take effect: nodeagent runs no mount command itself: emptyDir volumes (medium Memory included) are directories under --root-dir, hostPath volumes go to the runtime as they are, and FlexVolume drivers mount their own volumes; /usr/local/bin/mount.wrapper is not used',
      ],
    ],
  );
  const quiet = recordingLogger();
  noteMounterPath('', quiet);
  assert.deepEqual(quiet.lines, []);
});
