// --make-iptables-util-chains, as the reference 1.32's kubelet
// (pkg/kubelet/kubelet_network_linux.go)
// does for IPv4 and IPv6: the hint chain in mangle (<P>-IPTABLES-HINT, so other components see
// whether iptables-legacy or iptables-nft is in use), and for IPv4 the <P>-FIREWALL chain in
// filter, jumped to first from INPUT and OUTPUT, dropping non-local packets to 127.0.0.0/8 that
// are not part of a forwarded connection. A canary chain (<P>-<AGENT>-CANARY) in mangle, nat and
// filter is checked every minute; when it is gone (a firewall reload flushed the tables) the
// rules are made again. <P> and <AGENT> are the naming profile's words (KUBE, KUBELET upstream).
// Since the reference's iptables ownership cleanup (1.28) the kubelet makes no KUBE-MARK-DROP,
// KUBE-MARK-MASQ or KUBE-POSTROUTING chains, so iptablesMasqueradeBit and iptablesDropBit are
// only validated.
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { runEvery } from '../../common/util/every.js';
import { userMessage } from '../../common/util/errors.js';
import type { Iptables, IptablesTable } from './iptables.js';

export interface UtilChainNames {
  hint: string;
  firewall: string;
  canary: string;
}

/** The chain names under a naming profile: `kube`/`kubelet` give the reference's exactly. */
export function utilChainNames(names: { product: string; agentWord: string }): UtilChainNames {
  const p = names.product.toUpperCase();
  return {
    hint: `${p}-IPTABLES-HINT`,
    firewall: `${p}-FIREWALL`,
    canary: `${p}-${names.agentWord.toUpperCase()}-CANARY`,
  };
}

const CANARY_TABLES: readonly IptablesTable[] = ['mangle', 'nat', 'filter'];
/** The reference's Monitor interval. */
export const CANARY_INTERVAL_MS = 60_000;

/** The reference's syncIPTablesRules; throws with the step that failed. */
export async function syncUtilChains(ipt: Iptables, chains: UtilChainNames): Promise<void> {
  const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      throw new Error(`${what}: ${userMessage(err)}`, { cause: err });
    }
  };
  await step('Failed to ensure that iptables hint chain exists', () =>
    ipt.ensureChain('mangle', chains.hint),
  );
  if (ipt.isIPv6()) return; // ipv6 doesn't have the localnet issue
  await step(`Failed to ensure that filter table ${chains.firewall} chain exists`, () =>
    ipt.ensureChain('filter', chains.firewall),
  );
  await step(`Failed to ensure that OUTPUT chain jumps to ${chains.firewall}`, () =>
    ipt.ensureRule('prepend', 'filter', 'OUTPUT', ['-j', chains.firewall]),
  );
  await step(`Failed to ensure that INPUT chain jumps to ${chains.firewall}`, () =>
    ipt.ensureRule('prepend', 'filter', 'INPUT', ['-j', chains.firewall]),
  );
  await step(
    `Failed to ensure rule to drop invalid localhost packets in filter table ` +
      `${chains.firewall} chain`,
    () =>
      ipt.ensureRule('append', 'filter', chains.firewall, [
        '-m',
        'comment',
        '--comment',
        'block incoming localnet connections',
        '--dst',
        '127.0.0.0/8',
        '!',
        '--src',
        '127.0.0.0/8',
        '-m',
        'conntrack',
        '!',
        '--ctstate',
        'RELATED,ESTABLISHED,DNAT',
        '-j',
        'DROP',
      ]),
  );
}

async function ensureCanaries(ipt: Iptables, canary: string): Promise<void> {
  for (const t of CANARY_TABLES) await ipt.ensureChain(t, canary);
}

async function canaryGone(ipt: Iptables, canary: string): Promise<boolean> {
  for (const t of CANARY_TABLES) if (!(await ipt.chainExists(t, canary))) return true;
  return false;
}

export interface UtilChainsOptions {
  clients: readonly Iptables[];
  chains: UtilChainNames;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}

/** Syncs one protocol, logging as the reference; false when it failed. */
async function syncOnce(ipt: Iptables, o: UtilChainsOptions): Promise<boolean> {
  try {
    await syncUtilChains(ipt, o.chains);
    await ensureCanaries(ipt, o.chains.canary);
    return true;
  } catch (err) {
    o.logger.error(
      { protocol: ipt.protocol, err: userMessage(err) },
      'iptables rules could not be ensured',
    );
    return false;
  }
}

/** initNetworkUtil: each protocol synced once, then watched through its canary until `signal`. */
export async function startUtilChains(o: UtilChainsOptions): Promise<Promise<void>[]> {
  const loops: Promise<void>[] = [];
  for (const ipt of o.clients) {
    if (!(await syncOnce(ipt, o))) {
      o.logger.info(
        { protocol: ipt.protocol },
        'Failed to initialize iptables rules; some functionality may be missing.',
      );
      continue;
    }
    o.logger.info({ protocol: ipt.protocol }, 'Initialized iptables rules.');
    loops.push(
      runEvery({
        clock: o.clock,
        ms: CANARY_INTERVAL_MS,
        signal: o.signal,
        run: async () => {
          if (!(await canaryGone(ipt, o.chains.canary))) return;
          o.logger.info(
            { protocol: ipt.protocol, canary: o.chains.canary },
            'iptables canary chain deleted (the tables were flushed): making the rules again',
          );
          await syncOnce(ipt, o);
        },
        onError: (err) =>
          o.logger.warn(
            { protocol: ipt.protocol, err: userMessage(err) },
            'iptables canary check failed; trying again next period',
          ),
      }),
    );
  }
  return loops;
}
