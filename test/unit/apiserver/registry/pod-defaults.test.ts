// Pod defaulting on shapes the reference's answers do not cover (those are in
// test/integration/apiserver/pod-defaults.test.ts): values of the wrong type are left for
// validation to name and never throw; the image tag rule of the pull policy; what an update
// re-defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPod } from '../../../../src/apiserver/registry/resources/pod-defaults.js';
import { imageTag } from '../../../../src/apiserver/registry/resources/pod-container-defaults.js';

type Obj = Record<string, unknown>;

test('values of the wrong shape are kept as sent, for validation to name', () => {
  const spec: Obj = {
    containers: [
      'not-a-container',
      {
        name: 'c',
        image: 'busybox',
        ports: 'x',
        env: [{ name: 'A', valueFrom: 'x' }, 7],
        resources: { limits: { cpu: 'lots', memory: { a: 1 } } },
        livenessProbe: { timeoutSeconds: 'soon', httpGet: 'x' },
        lifecycle: 'x',
      },
    ],
    volumes: [7, { name: 'v', hostPath: 'x', secret: null }],
    tolerations: 'x',
    restartPolicy: 5,
  };
  defaultPod({ spec });
  const c = (spec['containers'] as Obj[])[1] ?? {};
  assert.equal((spec['containers'] as unknown[])[0], 'not-a-container');
  assert.equal(c['ports'], 'x');
  assert.deepEqual(c['resources'], {
    limits: { cpu: 'lots', memory: { a: 1 } },
    requests: { cpu: 'lots', memory: { a: 1 } },
  });
  assert.deepEqual(c['livenessProbe'], {
    timeoutSeconds: 'soon',
    httpGet: 'x',
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assert.equal(c['lifecycle'], 'x');
  assert.deepEqual(spec['volumes'], [7, { name: 'v', hostPath: 'x', secret: null }]);
  assert.equal(spec['restartPolicy'], 5);
  assert.equal(spec['tolerations'], 'x');
});

test('a pod without a spec is left for validation', () => {
  const pod: Obj = { metadata: { name: 'p' } };
  defaultPod(pod);
  assert.deepEqual(pod, { metadata: { name: 'p' } });
});

test('the image tag as the reference reads it: latest when there is neither tag nor digest', () => {
  const cases: [string, string][] = [
    ['busybox', 'latest'],
    ['busybox:1.36', '1.36'],
    ['registry.example:5000/team/app', 'latest'],
    ['registry.example:5000/team/app:v2', 'v2'],
    ['busybox@sha256:7b3c', ''],
    ['busybox:latest@sha256:7b3c', 'latest'],
  ];
  for (const [image, tag] of cases) assert.equal(imageTag(image), tag, image);
});

test('probe values of 0 take the default, as the reference treats 0 as unset', () => {
  const probe = { exec: { command: ['true'] }, timeoutSeconds: 0, periodSeconds: 0 };
  defaultPod({ spec: { containers: [{ name: 'c', image: 'b', readinessProbe: probe }] } });
  assert.equal(probe.timeoutSeconds, 1);
  assert.equal(probe.periodSeconds, 10);
});
