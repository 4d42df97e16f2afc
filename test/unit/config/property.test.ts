// Random documents thrown at the loader: only ConfigError (one line per problem) may come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { decodeConfigText } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/util/errors.js';

const opts = { defaultPlatformDomain: 'platform.io' };

function onlyConfigErrors(text: string, isDropIn: boolean): void {
  try {
    decodeConfigText('/c.yaml', text, { ...opts, isDropIn });
  } catch (err) {
    assert.ok(err instanceof ConfigError, `not a ConfigError for ${JSON.stringify(text)}: ${String(err)}`);
    for (const p of err.problems) assert.ok(!p.includes('\n') && p.length > 0, `one non-empty line: ${JSON.stringify(p)}`);
  }
}

const yamlChars = fc.constantFrom(...'ab:- \n\t{}[],#&*!|>\'"%@`?0123456789.kindapiVersion'.split(''));

test('random text: only ConfigError', () => {
  fc.assert(fc.property(fc.string({ unit: yamlChars, maxLength: 200 }), fc.boolean(), (text, d) => onlyConfigErrors(text, d)), { numRuns: 400 });
  fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => onlyConfigErrors(text, false)), { numRuns: 200 });
});

const fieldNames = fc.constantFrom('port', 'maxPods', 'authentication', 'featureGates', 'evictionHard', 'staticPodPath', 'logging', 'registerWithTaints', 'reservedMemory', 'bogus', 'kind', 'apiVersion');

test('random documents with real field names: only ConfigError', () => {
  const doc = fc.dictionary(fieldNames, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
  fc.assert(
    fc.property(doc, fc.boolean(), fc.boolean(), (d, withHead, dropIn) => {
      const body = withHead ? { apiVersion: 'nodeagent.config.platform.io/v1beta1', kind: 'NodeAgentConfiguration', ...d } : d;
      onlyConfigErrors(stringify(body), dropIn);
      onlyConfigErrors(JSON.stringify(body), dropIn);
    }),
    { numRuns: 400 },
  );
});
