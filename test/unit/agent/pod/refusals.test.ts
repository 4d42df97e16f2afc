// Every pod field either takes effect on the runtime or refuses the pod naming it (support.ts);
// the refusal reaches the API server as the reference's rejectPod writes it (phase Failed, the
// reason, "Pod was rejected: " and the message) and as a Warning event with the same reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedFields } from '../../../../src/agent/pod/refusals.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { derivePodEvents } from '../../../../src/agent/node/events/pod-events.js';

const pod = (spec: Partial<Pod['spec']>): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { containers: [{ name: 'c', image: 'i', command: ['sleep', '9'] }], ...spec },
});

test('a plain pod is refused by neither runtime; defaults the API server writes are accepted', () => {
  const p = pod({
    restartPolicy: 'Always',
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    schedulerName: 'default-scheduler',
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    containers: [
      {
        name: 'c',
        image: 'i',
        command: ['sleep', '9'],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
  });
  assert.deepEqual(refusedFields(p, 'docker'), []);
  assert.deepEqual(refusedFields(p, 'process'), []);
});

test('fields not yet implemented and fields a runtime cannot honour are named with why', () => {
  const p = pod({
    hostPID: true,
    hostUsers: false,
    volumes: [
      { name: 'cm', configMap: { name: 'x' } },
      { name: 'h', hostPath: { path: '/tmp' } },
    ],
    containers: [
      {
        name: 'c',
        image: 'i',
        command: ['sleep', '9'],
        lifecycle: { postStart: { exec: { command: ['true'] } } },
        envFrom: [{ configMapRef: { name: 'x' } }],
        securityContext: { privileged: true },
        volumeMounts: [{ name: 'h', mountPath: '/h' }],
      },
    ],
  });
  // hostPID, lifecycle hooks and configMap volumes take effect on docker; envFrom on both
  assert.deepEqual(refusedFields(p, 'docker'), ['spec.hostUsers: not yet supported by this agent']);
  assert.deepEqual(refusedFields(p, 'process'), [
    'spec.hostUsers: not yet supported by this agent',
    'spec.containers[0].securityContext.privileged: not supported by the process:// runtime: it runs host processes without isolation: there is no privilege to grant',
    'spec.volumes[0].configMap: not supported by the process:// runtime: it runs host processes, with no mount namespace to mount volumes into',
  ]);
  // The hostPath mounted elsewhere than its own path is the volume validator's to refuse on
  // process:// (processMountProblems, tested in the volume tests): the table lets it through.
});

test("a rejected pod gives the Warning event of the reference's rejectPod, once", () => {
  const rejected = {
    phase: 'Failed',
    reason: 'UnsupportedPod',
    message:
      'Pod was rejected: the pod cannot run on this node: spec.hostPID: not yet supported by this agent',
  };
  assert.deepEqual(derivePodEvents(pod({}), undefined, rejected), [
    {
      type: 'Warning',
      reason: 'UnsupportedPod',
      message: 'the pod cannot run on this node: spec.hostPID: not yet supported by this agent',
      fieldPath: '',
    },
  ]);
  assert.deepEqual(derivePodEvents(pod({}), rejected, rejected), []);
});
