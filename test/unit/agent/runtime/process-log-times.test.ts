// The times of process:// log lines (src/agent/runtime/process/log-times.ts) and the reference's
// ReadLogs rules that read them (pkg/kubelet/kuberuntime/logs/logs.go): the tail is found first,
// then a line whose timestamp is before `since` is skipped ("Skip the line because it's older
// than since"; a line at `since` is kept), and --timestamps prints the time as RFC3339Nano.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LogTimes,
  rfc3339Nano,
  timedLines,
} from '../../../../src/agent/runtime/process/log-times.js';
import { linesAfter } from '../../../../src/agent/runtime/log-lines.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const iso = (ms: number): string => rfc3339Nano(ms);

function marked(marks: Array<[number, number]>): LogTimes {
  const t = new LogTimes({ path: '/nonexistent', clock: new ManualClock(T0) });
  for (const [size, ms] of marks) t.mark(size, ms);
  return t;
}

test('RFC3339Nano as Go prints it: the fraction without trailing zeros, none when whole', () => {
  assert.equal(rfc3339Nano(Date.UTC(2016, 9, 6, 0, 17, 9, 669)), '2016-10-06T00:17:09.669Z');
  assert.equal(rfc3339Nano(Date.UTC(2016, 9, 6, 0, 17, 9, 500)), '2016-10-06T00:17:09.5Z');
  assert.equal(rfc3339Nano(Date.UTC(2016, 9, 6, 0, 17, 9, 0)), '2016-10-06T00:17:09Z');
});

test('a line takes the time of the first mark at or past its end; past the last mark, the fallback', () => {
  const bytes = Buffer.from('one\ntwo\nthree\n'); // ends at 4, 8, 14
  const times = marked([
    [4, T0],
    [14, T0 + 10_000],
  ]);
  const lines = timedLines({ bytes, start: 0, times, fallbackMs: T0 + 99_000 });
  assert.deepEqual(lines, [
    { time: iso(T0), text: 'one\n' },
    { time: iso(T0 + 10_000), text: 'two\n' },
    { time: iso(T0 + 10_000), text: 'three\n' },
  ]);
  const more = timedLines({
    bytes: Buffer.from('one\ntwo\nthree\nfour\n'),
    start: 0,
    times,
    fallbackMs: T0 + 99_000,
  });
  assert.equal(more[3]?.time, iso(T0 + 99_000));
});

test('an instance that starts mid-file (a restart appends to the same file) reads its marks at its offsets', () => {
  const times = marked([
    [100, T0],
    [104, T0 + 5_000],
  ]);
  assert.deepEqual(
    timedLines({ bytes: Buffer.from('new\n'), start: 100, times, fallbackMs: T0 + 9_000 }),
    [{ time: iso(T0 + 5_000), text: 'new\n' }],
  );
});

test('since as the reference: lines before it skipped, a line at it kept; tail first, then since', () => {
  const bytes = Buffer.from('a\nb\nc\n');
  const times = marked([
    [2, T0],
    [4, T0 + 10_000],
    [6, T0 + 20_000],
  ]);
  const read = (o: { tailLines?: number; sinceMs?: number }): string[] =>
    timedLines({ bytes, start: 0, times, fallbackMs: T0 + 30_000, ...o }).map((l) => l.text);
  assert.deepEqual(read({ sinceMs: T0 + 10_000 }), ['b\n', 'c\n']);
  assert.deepEqual(read({ sinceMs: T0 + 10_001 }), ['c\n']);
  assert.deepEqual(read({ sinceMs: T0 + 20_001 }), []);
  // tail 2 takes b and c; since then drops b (not: since keeps b, c and the tail of those)
  assert.deepEqual(read({ tailLines: 2, sinceMs: T0 + 15_000 }), ['c\n']);
  assert.deepEqual(read({ tailLines: 1, sinceMs: T0 }), ['c\n']);
  assert.deepEqual(read({ tailLines: 0 }), []);
});

test('marks: times never go back; a file that shrank (truncated) starts over; past 1,024 marks they are merged on a coarser grain: a line may take a later time by at most the grain (32 ms for 10,000 marks 1 ms apart), old and new alike, never an earlier one', () => {
  const t = marked([
    [10, T0 + 5_000],
    [20, T0],
  ]);
  assert.equal(t.timeOf(20, 0), T0 + 5_000);
  t.mark(5, T0 + 7_000);
  assert.equal(t.timeOf(3, 0), T0 + 7_000);
  const many = marked([]);
  for (let i = 1; i <= 10_000; i++) many.mark(i, T0 + i);
  for (const end of [1, 2, 777, 5_000, 9_969, 9_999, 10_000]) {
    const ms = many.timeOf(end, 0);
    assert.ok(ms >= T0 + end && ms <= T0 + end + 32, `byte ${end} at ${ms - T0}`);
  }
});

test('follow: what a partial last line gained is sent, then the new lines', () => {
  const before = [
    { time: 't1', text: 'a\n' },
    { time: 't1', text: 'prom' },
  ];
  const now = [
    { time: 't1', text: 'a\n' },
    { time: 't2', text: 'prompt> x\n' },
    { time: 't2', text: 'b\n' },
  ];
  assert.deepEqual(linesAfter(before, now), [
    { time: 't2', text: 'pt> x\n' },
    { time: 't2', text: 'b\n' },
  ]);
  assert.deepEqual(linesAfter(now, now), []);
});
