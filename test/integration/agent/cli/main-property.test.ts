// Random command lines through main() (in process, always ending in --print-config so nothing
// starts): it returns 0 or 1, never throws, and every error is one line without a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { main } from '../../../../src/agent/cli/main.js';

const names = FLAGS.filter((f) => f.name !== 'print-config').map((f) => f.name);
const values = fc.oneof(
  fc.constantFrom(
    '',
    'true',
    'false',
    '0',
    '-1',
    '10',
    '1e3',
    '10Mi',
    '5s',
    '1h2m',
    'a=b',
    'a=b,c=d',
    'QOSReserved=true',
    'Nope=true',
    'x:NoSchedule',
    '0:memory=1Gi',
    'server=3',
    ':',
    '=',
    ',',
    '/tmp/none.yaml',
  ),
  fc.string({ maxLength: 12 }),
);
const token = fc.oneof(
  fc.tuple(fc.constantFrom(...names), values).map(([n, v]) => `--${n}=${v}`),
  fc.constantFrom(...names).map((n) => `--${n}`),
  values,
  fc.constantFrom('-v', '-v3', '-h', '--', '-', '--x_y', '--config-dir=/nonexistent'),
);

test('random argv: exit status 0 or 1, one line per problem, never a stack trace', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(token, { maxLength: 6 }), async (argv) => {
      let out = '';
      let err = '';
      const code = await main([...argv, '--print-config'], {
        stdout: (t) => void (out += t),
        stderr: (t) => void (err += t),
      });
      assert.ok(code === 0 || code === 1, `exit ${code}`);
      assert.ok(!/^\s+at /m.test(err), `stack trace for ${JSON.stringify(argv)}:\n${err}`);
      if (code === 1) {
        assert.equal(out, '', 'nothing on stdout on failure');
        assert.ok(err.trim() !== '', 'a failure says why');
      }
    }),
    { numRuns: 300 },
  );
});
