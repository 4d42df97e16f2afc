// What configMap, secret and downwardAPI volumes hold, with the reference's values: every key at
// defaultMode 0644 (420), items key -> path with their own modes, a missing key refused unless
// optional with the reference's messages; the downward API's label and annotation lines
// (sorted, Go-quoted, no trailing newline) and resource values rounded up in the divisor's unit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MODE, objectPayload } from '../../../../src/agent/volume/object-payload.js';
import {
  downwardApiPayload,
  fieldPathValue,
  formatMap,
  resourceFieldValue,
} from '../../../../src/agent/volume/downward-api.js';
import { goQuote } from '../../../../src/common/util/go-quote.js';
import type { PodObject } from '../../../../src/agent/objects/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const cm: PodObject = {
  kind: 'ConfigMap',
  namespace: 'default',
  name: 'cm',
  data: new Map([
    ['data-1', Buffer.from('value-1')],
    ['data-2', Buffer.from('value-2')],
  ]),
  textKeys: new Set(['data-1', 'data-2']),
  immutable: false,
  resourceVersion: '1',
};

function show(p: ReturnType<typeof objectPayload>): Record<string, [string, string]> {
  return Object.fromEntries(
    [...p].map(([k, v]) => [k, [v.data.toString(), v.mode.toString(8)]] as const),
  );
}

test('configMap/secret payload: every key at defaultMode (0644 = 420 when unset); items with paths and modes', () => {
  assert.equal(DEFAULT_MODE, 420);
  const all = objectPayload({
    object: cm,
    kind: 'ConfigMap',
    items: undefined,
    defaultMode: DEFAULT_MODE,
    optional: false,
  });
  assert.deepEqual(show(all), { 'data-1': ['value-1', '644'], 'data-2': ['value-2', '644'] });
  const mapped = objectPayload({
    object: cm,
    kind: 'ConfigMap',
    items: [
      { key: 'data-2', path: 'path/to/data-2', mode: 0o400 },
      { key: 'data-1', path: 'one' },
    ],
    defaultMode: 0o600,
    optional: false,
  });
  assert.deepEqual(show(mapped), { 'path/to/data-2': ['value-2', '400'], one: ['value-1', '600'] });
});

test('configMap/secret payload: a listed key the object lacks fails with the reference message unless optional', () => {
  const base = { object: cm, defaultMode: DEFAULT_MODE, items: [{ key: 'nope', path: 'x' }] };
  assert.throws(
    () => objectPayload({ ...base, kind: 'ConfigMap', optional: false }),
    /^Error: configmap references non-existent config key: nope$/,
  );
  assert.throws(
    () => objectPayload({ ...base, kind: 'Secret', optional: false }),
    /^Error: references non-existent secret key: nope$/,
  );
  assert.deepEqual(show(objectPayload({ ...base, kind: 'Secret', optional: true })), {});
  // a missing optional object is an empty one
  assert.deepEqual(
    show(objectPayload({ ...base, object: undefined, kind: 'ConfigMap', optional: true })),
    {},
  );
});

const pod: Pod = {
  metadata: {
    name: 'labelsupdate',
    namespace: 'ns',
    uid: '0b6e5c3e-1111-2222-3333-444455556666',
    labels: { key1: 'value1', key2: 'value2', a: 'x"y\nz' },
    annotations: { builder: 'bar', é: 'ü\u0007' },
  },
  spec: {
    containers: [
      {
        name: 'client-container',
        resources: { limits: { cpu: '1250m', memory: '64Mi' }, requests: { cpu: '250m' } },
      },
      { name: 'nolimits' },
    ],
  },
};

test('downward API: labels and annotations as key="value" lines, sorted, Go-quoted, no newline after the last', () => {
  assert.equal(formatMap(pod.metadata.labels), 'a="x\\"y\\nz"\nkey1="value1"\nkey2="value2"');
  assert.equal(fieldPathValue(pod, 'metadata.annotations'), 'builder="bar"\né="ü\\a"');
  assert.equal(fieldPathValue(pod, "metadata.labels['key1']"), 'value1');
  assert.equal(fieldPathValue(pod, 'metadata.name'), 'labelsupdate');
  assert.equal(fieldPathValue(pod, 'metadata.uid'), '0b6e5c3e-1111-2222-3333-444455556666');
  assert.equal(goQuote('tab\there\u0000\u{1F600}'), '"tab\\there\\x00\u{1F600}"');
  assert.equal(formatMap({}), '');
});

test('downward API: resources rounded up in the divisor unit; limits default to node allocatable, requests to 0', () => {
  const alloc = { cpu: 4, memory: 8 * 2 ** 30 };
  const v = (resource: string, containerName = 'client-container', divisor?: string): string =>
    resourceFieldValue(
      pod,
      { containerName, resource, ...(divisor !== undefined ? { divisor } : {}) },
      alloc,
    );
  assert.equal(v('limits.cpu'), '2');
  assert.equal(v('limits.cpu', 'client-container', '1m'), '1250');
  assert.equal(v('requests.cpu'), '1');
  assert.equal(v('limits.memory', 'client-container', '1Mi'), '64');
  assert.equal(v('limits.memory'), '67108864');
  assert.equal(v('limits.cpu', 'nolimits'), '4');
  assert.equal(v('limits.memory', 'nolimits', '1Gi'), '8');
  assert.equal(v('requests.memory', 'nolimits'), '0');
  // the API server serves an unset divisor as "0": the reference reads it as 1
  assert.equal(v('limits.cpu', 'client-container', '0'), '2');
  assert.equal(v('limits.memory', 'client-container', '0'), '67108864');
});

test('downward API payload: each item at its mode or the default; an unsupported field path fails the volume', () => {
  const p = downwardApiPayload(
    pod,
    [
      { path: 'podname', fieldRef: { fieldPath: 'metadata.name' } },
      { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' }, mode: 0o400 },
    ],
    DEFAULT_MODE,
    {},
  );
  assert.deepEqual(show(p), {
    podname: ['labelsupdate', '644'],
    labels: ['a="x\\"y\\nz"\nkey1="value1"\nkey2="value2"', '400'],
  });
  assert.throws(
    () =>
      downwardApiPayload(pod, [{ path: 'x', fieldRef: { fieldPath: 'spec.nodeName' } }], 420, {}),
    /^Error: unsupported fieldPath: spec.nodeName$/,
  );
});
