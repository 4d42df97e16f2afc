// The flag-only settings are typed fields, each value checked against its field's type once
// (buildNodeAgentFlags), so no part reads a flag by string key or checks its type again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { buildNodeAgentFlags } from '../../../../src/agent/config/flags-type.js';

test('the deprecated flag-only options have the spec defaults and take their given values, typed', () => {
  const defaults = buildNodeAgentFlags(FLAGS, new Map());
  assert.equal(defaults.maximumDeadContainers, -1);
  assert.equal(defaults.maximumDeadContainersPerContainer, 1);
  assert.equal(defaults.minimumContainerTTLDuration, '0s');
  assert.equal(defaults.experimentalAllocatableIgnoreEviction, false);
  assert.equal(defaults.experimentalMounterPath, '');
  assert.equal(defaults.podInfraContainerImage, '');
  const given = buildNodeAgentFlags(
    FLAGS,
    parseArgs([
      '--maximum-dead-containers=7',
      '--minimum-container-ttl-duration=90s',
      '--experimental-allocatable-ignore-eviction',
      '--node-labels=a=b,c=d',
    ]).values,
  );
  assert.equal(given.maximumDeadContainers, 7);
  assert.equal(given.minimumContainerTTLDuration, '1m30s');
  assert.equal(given.experimentalAllocatableIgnoreEviction, true);
  assert.deepEqual(given.nodeLabels, { a: 'b', c: 'd' });
});

test('a value of another type than its field (the parser and the table disagree) is an error naming the flag', () => {
  assert.throws(
    () => buildNodeAgentFlags(FLAGS, new Map([['maximum-dead-containers', 'seven']])),
    /^Error: --maximum-dead-containers: the parser gave "seven", not an integer$/,
  );
  assert.throws(
    () => buildNodeAgentFlags(FLAGS, new Map([['node-labels', { a: true }]])),
    /^Error: --node-labels: the parser gave \{"a":true\}, not a map of strings$/,
  );
});
