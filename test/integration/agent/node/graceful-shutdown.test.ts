// Graceful node shutdown against a fake systemd-logind on a private D-Bus (dbus-daemon started
// here): the delay inhibitor lock, the logind drop-in, PrepareForShutdown, pods killed by
// priority group within their grace periods (critical pods last), the reference's pod status and
// node answers, the lock released at the end; a cancelled shutdown takes the lock again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shutdownGroups } from '../../../../src/agent/node/shutdown/groups.js';
import { DbusLogind } from '../../../../src/agent/node/shutdown/logind.js';
import { overrideInhibitDelay } from '../../../../src/agent/node/shutdown/logind-dropin.js';
import { NodeShutdownManager } from '../../../../src/agent/node/shutdown/manager.js';
import { RuntimeShutdownPods } from '../../../../src/agent/node/shutdown/pod-terminator.js';
import { ShutdownStateFile } from '../../../../src/agent/node/shutdown/state.js';
import type { Pod, PodStatus } from '../../../../src/agent/pod/types.js';
import type { RuntimeContainer } from '../../../../src/agent/runtime/types.js';
import {
  startFakeLogind,
  startPrivateBus,
  type FakeLogind,
  type PrivateBus,
} from '../../../helpers/fake-logind.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';

const noDbus =
  spawnSync('dbus-daemon', ['--version']).error !== undefined
    ? skipOutsideCi('dbus-daemon (Debian package dbus)', 'dbus-daemon is not installed')
    : undefined;
const opts = { skip: noDbus ?? false };

let bus: PrivateBus;
let dropinDir: string;

before(async () => {
  if (noDbus !== undefined) return;
  bus = await startPrivateBus();
  dropinDir = mkdtempSync(join(tmpdir(), 'nodeagent-logind-conf-'));
});

after(async () => {
  await bus?.stop();
  if (dropinDir !== undefined) rmSync(dropinDir, { recursive: true, force: true });
});

function pod(name: string, priority: number, terminationGracePeriodSeconds?: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      priority,
      ...(terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds } : {}),
      containers: [{ name: 'c', image: 'busybox' }],
    },
  } as Pod;
}

