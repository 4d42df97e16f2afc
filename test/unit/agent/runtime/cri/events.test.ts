// The CRI runtime's container events from relisting, as the reference's generic PLEG makes them:
// an exit is told even when no list saw the container running (an init container that ran for
// less than the relist interval), a sandbox's exit is told, and a container gone from the list
// without having exited counts as exited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CriEvents } from '../../../../../src/agent/runtime/cri/events.js';
import type { RuntimeContainer } from '../../../../../src/agent/runtime/types.js';
import { ManualClock } from '../../../../helpers/manual-clock.js';

const c = (
  id: string,
  state: RuntimeContainer['state'],
  kind: RuntimeContainer['kind'] = 'app',
): RuntimeContainer =>
  ({
    id,
    podUid: `pod-of-${id}`,
    state,
    kind,
    name: kind === 'sandbox' ? '' : id,
  }) as RuntimeContainer;

test('relisting tells each start and exit once, first-seen exits and vanished containers included', async () => {
  const clock = new ManualClock();
  const lists: RuntimeContainer[][] = [
    [c('sb', 'running', 'sandbox'), c('old', 'exited'), c('main', 'running')],
    // init ran and exited between two lists; main goes on
    [c('sb', 'running', 'sandbox'), c('old', 'exited'), c('main', 'running'), c('init', 'exited')],
    // the same list again: nothing new
    [c('sb', 'running', 'sandbox'), c('old', 'exited'), c('main', 'running'), c('init', 'exited')],
    // main removed behind the agent's back, the sandbox stopped
    [c('sb', 'exited', 'sandbox'), c('old', 'exited'), c('init', 'exited')],
  ];
  let listed = 0;
  const events = new CriEvents({
    list: () => Promise.resolve(lists[Math.min(listed++, lists.length - 1)] ?? []),
    clock,
    intervalMs: 1000,
  });
  const seen: string[] = [];
  events.add((e) => seen.push(`${e.type} ${e.containerId} ${e.podUid}`));
  for (let round = 1; round < lists.length; round++) {
    await clock.waitForSleepers(1);
    clock.advance(1000);
  }
  await clock.waitForSleepers(1);
  await events.stop();
  assert.equal(listed, lists.length);
  assert.deepEqual(seen, [
    // the first list: what has exited is told once, so its pod is synced
    'exited old pod-of-old',
    'started main pod-of-main',
    'exited init pod-of-init',
    'exited sb pod-of-sb',
    'exited main pod-of-main',
  ]);
});
