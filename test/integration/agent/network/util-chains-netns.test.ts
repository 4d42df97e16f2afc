// --make-iptables-util-chains in a network namespace made by the test (root and iptables needed;
// under CI=true both are there): the reference 1.32 kubelet's chains and rules, listed with
// `iptables -S`, made again after the tables are flushed (the canary), and said once when the
// iptables command is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { Iptables } from '../../../../src/agent/network/iptables.js';
import {
  startUtilChains,
  syncUtilChains,
  utilChainNames,
  CANARY_INTERVAL_MS,
} from '../../../../src/agent/network/util-chains.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';

const KUBE = utilChainNames({ product: 'kube', agentWord: 'kubelet' });

function hostProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'root (a network namespace and iptables)';
  for (const tool of ['iptables', 'ip6tables', 'ip'])
    if (spawnSync(tool, ['--version']).error !== undefined) return `the ${tool} command`;
  return undefined;
}
const problem = hostProblem();
const skip =
  problem === undefined
    ? false
    : skipOutsideCi(problem, 'the iptables chains are made in a network namespace');

function netns(t: { after(fn: () => unknown): void }): string {
  const name = `nodeagent-ipt-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  execFileSync('ip', ['netns', 'add', name]);
  t.after(() => execFileSync('ip', ['netns', 'del', name]));
  return name;
}

const lines = (ipt: Iptables, table: 'filter' | 'nat' | 'mangle'): Promise<string[]> =>
  ipt.list(table).then((s) =>
    s
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('-P ')),
  );

test('the names follow the naming profile: KUBE-IPTABLES-HINT, KUBE-FIREWALL, KUBE-KUBELET-CANARY upstream; PLAT-... under the platform profile', () => {
  assert.deepEqual(KUBE, {
    hint: 'KUBE-IPTABLES-HINT',
    firewall: 'KUBE-FIREWALL',
    canary: 'KUBE-KUBELET-CANARY',
  });
  assert.deepEqual(utilChainNames({ product: 'plat', agentWord: 'platlet' }), {
    hint: 'PLAT-IPTABLES-HINT',
    firewall: 'PLAT-FIREWALL',
    canary: 'PLAT-PLATLET-CANARY',
  });
});

test(
  '--make-iptables-util-chains: the reference chains and rules for IPv4 and IPv6, once each however often synced, made again after a flush',
  { skip },
  async (t) => {
    const ns = netns(t);
    const v4 = new Iptables({ protocol: 'IPv4', command: ['ip', 'netns', 'exec', ns, 'iptables'] });
    const v6 = new Iptables({
      protocol: 'IPv6',
      command: ['ip', 'netns', 'exec', ns, 'ip6tables'],
    });
    const clock = new ManualClock();
    const logger = recordingLogger();
    const ac = new AbortController();
    const loops = await startUtilChains({
      clients: [v4, v6],
      chains: KUBE,
      clock,
      logger,
      signal: ac.signal,
    });
    t.after(async () => {
      ac.abort();
      await Promise.all(loops);
    });
    assert.deepEqual(
      logger.lines
        .filter((l) => l.level === 'info')
        .map((l) => `${l.msg} ${String(l.fields.protocol)}`),
      ['Initialized iptables rules. IPv4', 'Initialized iptables rules. IPv6'],
    );
    const filter = [
      '-N KUBE-FIREWALL',
      '-N KUBE-KUBELET-CANARY',
      '-A INPUT -j KUBE-FIREWALL',
      '-A OUTPUT -j KUBE-FIREWALL',
      '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
    ];
    assert.deepEqual(await lines(v4, 'filter'), filter);
    assert.deepEqual(await lines(v4, 'mangle'), [
      '-N KUBE-IPTABLES-HINT',
      '-N KUBE-KUBELET-CANARY',
    ]);
    assert.deepEqual(await lines(v4, 'nat'), ['-N KUBE-KUBELET-CANARY']);
    assert.deepEqual(await lines(v6, 'mangle'), [
      '-N KUBE-IPTABLES-HINT',
      '-N KUBE-KUBELET-CANARY',
    ]);
    assert.deepEqual(
      await lines(v6, 'filter'),
      ['-N KUBE-KUBELET-CANARY'],
      'IPv6 has no firewall chain',
    );
    await syncUtilChains(v4, KUBE);
    assert.deepEqual(await lines(v4, 'filter'), filter, 'a second sync adds nothing');
    // A firewall reload: every table flushed and its chains deleted.
    for (const table of ['filter', 'nat', 'mangle']) {
      await v4.run(['-t', table, '-F']);
      await v4.run(['-t', table, '-X']);
    }
    assert.deepEqual(await lines(v4, 'filter'), []);
    await clock.waitForSleepers(2);
    clock.advance(CANARY_INTERVAL_MS);
    await waitFor(
      async () => (await lines(v4, 'filter')).length === filter.length,
      'the rules made again',
      10_000,
      50,
    );
    assert.deepEqual(await lines(v4, 'filter'), filter);
    assert.deepEqual(await lines(v4, 'mangle'), [
      '-N KUBE-IPTABLES-HINT',
      '-N KUBE-KUBELET-CANARY',
    ]);
    assert.ok(
      logger.lines.some(
        (l) => l.msg.startsWith('iptables canary chain deleted') && l.fields.protocol === 'IPv4',
      ),
    );
  },
);

test('without the iptables command the agent says once per protocol that it could not, as the reference', async () => {
  const logger = recordingLogger();
  const missing = (protocol: 'IPv4' | 'IPv6'): Iptables =>
    new Iptables({ protocol, command: ['/nonexistent/nodeagent-test/iptables'] });
  const loops = await startUtilChains({
    clients: [missing('IPv4'), missing('IPv6')],
    chains: KUBE,
    clock: new ManualClock(),
    logger,
    signal: new AbortController().signal,
  });
  assert.deepEqual(loops, []);
  const infos = logger.lines.filter((l) => l.level === 'info');
  assert.deepEqual(
    infos.map((l) => `${l.msg} ${String(l.fields.protocol)}`),
    [
      'Failed to initialize iptables rules; some functionality may be missing. IPv4',
      'Failed to initialize iptables rules; some functionality may be missing. IPv6',
    ],
  );
  const errors = logger.lines.filter((l) => l.level === 'error');
  assert.equal(errors.length, 2);
  assert.match(
    String(errors[0]?.fields.err),
    /^Failed to ensure that iptables hint chain exists: .*\/nonexistent\/nodeagent-test\/iptables is not installed$/,
  );
});
