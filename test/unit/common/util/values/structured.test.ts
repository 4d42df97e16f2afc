import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError } from '../../../../../src/common/util/errors.js';
import { throwsFlagError } from '../../../../helpers/flag-error.js';
import { fuzzParams } from '../../../../helpers/fuzz-runs.js';
import {
  mergeColonMultimap,
  parseBoolMap,
  parseColonMultimap,
  parseKeyValueMap,
  parseStrings,
} from '../../../../../src/common/util/values/lists.js';
import { parseTaints } from '../../../../../src/common/util/values/taints.js';
import { parseReservedMemory } from '../../../../../src/common/util/values/reserved-memory.js';
import { parseVModule } from '../../../../../src/common/util/values/vmodule.js';
import {
  labelValueErrors,
  qualifiedNameErrors,
} from '../../../../../src/common/util/values/labels.js';

test('strings: one CSV record', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    ['a,,b', ['a', '', 'b']],
    ['a,', ['a', '']],
    ['"a,b",c', ['a,b', 'c']],
    ['"say ""hi"""', ['say "hi"']],
    ['kernel.shm*,net.core.somaxconn', ['kernel.shm*', 'net.core.somaxconn']],
  ];
  for (const [s, want] of cases) assert.deepEqual(parseStrings(s), want, s);
  for (const bad of ['a"b', '"a', '"a"b'])
    throwsFlagError(() => parseStrings(bad, 'cluster-dns'), /parse error/);
});

test('key=value maps: trimmed pairs, empty pairs skipped, malformed refused', () => {
  assert.deepEqual(parseKeyValueMap('memory.available=100Mi, nodefs.available=10%'), {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
  });
  assert.deepEqual(parseKeyValueMap(''), {});
  assert.deepEqual(parseKeyValueMap('a=1,,a=2'), { a: '2' });
  assert.deepEqual(parseKeyValueMap('a=b=c'), { a: 'b=c' });
  assert.deepEqual(parseKeyValueMap('k='), { k: '' });
  throwsFlagError(
    () => parseKeyValueMap('cpu=1,memory', 'system-reserved'),
    'invalid argument "cpu=1,memory" for "--system-reserved" flag: malformed pair "memory", expect string=string (accepted: comma-separated key=value pairs, such as a=1,b=2)',
  );
});

test('bool maps: Go ParseBool values', () => {
  assert.deepEqual(parseBoolMap('A=true,B=false, C=1,D=F'), {
    A: true,
    B: false,
    C: true,
    D: false,
  });
  throwsFlagError(() => parseBoolMap('A', 'feature-gates'), /missing bool value for A/);
  throwsFlagError(() => parseBoolMap('A=yes', 'feature-gates'), /invalid value of A: yes/);
});

test('colon multimap: same-name values kept in order, repeats appended', () => {
  assert.deepEqual(parseColonMultimap('X-A:1,X-B:2,X-A:3'), { 'X-A': ['1', '3'], 'X-B': ['2'] });
  assert.deepEqual(parseColonMultimap('Authorization:Bearer a:b'), {
    Authorization: ['Bearer a:b'],
  });
  assert.deepEqual(parseColonMultimap(''), {});
  assert.deepEqual(mergeColonMultimap({ A: ['1'] }, { A: ['2'], B: ['3'] }), {
    A: ['1', '2'],
    B: ['3'],
  });
  throwsFlagError(
    () => parseColonMultimap('novalue', 'manifest-url-header'),
    /malformed pair "novalue", expect string:string/,
  );
  throwsFlagError(() => parseColonMultimap(':v', 'manifest-url-header'), /empty name/);
});

test('taints: syntax, label rules, effects and duplicates', () => {
  assert.deepEqual(
    parseTaints('dedicated=gpu:NoSchedule,example.com/x:NoExecute,a=:PreferNoSchedule'),
    [
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'example.com/x', effect: 'NoExecute' },
      { key: 'a', value: '', effect: 'PreferNoSchedule' },
    ],
  );
  assert.deepEqual(parseTaints(''), []);
  assert.deepEqual(parseTaints('k=v:NoSchedule,k=v:NoExecute').length, 2);
  const bad: [string, RegExp][] = [
    ['k=v', /invalid taint spec: k=v, missing effect/],
    [
      'k=v:Bogus',
      /invalid taint spec: k=v:Bogus, invalid taint effect: Bogus, unsupported taint effect/,
    ],
    ['a=b=c:NoSchedule', /invalid taint spec: a=b=c:NoSchedule/],
    ['-bad:NoSchedule', /invalid taint spec: -bad:NoSchedule, name part must consist/],
    ['k=v v:NoSchedule', /invalid taint spec/],
    ['k:NoSchedule:x', /invalid taint spec/],
    [
      'k=1:NoSchedule,k=2:NoSchedule',
      /duplicated taints with the same key and effect: k:NoSchedule/,
    ],
    [`k=${'x'.repeat(64)}:NoSchedule`, /no more than 63/],
  ];
  for (const [s, re] of bad) throwsFlagError(() => parseTaints(s, 'register-with-taints'), re);
  throwsFlagError(
    () => parseTaints('k=v:Bogus', 'register-with-taints'),
    /^invalid argument "k=v:Bogus" for "--register-with-taints" flag: invalid taint spec/,
  );
});