/** Pods with one running container each; stops wait until the test lets them end. */
function fakeNode(pods: Pod[]) {
  const statuses = new Map<string, PodStatus>(
    pods.map((p) => [p.metadata.uid, { phase: 'Running', conditions: [], containerStatuses: [] }]),
  );
  const stops: { id: string; grace: number; done: () => void }[] = [];
  const runtime = {
    listContainers: (f?: { podUid?: string }) =>
      Promise.resolve([
        {
          id: `ctr-${f?.podUid ?? ''}`,
          podUid: f?.podUid ?? '',
          kind: 'container',
          state: 'running',
        } as unknown as RuntimeContainer,
      ]),
    stopContainer: (id: string, grace: number) =>
      new Promise<void>((resolve) => stops.push({ id, grace, done: resolve })),
  };
  const adapter = new RuntimeShutdownPods({
    pods: { desiredPods: () => pods, status: (uid) => statuses.get(uid) },
    statuses: { set: (p, s) => statuses.set(p.metadata.uid, s), recordEvent: () => undefined },
    runtime,
    disruptionReason: 'TerminationByKubelet',
    nowIso: () => '2026-01-01T00:00:00.000Z',
  });
  return { adapter, statuses, stops };
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

test(
  'graceful node shutdown: delay lock from logind, drop-in raising InhibitDelayMaxSec, pods killed by priority (critical last) with the reference status, NotReady, lock released',
  opts,
  async () => {
    const logind: FakeLogind = await startFakeLogind(bus, { delayUSec: 5_000_000n, dropinDir });
    const clock = new ManualClock();
    const log = recordingLogger();
    const events: string[] = [];
    const node = fakeNode([
      pod('web', 0, 5),
      pod('batch', 1000),
      pod('done', 0),
      pod('dns', 2_000_000_000),
    ]);
    node.statuses.set('uid-done', { phase: 'Succeeded', conditions: [], containerStatuses: [] });
    const dropin = { dir: dropinDir, agent: 'kubelet', title: 'Kubelet' };
    const stateDir = mkdtempSync(join(tmpdir(), 'nodeagent-shutdown-state-'));
    const times: string[] = [];
    const manager = new NodeShutdownManager({
      // shutdownGracePeriod 30s, shutdownGracePeriodCriticalPods 10s → 20 s for the rest, then 10 s.
      groups: shutdownGroups([], 30_000, 10_000),
      connect: () =>
        DbusLogind.connect({
          address: bus.address,
          who: 'kubelet',
          why: 'Kubelet needs time to handle node shutdown',
          clock,
          logger: log,
        }),
      overrideInhibitDelay: (ms) => overrideInhibitDelay(dropin, ms),
      pods: node.adapter,
      event: (m) => events.push(m),
      state: new ShutdownStateFile(stateDir),
      times: { start: (sec) => times.push(`start=${sec}`), end: (sec) => times.push(`end=${sec}`) },
      clock,
      logger: log,
    });
    const stop = new AbortController();
    try {
      await manager.start(stop.signal);
      // The reference's Inhibit call and drop-in (systemd/inhibit_linux.go).
      assert.deepEqual(
        logind.state.inhibits.map((l) => l.args),
        [['shutdown', 'kubelet', 'Kubelet needs time to handle node shutdown', 'delay']],
      );
      assert.equal(
        readFileSync(join(dropinDir, '99-kubelet.conf'), 'utf8'),
        '# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=30\n',
      );
      assert.deepEqual(logind.state.killUnits, [['systemd-logind.service', 'all', 1]]);
      logind.dropOwnCopies();
      assert.equal(logind.released(0), false, 'the agent holds the lock');
      assert.equal(manager.shutdownStatus(), undefined);

      logind.prepareForShutdown(true);
      await until('the first group killed', () => node.stops.length === 2);
      assert.equal(manager.shutdownStatus(), 'node is shutting down');
      assert.deepEqual(manager.admit(), {
        admit: false,
        reason: 'NodeShutdown',
        message: 'Pod was rejected as the node is shutting down.',
      });
      // web's own grace period (5 s) is below its group's 20 s; batch gets the group's; done had finished.
      assert.deepEqual(node.stops.map((s) => [s.id, s.grace]).sort(), [
        ['ctr-uid-batch', 20],
        ['ctr-uid-web', 5],
      ]);
      for (const uid of ['uid-web', 'uid-batch']) {
        const s = node.statuses.get(uid);
        assert.deepEqual(
          [s?.phase, s?.reason, s?.message],
          ['Failed', 'Terminated', 'Pod was terminated in response to imminent node shutdown.'],
        );
        assert.deepEqual(
          s?.conditions.find((c) => c.type === 'DisruptionTarget'),
          {
            type: 'DisruptionTarget',
            status: 'True',
            lastTransitionTime: '2026-01-01T00:00:00.000Z',
            reason: 'TerminationByKubelet',
            message: 'Pod was terminated in response to imminent node shutdown.',
          },
        );
      }
      assert.equal(node.statuses.get('uid-done')?.phase, 'Succeeded');
      assert.equal(
        node.statuses.get('uid-dns')?.phase,
        'Running',
        'critical pods wait for the lower groups',
      );
      assert.equal(logind.released(0), false);

      // batch does not stop in time: the group's 20 s pass, then the critical group goes.
      node.stops.find((s) => s.id === 'ctr-uid-web')?.done();
      await clock.waitForSleepers(1);
      clock.advance(20_000);
      await until('the critical group killed', () => node.stops.length === 3);
      assert.deepEqual([node.stops[2]?.id, node.stops[2]?.grace], ['ctr-uid-dns', 10]);
      assert.equal(node.statuses.get('uid-dns')?.reason, 'Terminated');
      node.stops[2]?.done();
      await manager.idle();
      assert.equal(logind.released(0), true, 'the lock is released once the pods are handled');
      assert.deepEqual(events, ['Shutdown manager detected shutdown event']);
      assert.ok(log.lines.some((l) => l.msg === 'Shutdown manager pod killing time out'));
      // graceful_node_shutdown_state and the gauges: started at the clock's 2026-01-01T00:00:00Z, 20 s later done
      assert.equal(
        readFileSync(join(stateDir, 'graceful_node_shutdown_state'), 'utf8'),
        '{"startTime":"2026-01-01T00:00:00Z","endTime":"2026-01-01T00:00:20Z"}',
      );
      assert.deepEqual(times, ['start=1767225600', 'end=0', 'end=1767225620']);
    } finally {
      stop.abort();
      manager.stop();
      logind.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
);

test(
  'graceful node shutdown: a cancelled shutdown (PrepareForShutdown false) takes the lock again; logind already allowing the period is left alone',
  opts,
  async (t) => {
    const logind = await startFakeLogind(bus, {
      delayUSec: 60_000_000n,
      dropinDir: join(dropinDir, 'untouched'),
    });
    const clock = new ManualClock();
    const events: string[] = [];
    let overrides = 0;
    const stateDir = mkdtempSync(join(tmpdir(), 'nodeagent-shutdown-state-'));
    t.after(() => rmSync(stateDir, { recursive: true, force: true }));
    writeFileSync(
      join(stateDir, 'graceful_node_shutdown_state'),
      '{"startTime":"2025-12-31T23:00:00.5Z","endTime":"0001-01-01T00:00:00Z"}',
    );
    const times: string[] = [];
    const manager = new NodeShutdownManager({
      groups: shutdownGroups(
        [
          { priority: 100000, shutdownGracePeriodSeconds: 10 },
          { priority: 0, shutdownGracePeriodSeconds: 20 },
        ],
        0,
        0,
      ),
      connect: () =>
        DbusLogind.connect({
          address: bus.address,
          who: 'nodeagent',
          why: 'nodeagent needs time to handle node shutdown',
          clock,
          logger: recordingLogger(),
        }),
      overrideInhibitDelay: () => Promise.resolve(void overrides++),
      pods: fakeNode([]).adapter,
      event: (m) => events.push(m),
      state: new ShutdownStateFile(stateDir),
      times: { start: (sec) => times.push(`start=${sec}`), end: (sec) => times.push(`end=${sec}`) },
      clock,
      logger: recordingLogger(),
    });
    const stop = new AbortController();
    try {
      await manager.start(stop.signal);
      assert.deepEqual(
        times,
        ['start=1767222000'],
        'the gauges from the stored state; a zero end time is none',
      );
      assert.equal(overrides, 0);
      assert.deepEqual(logind.state.killUnits, []);
      logind.prepareForShutdown(false);
      await until('a second lock', () => logind.state.inhibits.length === 2);
      await manager.idle();
      logind.dropOwnCopies();
      assert.equal(logind.released(0), true, 'the old lock is closed');
      assert.equal(logind.released(1), false, 'the new one is held');
      assert.deepEqual(events, ['Shutdown manager detected shutdown cancellation']);
      assert.equal(manager.shutdownStatus(), undefined);
    } finally {
      stop.abort();
      manager.stop();
      logind.stop();
    }
  },
);

test('graceful node shutdown: no bus at the address is an error naming it', opts, async () => {
  const address = `unix:path=${join(dropinDir, 'no-such-bus.sock')}`;
  await assert.rejects(
    DbusLogind.connect({
      address,
      who: 'kubelet',
      why: 'x',
      clock: new ManualClock(),
      logger: recordingLogger(),
    }),
    (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `^cannot connect to the system bus at ${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `,
        ),
      );
      return true;
    },
  );
  await assert.rejects(
    DbusLogind.connect({
      address: 'garbage',
      who: 'kubelet',
      why: 'x',
      clock: new ManualClock(),
      logger: recordingLogger(),
    }),
    /^Error: cannot connect to the system bus at "garbage": not a usable D-Bus address/,
  );
});

test(
  'graceful node shutdown: when the bus goes away the watch starts again after 1 s and takes a new lock',
  opts,
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'nodeagent-dbus-again-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const first = await startPrivateBus({ dir });
    const logind1 = await startFakeLogind(first, {
      delayUSec: 60_000_000n,
      dropinDir: join(dir, 'conf'),
    });
    const clock = new ManualClock();
    const log = recordingLogger();
    const manager = new NodeShutdownManager({
      groups: shutdownGroups([], 10_000, 0),
      connect: () =>
        DbusLogind.connect({
          address: first.address.split(',')[0] ?? first.address,
          who: 'nodeagent',
          why: 'nodeagent needs time to handle node shutdown',
          clock,
          logger: log,
        }),
      overrideInhibitDelay: () => Promise.resolve(),
      pods: fakeNode([]).adapter,
      event: () => undefined,
      clock,
      logger: log,
    });
    const stop = new AbortController();
    const later: { bus?: PrivateBus; logind?: FakeLogind } = {};
    t.after(async () => {
      stop.abort();
      manager.stop();
      logind1.stop();
      later.logind?.stop();
      await first.stop();
      await later.bus?.stop();
    });
    await manager.start(stop.signal);
    assert.equal(logind1.state.inhibits.length, 1);
    await first.stop();
    await until('the watch noticed the bus went away', () =>
      log.lines.some((l) => l.msg === 'Ended to watching the node for shutdown events'),
    );
    await clock.waitForSleepers(1);
    clock.advance(1000);
    await until('a failed retry said once', () =>
      log.lines.some(
        (l) => l.msg === 'Unable to watch the node for shutdown events; retrying every second',
      ),
    );
    later.bus = await startPrivateBus({ dir });
    later.logind = await startFakeLogind(later.bus, {
      delayUSec: 60_000_000n,
      dropinDir: join(dir, 'conf'),
    });
    await clock.waitForSleepers(1);
    clock.advance(1000);
    await until(
      'a lock from the new logind',
      () => (later.logind?.state.inhibits.length ?? 0) === 1,
    );
    assert.equal(
      log.lines.filter(
        (l) => l.msg === 'Unable to watch the node for shutdown events; retrying every second',
      ).length,
      1,
    );
  },
);
