// The node's network utilities: with --make-iptables-util-chains (makeIPTablesUtilChains) the
// reference's iptables chains for IPv4 and IPv6, watched through their canary until the agent
// stops.
import { Iptables } from '../../network/iptables.js';
import { startUtilChains, utilChainNames } from '../../network/util-chains.js';
import type { ServicesContext } from './context.js';

export function startNetworkUtil(ctx: ServicesContext): void {
  if (!ctx.config.makeIPTablesUtilChains) return;
  const logger = ctx.logger.child({ part: 'network' });
  const clients = [new Iptables({ protocol: 'IPv4' }), new Iptables({ protocol: 'IPv6' })];
  ctx.loops.push(
    startUtilChains({
      clients,
      chains: utilChainNames(ctx.names),
      clock: ctx.clock,
      logger,
      signal: ctx.signal,
    }).then((loops) => Promise.all(loops)),
  );
}
