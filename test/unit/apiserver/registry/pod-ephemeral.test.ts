// pods/ephemeralcontainers in plat-apiserver's pod strategy, with the reference's messages
// (validation.go validateEphemeralContainers, ValidatePodEphemeralContainersUpdate,
// ValidatePodCreate; strategy.go podEphemeralContainersStrategy.PrepareForUpdate).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podDef } from '../../../../src/apiserver/registry/resources/pod.js';
import { fieldErrorString } from '../../../../src/apiserver/field-errors.js';
import { namesFor } from '../../../../src/common/names.js';
import type { Obj, StrategyContext } from '../../../../src/apiserver/registry/types.js';

const ctx: StrategyContext = {
  user: { username: 'admin', groups: ['system:masters'] },
  now: new Date(0),
  platformDomain: 'example.test',
  mirrorAnnotation: namesFor('platform', 'example.test').annotations.configMirror,
  appArmorAnnotationPrefix: namesFor('platform', 'example.test').annotations
    .appArmorContainerPrefix,
};

function stored(ephemeral?: Obj[], annotations?: Record<string, string>): Obj {
  const pod: Obj = {
    metadata: { name: 'p', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'app', image: 'busybox' }],
      ...(ephemeral ? { ephemeralContainers: ephemeral } : {}),
    },
  };
  podDef.prepareForCreate(pod, ctx);
  pod['status'] = { phase: 'Running' };
  return pod;
}

function update(old: Obj, ephemeral: Obj[] | undefined, spec: Obj = {}): string[] {
  const obj: Obj = structuredClone(old);
  obj['spec'] = { ...spec, ...(ephemeral ? { ephemeralContainers: ephemeral } : {}) };
  obj['status'] = { phase: 'Failed' };
  podDef.prepareForUpdate(obj, old, 'ephemeralcontainers', ctx);
  // the subresource changes the ephemeral containers only
  assert.deepEqual(obj['status'], old['status']);
  assert.deepEqual((obj['spec'] as Obj)['containers'], (old['spec'] as Obj)['containers']);
  return podDef.validateUpdate(obj, old, 'ephemeralcontainers', ctx).map(fieldErrorString);
}

test('pods serve the ephemeralcontainers subresource', () => {
  assert.ok(podDef.subresources.includes('ephemeralcontainers'));
});

test('adding an ephemeral container: accepted, defaulted like a container; the rest of the spec kept', () => {
  const old = stored();
  const obj: Obj = structuredClone(old);
  obj['spec'] = {
    containers: [{ name: 'changed', image: 'x' }],
    ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'app' }],
  };
  podDef.prepareForUpdate(obj, old, 'ephemeralcontainers', ctx);
  assert.deepEqual(podDef.validateUpdate(obj, old, 'ephemeralcontainers', ctx), []);
  const spec = obj['spec'] as Obj;
  assert.deepEqual(spec['containers'], (old['spec'] as Obj)['containers']);
  const [ec] = spec['ephemeralContainers'] as Obj[];
  assert.equal(ec?.['terminationMessagePath'], '/dev/termination-log');
  assert.equal(ec?.['terminationMessagePolicy'], 'File');
  assert.equal(ec?.['imagePullPolicy'], 'Always');
});

test('the reference messages: forbidden fields, unknown target, duplicate name', () => {
  assert.deepEqual(
    update(stored(), [
      {
        name: 'app',
        image: 'busybox',
        targetContainerName: 'nope',
        ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: '1' } },
        lifecycle: { preStop: { exec: { command: ['x'] } } },
        volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 's' }],
      },
    ]),
    [
      'spec.ephemeralContainers[0].name: Duplicate value: "app"',
      'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
      'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
    ],
  );
});

test('existing ephemeral containers may not be removed or changed; static pods take none', () => {
  const dbg = { name: 'dbg', image: 'busybox' };
  const old = stored();
  const obj: Obj = structuredClone(old);
  obj['spec'] = { ephemeralContainers: [dbg] };
  podDef.prepareForUpdate(obj, old, 'ephemeralcontainers', ctx);
  assert.deepEqual(update(obj, []), [
    'spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n',
  ]);
  const changed = update(obj, [{ ...dbg, image: 'other' }]);
  assert.equal(changed.length, 1);
  assert.match(
    changed[0] ?? '',
    /^spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n/,
  );
  assert.match(changed[0] ?? '', /image/);
  // the profile's mirror annotation (the platform profile's in example.test here)
  const mirror = stored(undefined, { 'example.test/config.mirror': 'x' });
  assert.deepEqual(update(mirror, [dbg]), [
    ': Forbidden: static pods do not support ephemeral containers',
  ]);
});

test('a pod may not be created with ephemeral containers, nor change them by a plain update', () => {
  const pod: Obj = {
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'app', image: 'busybox' }],
      ephemeralContainers: [{ name: 'dbg', image: 'busybox' }],
    },
  };
  podDef.prepareForCreate(pod, ctx);
  assert.deepEqual(podDef.validateCreate(pod, ctx).map(fieldErrorString), [
    'spec.ephemeralContainers: Forbidden: cannot be set on create',
  ]);
  const old = stored();
  const obj: Obj = structuredClone(old);
  (obj['spec'] as Obj)['ephemeralContainers'] = [{ name: 'dbg', image: 'busybox' }];
  podDef.prepareForUpdate(obj, old, '', ctx);
  const errs = podDef.validateUpdate(obj, old, '', ctx).map(fieldErrorString);
  assert.equal(errs.length, 1);
  assert.match(
    errs[0] ?? '',
    /^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/,
  );
});
