import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimedLog } from '../../../../../src/agent/runtime/docker/timed-logs.js';
import { linesSince } from '../../../../../src/agent/runtime/log-lines.js';

test("the engine's timestamps=true output becomes lines with their own times; an unstamped piece keeps the previous time", () => {
  const text =
    '2026-11-24T01:02:03.123456789Z one\n2026-11-24T01:02:04Z two words \n  continued\n2026-11-24T01:02:05.5Z last without newline';
  assert.deepEqual(parseTimedLog(text), [
    { time: '2026-11-24T01:02:03.123456789Z', text: 'one\n' },
    { time: '2026-11-24T01:02:04Z', text: 'two words \n' },
    { time: '2026-11-24T01:02:04Z', text: '  continued\n' },
    { time: '2026-11-24T01:02:05.5Z', text: 'last without newline' },
  ]);
  assert.deepEqual(parseTimedLog('no time at all\n'), []);
  assert.deepEqual(
    linesSince(parseTimedLog(text), Date.parse('2026-11-24T01:02:04Z')).map((l) => l.text),
    ['two words \n', '  continued\n', 'last without newline'],
  );
});
