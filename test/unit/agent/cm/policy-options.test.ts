// --cpu-manager-policy-options and --topology-manager-policy-options: the reference's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseStaticPolicyOptions,
  parseTopologyPolicyOptions,
} from '../../../../src/agent/cm/policy-options.js';

const defaults = (g: string): boolean =>
  g === 'CPUManagerPolicyBetaOptions' || g === 'TopologyManagerPolicyBetaOptions';
const all = (): boolean => true;

test('CPU manager options: full-pcpus-only (beta) on by default, alpha ones need their gate', () => {
  assert.equal(
    parseStaticPolicyOptions({ 'full-pcpus-only': 'true' }, defaults).fullPhysicalCpusOnly,
    true,
  );
  assert.throws(
    () => parseStaticPolicyOptions({ 'distribute-cpus-across-numa': 'true' }, defaults),
    {
      message:
        'CPU Manager Policy Alpha-level Options not enabled, but option "distribute-cpus-across-numa" provided',
    },
  );
  assert.throws(() => parseStaticPolicyOptions({ 'align-by-socket': 'true' }, defaults), {
    message:
      'CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided',
  });
  assert.throws(() => parseStaticPolicyOptions({ 'full-pcpus-only': 'true' }, () => false), {
    message:
      'CPU Manager Policy Beta-level Options not enabled, but option "full-pcpus-only" provided',
  });
  const o = parseStaticPolicyOptions(
    { 'distribute-cpus-across-numa': 'T', 'align-by-socket': '1' },
    all,
  );
  assert.equal(o.distributeCpusAcrossNuma && o.alignBySocket, true);
});

test("CPU manager options: unknown names, bad values and exclusive pairs are the reference's errors", () => {
  assert.throws(() => parseStaticPolicyOptions({ 'pin-everything': 'true' }, all), {
    message: 'unknown CPU Manager Policy option: "pin-everything"',
  });
  assert.throws(() => parseStaticPolicyOptions({ 'full-pcpus-only': 'yes' }, all), {
    message:
      'bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax',
  });
  assert.throws(
    () =>
      parseStaticPolicyOptions(
        { 'full-pcpus-only': 'true', 'distribute-cpus-across-cores': 'true' },
        all,
      ),
    {
      message:
        'static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time',
    },
  );
});

test("topology manager options: prefer-closest-numa-nodes, max-allowable-numa-nodes and the reference's errors", () => {
  assert.deepEqual(
    parseTopologyPolicyOptions(
      { 'prefer-closest-numa-nodes': 'true', 'max-allowable-numa-nodes': '16' },
      defaults,
    ),
    { preferClosestNuma: true, maxAllowableNumaNodes: 16 },
  );
  assert.throws(() => parseTopologyPolicyOptions({ 'max-allowable-numa-nodes': '4' }, defaults), {
    message: 'the minimum value of "max-allowable-numa-nodes" should not be less than 8',
  });
  assert.throws(
    () => parseTopologyPolicyOptions({ 'max-allowable-numa-nodes': 'many' }, defaults),
    {
      message:
        'bad value for option "max-allowable-numa-nodes": strconv.Atoi: parsing "many": invalid syntax',
    },
  );
  assert.throws(
    () => parseTopologyPolicyOptions({ 'max-allowable-numa-nodes': '9' }, () => false),
    {
      message:
        'Topology Manager Policy Beta-level Options not enabled, but option "max-allowable-numa-nodes" provided',
    },
  );
  assert.throws(() => parseTopologyPolicyOptions({ closest: 'true' }, defaults), {
    message: 'unknown Topology Manager Policy option: "closest"',
  });
});
