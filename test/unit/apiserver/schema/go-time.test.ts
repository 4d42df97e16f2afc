// Time and MicroTime as the reference reads and stores them. The expected texts are Go's
// (time.Parse with RFC3339 / RFC3339Micro, as metav1.Time and metav1.MicroTime UnmarshalJSON call
// it) and the stored forms are what metav1 MarshalJSON writes: UTC, seconds or microseconds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeTime } from '../../../../src/apiserver/schema/go-time.js';

const T = '"2006-01-02T15:04:05Z07:00"';
const M = '"2006-01-02T15:04:05.000000Z07:00"';

const timeCases: [string, string | null][] = [
  ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'],
  ['2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00Z'],
  ['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00Z'],
  ['2024-01-01T00:00:00+05:30', '2023-12-31T18:30:00Z'],
  ['2024-01-01T00:00:00-08:00', '2024-01-01T08:00:00Z'],
  ['2024-01-01T00:00:00.999999999Z', '2024-01-01T00:00:00Z'],
  ['2024-01-01T00:00:00,5Z', '2024-01-01T00:00:00Z'],
  ['1969-12-31T23:59:59.5Z', '1969-12-31T23:59:59Z'],
  ['2024-01-01T1:02:03Z', '2024-01-01T01:02:03Z'], // Go's layout hour "15" takes one digit
  ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
  ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00Z'],
  ['0001-01-01T00:00:00Z', null], // the zero time is written as null
  ['0001-01-01T01:00:00+01:00', null],
];
for (const [input, stored] of timeCases) {
  test(`Time ${JSON.stringify(input)} is stored as ${JSON.stringify(stored)}`, () => {
    assert.deepEqual(normalizeTime('Time', input), { ok: true, value: stored });
  });
}

const timeErrors: [string, string][] = [
  ['yesterday', `parsing time "yesterday" as ${T}: cannot parse "yesterday" as "2006"`],
  ['', `parsing time "" as ${T}: cannot parse "" as "2006"`],
  ['2024-01-01', `parsing time "2024-01-01" as ${T}: cannot parse "" as "T"`],
  [
    '2024-01-01t00:00:00Z',
    `parsing time "2024-01-01t00:00:00Z" as ${T}: cannot parse "t00:00:00Z" as "T"`,
  ],
  [
    '2024-1-01T00:00:00Z',
    `parsing time "2024-1-01T00:00:00Z" as ${T}: cannot parse "1-01T00:00:00Z" as "01"`,
  ],
  [
    '2024-01-01T00:00:00',
    `parsing time "2024-01-01T00:00:00" as ${T}: cannot parse "" as "Z07:00"`,
  ],
  [
    '2024-01-01T00:00:00z',
    `parsing time "2024-01-01T00:00:00z" as ${T}: cannot parse "z" as "Z07:00"`,
  ],
  [
    '2024-01-01 00:00:00Z',
    `parsing time "2024-01-01 00:00:00Z" as ${T}: cannot parse " 00:00:00Z" as "T"`,
  ],
  ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
  ['2024-00-01T00:00:00Z', 'parsing time "2024-00-01T00:00:00Z": month out of range'],
  ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
  ['2024-04-31T00:00:00Z', 'parsing time "2024-04-31T00:00:00Z": day out of range'],
  ['2024-01-01T24:00:00Z', 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
  ['2024-01-01T00:60:00Z', 'parsing time "2024-01-01T00:60:00Z": minute out of range'],
  ['2024-01-01T00:00:60Z', 'parsing time "2024-01-01T00:00:60Z": second out of range'],
  [
    '2024-01-01T00:00:00+25:00',
    'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range',
  ],
  [
    '2024-01-01T00:00:00+01:61',
    'parsing time "2024-01-01T00:00:00+01:61": time zone offset minute out of range',
  ],
  ['2024-01-01T00:00:00Zjunk', 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"'],
  [
    '10000-01-01T00:00:00Z',
    `parsing time "10000-01-01T00:00:00Z" as ${T}: cannot parse "0-01-01T00:00:00Z" as "-"`,
  ],
  [
    '昨日',
    `parsing time "\\xe6\\x98\\xa8\\xe6\\x97\\xa5" as ${T}: cannot parse "\\xe6\\x98\\xa8\\xe6\\x97\\xa5" as "2006"`,
  ],
  ['a"b\\', `parsing time "a\\"b\\\\" as ${T}: cannot parse "a\\"b\\\\" as "2006"`],
];
for (const [input, message] of timeErrors) {
  test(`Time ${JSON.stringify(input)} is refused as the reference refuses it`, () => {
    assert.deepEqual(normalizeTime('Time', input), { ok: false, message });
  });
}

test('Time: an instant outside years 0000-9999 in UTC is refused (it could not be read back)', () => {
  for (const input of ['9999-12-31T23:59:59-01:00', '0000-01-01T00:00:00+01:00']) {
    const r = normalizeTime('Time', input);
    assert.equal(r.ok, false, input);
    assert.match(r.ok ? '' : r.message, /outside years 0000-9999 once converted to UTC/);
  }
});

const microCases: [string, string | null][] = [
  ['2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123456Z'],
  ['2026-01-01T02:00:00.123456+02:00', '2026-01-01T00:00:00.123456Z'],
  ['2026-01-01T00:00:00,000001Z', '2026-01-01T00:00:00.000001Z'],
  ['0001-01-01T00:00:00.000000Z', null],
];
for (const [input, stored] of microCases) {
  test(`MicroTime ${JSON.stringify(input)} is stored as ${JSON.stringify(stored)}`, () => {
    assert.deepEqual(normalizeTime('MicroTime', input), { ok: true, value: stored });
  });
}

const microErrors: [string, string][] = [
  // RFC3339Micro asks for exactly six fraction digits.
  [
    '2026-01-01T00:00:00Z',
    `parsing time "2026-01-01T00:00:00Z" as ${M}: cannot parse "Z" as ".000000"`,
  ],
  [
    '2026-01-01T00:00:00.123Z',
    `parsing time "2026-01-01T00:00:00.123Z" as ${M}: cannot parse ".123Z" as ".000000"`,
  ],
  [
    '2026-01-01T00:00:00.123456789Z',
    `parsing time "2026-01-01T00:00:00.123456789Z" as ${M}: cannot parse "789Z" as "Z07:00"`,
  ],
  [
    '2026-01-01T00:00:00.-12345Z',
    'parsing time "2026-01-01T00:00:00.-12345Z": fractional second out of range',
  ],
  ['yesterday', `parsing time "yesterday" as ${M}: cannot parse "yesterday" as "2006"`],
];
for (const [input, message] of microErrors) {
  test(`MicroTime ${JSON.stringify(input)} is refused as the reference refuses it`, () => {
    assert.deepEqual(normalizeTime('MicroTime', input), { ok: false, message });
  });
}
