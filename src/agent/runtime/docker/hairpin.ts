// --hairpin-mode on Docker, as the reference's Docker integration (dockershim, now cri-dockerd)
// does: promiscuous-bridge works only with kubenet, so it falls back to hairpin-veth (said once);
// hairpin-veth turns hairpin on for the host end of each pod sandbox's veth when that end is a
// bridge port (writes 1 to /sys/class/net/<veth>/brport/hairpin_mode), so a pod can reach itself
// through a Service; none leaves the ports alone. The veth is found without tools: the sandbox's
// own sysfs (/proc/<pid>/root/sys/class/net/eth0/iflink) names the host end's ifindex.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../common/log/types.js';
import { userMessage } from '../../../common/util/errors.js';

export const HAIRPIN_MODES = ['promiscuous-bridge', 'hairpin-veth', 'none'] as const;
export type EffectiveHairpinMode = 'hairpin-veth' | 'none';

/** The reference's effectiveHairpinMode for a Docker node without kubenet. */
export function effectiveHairpinMode(mode: string, logger: Logger): EffectiveHairpinMode {
  if (mode === 'promiscuous-bridge') {
    logger.info(
      { hairpinMode: mode },
      'Hairpin mode is set but kubenet is not enabled, falling back to HairpinVeth',
    );
    return 'hairpin-veth';
  }
  return mode === 'hairpin-veth' ? 'hairpin-veth' : 'none';
}

async function readInt(path: string): Promise<number | undefined> {
  const text = (await readFile(path, 'utf8').catch(() => '')).trim();
  return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
}

/** The host interface with this ifindex, from <sysfsNet>/<name>/ifindex. */
export async function interfaceByIndex(
  sysfsNet: string,
  index: number,
): Promise<string | undefined> {
  for (const name of await readdir(sysfsNet)) {
    if ((await readInt(join(sysfsNet, name, 'ifindex'))) === index) return name;
  }
  return undefined;
}

/** The reference's setUpInterface: hairpin on when the interface is a bridge port. */
export async function enableHairpin(
  sysfsNet: string,
  ifName: string,
): Promise<'enabled' | 'not a bridge port'> {
  await stat(join(sysfsNet, ifName));
  const brport = join(sysfsNet, ifName, 'brport');
  if (
    !(await stat(brport).then(
      () => true,
      () => false,
    ))
  )
    return 'not a bridge port';
  await writeFile(join(brport, 'hairpin_mode'), '1');
  return 'enabled';
}

export interface HairpinVethOptions {
  logger: Logger;
  /** Default /proc. */
  procDir?: string;
  /** Default /sys/class/net. */
  sysfsNet?: string;
  /** The interface inside the sandbox; default eth0 (Docker's bridge network). */
  containerInterface?: string;
}

/** Turns hairpin on for the host end of a started sandbox's veth. */
export class HairpinVeth {
  private readonly o: Required<HairpinVethOptions>;

  constructor(o: HairpinVethOptions) {
    this.o = { procDir: '/proc', sysfsNet: '/sys/class/net', containerInterface: 'eth0', ...o };
  }

  /** Never throws: a failure is logged as the reference logs it and the pod runs on. */
  async sandboxStarted(podName: string, pid: number): Promise<void> {
    try {
      if (!Number.isSafeInteger(pid) || pid <= 0)
        throw new Error(`the sandbox has no process (pid ${pid})`);
      const iflink = join(
        this.o.procDir,
        String(pid),
        'root/sys/class/net',
        this.o.containerInterface,
        'iflink',
      );
      const peer = await readInt(iflink);
      if (peer === undefined)
        throw new Error(`could not read the peer interface index from ${iflink}`);
      const ifName = await interfaceByIndex(this.o.sysfsNet, peer);
      if (ifName === undefined) throw new Error(`no host interface has index ${peer}`);
      const done = await enableHairpin(this.o.sysfsNet, ifName);
      this.o.logger.debug(
        { pod: podName, interfaceName: ifName, result: done },
        'Enabling hairpin on interface',
      );
    } catch (err) {
      this.o.logger.warn({ pod: podName, err: userMessage(err) }, 'Hairpin setup failed for pod');
    }
  }
}
