// The CRI log format as containerd and CRI-O write it (`<RFC3339Nano> <stream> <P|F> <text>`),
// read back into a container's lines: partial records joined per stream, the time of a line its
// first record's, a record still being written (no newline yet) left for the next read, malformed
// records skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { criLogTimeMs, parseCriLog } from '../../../../../src/agent/runtime/cri/cri-log.js';

test('full and partial records become lines with their first time and stream', () => {
  const text = [
    '2026-11-29T04:35:12.374128382Z stdout F hello',
    '2026-11-29T04:35:12.5Z stdout P par',
    '2026-11-29T04:35:12.6Z stderr F oops',
    '2026-11-29T04:35:12.7Z stdout F tial',
    '2026-11-29T04:35:12.8Z stdout F ',
    'garbage line',
    '2026-11-29T04:35:12.9Z stdout F unfinished',
  ].join('\n');
  assert.deepEqual(parseCriLog(text), [
    { time: '2026-11-29T04:35:12.374128382Z', text: 'hello\n', stream: 'stdout' },
    { time: '2026-11-29T04:35:12.6Z', text: 'oops\n', stream: 'stderr' },
    { time: '2026-11-29T04:35:12.5Z', text: 'partial\n', stream: 'stdout' },
    { time: '2026-11-29T04:35:12.8Z', text: '\n', stream: 'stdout' },
  ]);
});

test('a partial record at the end of the file is a line without its newline yet', () => {
  assert.deepEqual(parseCriLog('2026-11-29T04:35:12.5Z stdout P abc\n'), [
    { time: '2026-11-29T04:35:12.5Z', text: 'abc', stream: 'stdout' },
  ]);
});

test('record times to milliseconds, nanoseconds dropped', () => {
  assert.equal(
    criLogTimeMs('2026-11-29T04:35:12.374128382Z'),
    Date.UTC(2026, 10, 29, 4, 35, 12, 374),
  );
});
