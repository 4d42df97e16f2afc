// The CPU and memory managers' checkpoint files: the reference's JSON layout and its checksum
// (FNV-32a over go-spew's rendering), a corrupt checksum refused, a policy change refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spew, fnv32a, str } from '../../../../src/agent/cm/checkpoint-checksum.js';
import { CpuSet } from '../../../../src/agent/cm/cpuset.js';
import { decodeCpuState, encodeCpuState } from '../../../../src/agent/cm/cpu-state.js';
import { decodeMemoryState, encodeMemoryState } from '../../../../src/agent/cm/memory-state.js';

test("the none policy writes the reference's well-known cpu_manager_state, checksum 1353318690", () => {
  const text = encodeCpuState({
    policyName: 'none',
    defaultCpuSet: new CpuSet(),
    entries: new Map(),
  });
  // the file every kubelet with the default policy writes
  assert.equal(text, '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}');
});

test('the checksum is FNV-32a over go-spew\'s "%#v" of the checkpoint with Checksum 0', () => {
  const rendered = spew({
    kind: 'ptr',
    value: {
      kind: 'struct',
      type: 'state.CPUManagerCheckpoint',
      fields: [
        ['PolicyName', str('string', 'none')],
        ['DefaultCPUSet', str('string', '')],
        ['Entries', { kind: 'map', type: 'map[string]map[string]string', entries: [] }],
        ['Checksum', { kind: 'number', type: 'checksum.Checksum', value: 0 }],
      ],
    },
  });
  assert.equal(
    rendered,
    '(*state.CPUManagerCheckpoint){PolicyName:(string)none DefaultCPUSet:(string) Entries:(map[string]map[string]string)map[] Checksum:(checksum.Checksum)0}',
  );
  assert.equal(fnv32a(rendered), 1353318690);
});

test('a static state with entries round-trips; its checksum covers the entries', () => {
  const state = {
    policyName: 'static',
    defaultCpuSet: CpuSet.parse('0,4-7'),
    entries: new Map([
      ['pod-b', new Map([['c', CpuSet.parse('2-3')]])],
      ['pod-a', new Map([['x', CpuSet.parse('1')]])],
    ]),
  };
  const text = encodeCpuState(state);
  const json = JSON.parse(text) as {
    entries: Record<string, Record<string, string>>;
    checksum: number;
    defaultCpuSet: string;
  };
  assert.deepEqual(json.entries, { 'pod-a': { x: '1' }, 'pod-b': { c: '2-3' } });
  assert.equal(json.defaultCpuSet, '0,4-7');
  const back = decodeCpuState(json, 'static');
  assert.equal(back.entries.get('pod-b')?.get('c')?.toString(), '2-3');
  assert.throws(
    () => decodeCpuState({ ...json, checksum: json.checksum + 1 }, 'static'),
    /^Error: checkpoint is corrupted$/,
  );
  assert.throws(
    () => decodeCpuState({ ...json, entries: { 'pod-a': { x: '2' } } }, 'static'),
    /checkpoint is corrupted/,
  );
  // checksum 0: accepted, as the reference does for files of the old backend
  assert.equal(
    decodeCpuState({ ...json, checksum: 0 }, 'static').defaultCpuSet.toString(),
    '0,4-7',
  );
});

test("a checkpoint of another policy is the reference's error", () => {
  const none = JSON.parse(
    encodeCpuState({ policyName: 'none', defaultCpuSet: new CpuSet(), entries: new Map() }),
  ) as unknown;
  assert.throws(() => decodeCpuState(none, 'static'), {
    message: 'configured policy "static" differs from state checkpoint policy "none"',
  });
  assert.throws(
    () => decodeCpuState({ policyName: 'static', defaultCpuSet: '0-x', checksum: 0 }, 'static'),
    /^Error: could not parse default cpu set "0-x"/,
  );
  assert.throws(
    () =>
      decodeCpuState(
        { policyName: 'static', defaultCpuSet: '0', entries: { p: { c: 7 } } },
        'static',
      ),
    /entries are not a map/,
  );
});

test('memory_manager_state round-trips and refuses a changed checksum or policy', () => {
  const state = {
    policyName: 'Static',
    machineState: new Map([
      [
        0,
        {
          numberOfAssignments: 1,
          memoryMap: {
            memory: {
              total: 4096,
              systemReserved: 1024,
              allocatable: 3072,
              reserved: 1024,
              free: 2048,
            },
          },
          cells: [0],
        },
      ],
    ]),
    entries: new Map([
      ['pod', new Map([['c', [{ numaAffinity: [0], type: 'memory', size: 1024 }]]])],
    ]),
  };
  const json = JSON.parse(encodeMemoryState(state)) as Record<string, unknown>;
  assert.deepEqual(json['machineState'], {
    0: {
      numberOfAssignments: 1,
      memoryMap: {
        memory: {
          total: 4096,
          systemReserved: 1024,
          allocatable: 3072,
          reserved: 1024,
          free: 2048,
        },
      },
      cells: [0],
    },
  });
  assert.deepEqual(json['entries'], {
    pod: { c: [{ numaAffinity: [0], type: 'memory', size: 1024 }] },
  });
  assert.equal(decodeMemoryState(json, 'Static').entries.get('pod')?.get('c')?.[0]?.size, 1024);
  assert.throws(
    () => decodeMemoryState({ ...json, checksum: Number(json['checksum']) + 1 }, 'Static'),
    /checkpoint is corrupted/,
  );
  assert.throws(() => decodeMemoryState(json, 'None'), {
    message:
      '[memorymanager] configured policy "None" differs from state checkpoint policy "Static"',
  });
  assert.equal(
    encodeMemoryState({
      policyName: 'None',
      machineState: new Map(),
      entries: new Map(),
    }).startsWith('{"policyName":"None","machineState":{},"checksum":'),
    true,
  );
});
