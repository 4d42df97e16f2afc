// Writes each pod's resolv.conf under <root-dir>/pods/<uid>/resolv.conf, from which the Docker
// runtime bind-mounts /etc/resolv.conf and process:// points NODEAGENT_RESOLV_CONF.
import type { Logger } from '../../../common/log/types.js';
import { writeFileAtomic } from '../../../common/util/atomic-file.js';
import { joinUnder, mkdirUnder, pathForWrite } from '../../../common/util/safe-path.js';
import type { Pod } from '../../pod/types.js';
import { podDnsConfig, type DnsWarning, type PodDnsSettings } from './pod-dns.js';
import { formatResolvConf, readResolvConf, type DnsConfig } from './resolv-conf.js';

export const RESOLV_CONF_ENV = 'NODEAGENT_RESOLV_CONF';

export interface PodDnsFilesOptions {
  rootDir: string;
  settings: PodDnsSettings;
  logger: Logger;
  /** Where the reference records an event; the log line is written either way. */
  onWarning?: (pod: Pod, w: DnsWarning) => void;
}

export class PodDnsFiles {
  private readonly opts: PodDnsFilesOptions;

  constructor(opts: PodDnsFilesOptions) {
    this.opts = opts;
  }

  private async hostConfig(): Promise<DnsConfig> {
    const path = this.opts.settings.resolvConf;
    if (path === '') return { servers: [], searches: [], options: [] };
    return readResolvConf(path);
  }

  /** The path of the pod's resolv.conf, written afresh. */
  async write(pod: Pod): Promise<string> {
    const log = this.opts.logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
    const warn = (w: DnsWarning): void => {
      log.warn({ reason: w.reason }, w.message);
      this.opts.onWarning?.(pod, w);
    };
    const cfg = podDnsConfig(pod, await this.hostConfig(), this.opts.settings, warn);
    await mkdirUnder(this.opts.rootDir, ['pods', pod.metadata.uid], 0o750);
    const path = await pathForWrite(this.opts.rootDir, 'pods', pod.metadata.uid, 'resolv.conf');
    // readable by the container's user, whoever it is: it holds nothing secret
    await writeFileAtomic(path, formatResolvConf(cfg), { mode: 0o644 });
    return path;
  }

  get clusterDomain(): string {
    return this.opts.settings.clusterDomain;
  }

  pathOf(pod: Pod): string {
    return joinUnder(this.opts.rootDir, 'pods', pod.metadata.uid, 'resolv.conf');
  }
}
