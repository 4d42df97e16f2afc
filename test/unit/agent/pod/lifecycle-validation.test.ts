// Lifecycle hooks refused as the reference's validateLifecycle / validateHandler /
// validateSleepAction refuse them (pkg/apis/core/validation/validation.go, 1.32 defaults:
// PodLifecycleSleepActionAllowZero off), with its messages written out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validatePod } from '../../../../src/agent/pod/validate.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';

function pod(c: Partial<Container>, init = false): Pod {
  const container: Container = { name: 'c', image: 'i', command: ['x'], ...c };
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: {
      terminationGracePeriodSeconds: 30,
      containers: init ? [{ name: 'app', image: 'i', command: ['x'] }] : [container],
      ...(init ? { initContainers: [container] } : {}),
    },
  };
}

const problems = (p: Pod): string[] =>
  validatePod(p, { requireImage: true, requireCommand: false }).filter((m) =>
    m.includes('lifecycle'),
  );

test('a hook with no handler: Required "must specify a handler type"', () => {
  assert.deepEqual(problems(pod({ lifecycle: { preStop: {} } })), [
    'spec.containers[0].lifecycle.preStop: Required value: must specify a handler type',
  ]);
});

test('a hook with several handlers: each further one Forbidden "may not specify more than 1 handler type"', () => {
  assert.deepEqual(
    problems(
      pod({
        lifecycle: {
          postStart: {
            exec: { command: ['true'] },
            httpGet: { port: 80 },
            tcpSocket: { port: 81 },
            sleep: { seconds: 1 },
          },
        },
      }),
    ),
    [
      'spec.containers[0].lifecycle.postStart.httpGet: Forbidden: may not specify more than 1 handler type',
      'spec.containers[0].lifecycle.postStart.tcpSocket: Forbidden: may not specify more than 1 handler type',
      'spec.containers[0].lifecycle.postStart.sleep: Forbidden: may not specify more than 1 handler type',
    ],
  );
});

test('the handler itself: exec command, httpGet port, sleep within the grace period', () => {
  assert.deepEqual(problems(pod({ lifecycle: { postStart: { exec: { command: [] } } } })), [
    'spec.containers[0].lifecycle.postStart.exec.command: Required value',
  ]);
  assert.deepEqual(problems(pod({ lifecycle: { preStop: { httpGet: { port: 0 } } } })), [
    'spec.containers[0].lifecycle.preStop.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
  ]);
  assert.deepEqual(problems(pod({ lifecycle: { preStop: { sleep: { seconds: 31 } } } })), [
    'spec.containers[0].lifecycle.preStop.sleep: Invalid value: 31: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.',
  ]);
  assert.deepEqual(problems(pod({ lifecycle: { preStop: { sleep: { seconds: 30 } } } })), []);
});

test('an init container that is no sidecar may have no hooks', () => {
  assert.deepEqual(problems(pod({ lifecycle: { preStop: { exec: { command: ['x'] } } } }, true)), [
    'spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always',
  ]);
  assert.deepEqual(
    problems(
      pod({ restartPolicy: 'Always', lifecycle: { preStop: { exec: { command: ['x'] } } } }, true),
    ),
    [],
  );
});
