// Fuzzes the node log query (/logs/?query=...) and /debug/flags/v parsers with fast-check:
// hostile parameter values (control characters, non-ASCII, shell and regex syntax, huge
// numbers, paths with ..) never throw, and whatever validation lets through reaches journalctl
// only as safe --unit= names and one file inside the log directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  parseNodeLogQuery,
  validateNodeLogQuery,
} from '../../../src/agent/server/handlers/node-log-query/query.js';
import { journalArgs } from '../../../src/agent/server/handlers/node-log-query/journal.js';
import { parseVerbosity } from '../../../src/agent/server/handlers/debug-flags.js';
import { fuzzParams } from '../../helpers/fuzz-runs.js';

const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'kubelet',
    '../../etc/passwd',
    '/syslog',
    'a;rm -rf /',
    '$(id)',
    '-x',
    '--output=json',
    '(',
    '[a-',
    '9'.repeat(30),
    '-1',
    '+0',
    ' ',
    '\\..\\x',
    'a\nb',
    '2026-02-30T00:00:00Z',
    '2026-01-01T00:00:00+25:00',
  ),
);
const param = fc.tuple(
  fc.constantFrom('query', 'sinceTime', 'untilTime', 'tailLines', 'boot', 'pattern', 'other'),
  hostile,
);

test('node log query: hostile parameters never throw; validated services are safe names, a file stays in the log directory', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(param, { maxLength: 8 }), async (pairs) => {
      const params = new URLSearchParams();
      for (const [k, v] of pairs) params.append(k, v);
      const parsed = parseNodeLogQuery(params);
      for (const e of parsed.errors) assert.equal(typeof e, 'string');
      if (parsed.query === undefined || parsed.errors.length > 0) return;
      const problems = await validateNodeLogQuery(parsed.query, '/nonexistent-log-dir');
      if (problems.length > 0) return;
      assert.equal(parsed.query.files.length, 0, 'no file exists under /nonexistent-log-dir');
      for (const a of journalArgs(parsed.query, parsed.query.services).filter((x) =>
        x.startsWith('--unit='),
      )) {
        assert.match(a, /^--unit=[a-zA-Z\-_0-9@]+$/);
      }
    }),
    fuzzParams(300),
  );
});

test('/debug/flags/v: any body parses to an int32 verbosity or an error, never a throw', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 30 }), fc.bigInt().map(String)), (body) => {
      const r = parseVerbosity(body);
      if ('verbosity' in r)
        assert.ok(
          Number.isInteger(r.verbosity) && r.verbosity >= -(2 ** 31) && r.verbosity <= 2 ** 31 - 1,
        );
      else
        assert.match(
          r.error,
          /^strconv\.ParseInt: parsing ".*": (invalid syntax|value out of range)$/s,
        );
    }),
    fuzzParams(500),
  );
});
