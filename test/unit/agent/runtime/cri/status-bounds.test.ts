// CRI answers with missing or absurd fields never reach the pod workers as they came: an unknown
// state is `unknown`, times before 1970 or after 9999 are dropped, an exit code outside int32 is 1,
// a reason of megabytes is cut, containers without this agent's labels are not ours, proto3's
// absent zero values read as the zero (a sandbox without a state is READY, a container CREATED).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_STATUS_TEXT,
  containerOf,
  containerStateOf,
  isOurs,
  nsToMs,
  sandboxOf,
} from '../../../../../src/agent/runtime/cri/status.js';
import { LABELS } from '../../../../../src/agent/runtime/types.js';

const labels = {
  [LABELS.managed]: 'true',
  [LABELS.podUid]: 'u1',
  [LABELS.podName]: 'p',
  [LABELS.podNamespace]: 'ns',
  [LABELS.containerName]: 'c',
  [LABELS.kind]: 'app',
  [LABELS.attempt]: '2',
  [LABELS.node]: 'n1',
};

test('times: nanoseconds to milliseconds, absurd ones dropped', () => {
  assert.equal(nsToMs(1_764_388_800_000_000_000), 1_764_388_800_000);
  for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 9e30, undefined])
    assert.equal(nsToMs(bad), undefined, String(bad));
});

test('states: proto3 zero is CREATED; unknown numbers are unknown', () => {
  assert.equal(containerStateOf(undefined), 'created');
  assert.equal(containerStateOf(1), 'running');
  assert.equal(containerStateOf(2), 'exited');
  assert.equal(containerStateOf(77), 'unknown');
});

test('an exited container with absurd fields: exit code, reason and times bounded', () => {
  const c = containerOf(
    { id: 'abc', labels, state: 2 },
    {
      id: 'abc',
      state: 2,
      exit_code: 2 ** 40,
      reason: 'x'.repeat(5_000_000),
      started_at: -1,
      finished_at: 1e40,
      created_at: 1_764_388_800_000_000_000,
    },
  );
  assert.equal(c.exitCode, 1);
  assert.equal(c.reason?.length, MAX_STATUS_TEXT + 1);
  assert.equal(c.startedAtMs, undefined);
  assert.equal(c.finishedAtMs, undefined);
  assert.equal(c.createdAtMs, 1_764_388_800_000);
  assert.equal(c.attempt, 2);
  assert.equal(c.name, 'c');
});

test('an exited container without a reason: Completed for 0, Error otherwise (as the reference)', () => {
  assert.equal(containerOf({ id: 'a', labels }, { state: 2 }).reason, 'Completed');
  assert.equal(containerOf({ id: 'a', labels }, { state: 2, exit_code: 3 }).reason, 'Error');
});

test('a sandbox without a state on the wire is READY (proto3 zero); its IP kept', () => {
  const s = sandboxOf({ id: 's1', labels: { ...labels, [LABELS.kind]: 'sandbox' } }, '10.1.2.3');
  assert.equal(s.state, 'running');
  assert.equal(s.ip, '10.1.2.3');
  assert.equal(sandboxOf({ id: 's1', labels, state: 1 }, undefined).state, 'exited');
});

test("only this agent's (and this node's) containers are ours", () => {
  assert.equal(isOurs(labels, 'n1'), true);
  assert.equal(isOurs(labels, 'n2'), false);
  assert.equal(isOurs({ ...labels, [LABELS.managed]: 'false' }), false);
  assert.equal(isOurs({ [LABELS.managed]: 'true' }), false);
  assert.equal(isOurs(undefined), false);
});