test('label key and value rules', () => {
  assert.deepEqual(qualifiedNameErrors('platform.io/hostname'), []);
  assert.deepEqual(qualifiedNameErrors('a'), []);
  assert.notDeepEqual(qualifiedNameErrors('/a'), []);
  assert.notDeepEqual(qualifiedNameErrors('A_B.c/d'), []);
  assert.notDeepEqual(qualifiedNameErrors('a/b/c'), []);
  assert.deepEqual(labelValueErrors(''), []);
  assert.notDeepEqual(labelValueErrors('-x'), []);
});

test('reserved memory: NUMA nodes, memory types and quantities', () => {
  assert.deepEqual(parseReservedMemory('0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi'), [
    { numaNode: 0, limits: { memory: '1Gi', 'hugepages-1Gi': '2Gi' } },
    { numaNode: 1, limits: { memory: '2Gi' } },
  ]);
  const first = parseReservedMemory('0:memory=1Gi');
  assert.deepEqual(parseReservedMemory('0:hugepages-2Mi=1024Mi;2:memory=1G', undefined, first), [
    { numaNode: 0, limits: { memory: '1Gi', 'hugepages-2Mi': '1Gi' } },
    { numaNode: 2, limits: { memory: '1G' } },
  ]);
  const bad: [string, RegExp][] = [
    ['memory=1Gi', /incorrect format, expected numaNodeID:type=quantity/],
    ['0:memory', /reserved limit has incorrect value/],
    ['0:cpu=1', /unknown type: "cpu"/],
    ['x:memory=1Gi', /NUMA node ID/],
    ['0:memory=lots', /failed to parse the quantity/],
  ];
  for (const [s, re] of bad) throwsFlagError(() => parseReservedMemory(s, 'reserved-memory'), re);
});

test('vmodule: pattern=N pairs', () => {
  assert.deepEqual(parseVModule('server=2,pod*=4'), [
    { filePattern: 'server', verbosity: 2 },
    { filePattern: 'pod*', verbosity: 4 },
  ]);
  assert.deepEqual(parseVModule(''), []);
  for (const bad of ['server', '=2', 'a=x', 'a=-1', 'a=1=2', 'a=1,'])
    throwsFlagError(
      () => parseVModule(bad, 'vmodule'),
      /syntax error: expect comma-separated list of filename=N/,
    );
});

test('random input to every value parser yields a value or a FlagError, nothing else', async () => {
  const fc = (await import('fast-check')).default;
  const { parseBool } = await import('../../../../../src/common/util/values/bool.js');
  const { parseInt32, parseInt64 } = await import('../../../../../src/common/util/values/int.js');
  const { parseDurationNs } = await import('../../../../../src/common/util/values/duration.js');
  const { parseQuantity } = await import('../../../../../src/common/util/values/quantity.js');
  const parsers: ((s: string) => unknown)[] = [
    parseBool,
    parseInt32,
    parseInt64,
    parseDurationNs,
    parseQuantity,
    parseStrings,
    parseKeyValueMap,
    (s) => parseKeyValueMap(s, 'x', true),
    parseBoolMap,
    parseColonMultimap,
    parseTaints,
    parseReservedMemory,
    parseVModule,
  ];
  const alphabet = fc.constantFrom(
    ...'0123456789.,;:=<+-_eEimunkKMGTPhsµ" abcxyzNoSchedule'.split(''),
  );
  const input = fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 30 }));
  fc.assert(
    fc.property(input, fc.integer({ min: 0, max: parsers.length - 1 }), (s, i) => {
      try {
        parsers[i]?.(s);
      } catch (e) {
        if (!(e instanceof FlagError)) throw e;
      }
    }),
    fuzzParams(5000),
  );
});

test('keys named after Object.prototype members are keys like any other, never its members', async () => {
  const { parseDurationNs } = await import('../../../../../src/common/util/values/duration.js');
  // A random run once found this: the unit "toString" looked up Object.prototype's method.
  for (const unit of ['toString', 'constructor', '__proto__', 'hasOwnProperty'])
    throwsFlagError(
      () => parseDurationNs(`0${unit}`, 'd'),
      new RegExp(`time: unknown unit "${unit}" in duration "0${unit}"`),
    );
  const { parseQuantity } = await import('../../../../../src/common/util/values/quantity.js');
  for (const suffix of ['toString', 'constructor', '__proto__'])
    throwsFlagError(() => parseQuantity(`0${suffix}`, 'q'), /unable to parse quantity's suffix/);
  const multimap = parseColonMultimap('toString:a,__proto__:b,toString:c');
  assert.deepEqual(Object.keys(multimap), ['toString', '__proto__']);
  assert.deepEqual(multimap['toString'], ['a', 'c']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(multimap, '__proto__')?.value, ['b']);
  assert.equal(Object.getPrototypeOf(multimap), Object.prototype);
  const map = parseKeyValueMap('__proto__=x,constructor=y');
  assert.deepEqual(Object.keys(map), ['__proto__', 'constructor']);
  assert.equal(Object.getOwnPropertyDescriptor(map, '__proto__')?.value, 'x');
  const gates = parseBoolMap('__proto__=true');
  assert.equal(Object.getOwnPropertyDescriptor(gates, '__proto__')?.value, true);
  const merged = mergeColonMultimap({ toString: ['a'] }, { toString: ['b'] });
  assert.deepEqual(merged['toString'], ['a', 'b']);
});
