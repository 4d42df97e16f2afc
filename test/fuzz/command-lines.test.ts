// Fuzz of the one command-line tokenizer (src/common/cli/parser.ts) through both programs' tables:
// on any argv, nodeagent's parseArgs, plat-apiserver's parseFlags and `token create` return or
// throw FlagError with a one-line message, never anything else; and a flag given as `--x=v` or
// `--x v` parses the same. Inputs per property: fuzzRuns() (FUZZ_RUNS for the long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseArgs } from '../../src/agent/cli/parser.js';
import { parseFlags } from '../../src/apiserver/flags.js';
import { parseCreateArgs } from '../../src/apiserver/bootstrap-token/create-command.js';
import { FlagError } from '../../src/common/util/errors.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

/** Words made of flag syntax and real names of both programs, plus arbitrary text. */
const word = fc.oneof(
  fc.constantFrom(
    '--',
    '-',
    '---',
    '-=',
    '--=',
    '-h',
    '-v',
    '-v3',
    '-hv3',
    '-v=',
    '--help',
    '--secure-port',
    '--secure-port=0',
    '--node-labels',
    '--node_labels=a=b',
    '--anonymous-auth',
    'false',
    '--ttl',
    '--feature-gates=A=true',
    '--api-audiences=a',
    '--v=99999999999999999999',
    '=',
    '',
  ),
  fc.string({
    unit: fc.constantFrom('-', '=', '_', 'a', 'v', 'h', ',', ' ', '\n', '0', '\u0000', 'é'),
    maxLength: 12,
  }),
  fc.string({ maxLength: 40 }),
);
const argvs = fc.array(word, { maxLength: 8 });

function onlyFlagErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    assert.ok(err.message.length > 0 && err.message.length < 4096, 'a message of bounded length');
  }
}

test('any argv: nodeagent, plat-apiserver and token create return or throw FlagError', () => {
  fc.assert(
    fc.property(argvs, (argv) => {
      onlyFlagErrors(() => parseArgs(argv));
      onlyFlagErrors(() => parseFlags(argv));
      onlyFlagErrors(() => parseCreateArgs(argv));
    }),
    fuzzParams(300),
  );
});

test('--x=v and --x v give the same plat-apiserver flags', () => {
  const values = fc.string({
    unit: fc.constantFrom('a', '/', '-', '.', '1'),
    minLength: 1,
    maxLength: 10,
  });
  fc.assert(
    fc.property(
      fc.constantFrom('cert-dir', 'data-dir', 'token-auth-file', 'bind-address'),
      values,
      (name, v) => {
        const joined = parseFlags([`--${name}=${v}`]);
        const split = parseFlags([`--${name}`, v]);
        assert.deepEqual(joined, split);
      },
    ),
    fuzzParams(100),
  );
});
