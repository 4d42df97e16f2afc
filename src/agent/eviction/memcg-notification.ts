// --kernel-memcg-notification: memory notifications from the kernel, so the eviction manager
// observes at once instead of at the end of its 10 s interval. The reference (1.32) registers an
// eventfd on memory.usage_in_bytes through cgroup.event_control on cgroup v1 and has no notifier on
// cgroup v2. Here, on cgroup v2, the pods' cgroup's memory.events is watched (inotify works on
// cgroupfs v2 files: the kernel notifies when its high, max, oom or oom_kill counters move); on
// cgroup v1 the eventfd cannot be had (Node.js cannot create one without a native addon and no
// maintained npm package provides it), which the agent says once at start.
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Threshold } from './thresholds.js';

export const MEMCG_OPTION = '--kernel-memcg-notification';
export const CGROUP_V1_REASON =
  'on cgroup v1 memory threshold notifications need an eventfd registered in ' +
  'cgroup.event_control, and Node.js cannot create an eventfd (no native addon is used)';
export const FALLBACK_EFFECT =
  'memory eviction thresholds are observed every 10s, as without the option';

export interface MemcgNotificationOptions {
  enabled: boolean;
  thresholds: readonly Threshold[];
  /** The cgroup file system; default /sys/fs/cgroup. */
  cgroupFs?: string;
  /**
   * The pods' top-level cgroup under it (`/kubepods`, `/kubepods.slice`): its memory.events is
   * watched.
   */
  podsCgroup: string;
  /** Told each notification (the eviction manager's wake). */
  onNotify: (reason: string) => void;
  logger: Logger;
  signal: AbortSignal;
}

/** The counters of a memory.events file ("low 0\nhigh 3\n..."), bounded. */
export function parseMemoryEvents(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.slice(0, 4096).split('\n')) {
    const m = /^([a-z_]{1,32}) (\d{1,20})$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) out.set(m[1], Number(m[2]));
  }
  return out;
}

function changed(before: Map<string, number>, after: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [k, v] of after)
    if (v !== (before.get(k) ?? 0)) out.push(`${k} ${before.get(k) ?? 0}->${v}`);
  return out;
}

function cannot(o: MemcgNotificationOptions, reason: string): void {
  o.logger.warn(
    { option: MEMCG_OPTION, reason, effect: FALLBACK_EFFECT },
    `${MEMCG_OPTION} cannot take effect on this host: ${reason}; ${FALLBACK_EFFECT}`,
  );
}

/** Watches memory.events; each change of its counters is one notification. */
async function watchMemoryEvents(file: string, o: MemcgNotificationOptions): Promise<void> {
  let last = parseMemoryEvents(await readFile(file, 'utf8'));
  let reading = Promise.resolve();
  const onChange = (): void => {
    reading = reading.then(async () => {
      const now = parseMemoryEvents(await readFile(file, 'utf8').catch(() => ''));
      const diff = changed(last, now);
      last = now;
      if (diff.length > 0)
        o.onNotify(
          `eviction manager: memory.events of ${file} changed (${diff.join(', ')}): ` +
            `observing at once`,
        );
    });
  };
  let watcher: FSWatcher;
  try {
    watcher = watch(file, { persistent: false }, onChange);
  } catch (err) {
    cannot(o, `${file} cannot be watched (${userMessage(err)})`);
    return;
  }
  watcher.on('error', (err) => {
    o.logger.warn(
      { option: MEMCG_OPTION, file, err: userMessage(err) },
      `${MEMCG_OPTION}: watching ${file} failed; ${FALLBACK_EFFECT}`,
    );
    watcher.close();
  });
  o.signal.addEventListener('abort', () => watcher.close(), { once: true });
  o.logger.info(
    { notifier: `memory.events of ${file}` },
    'Eviction manager: created memoryThresholdNotifier',
  );
}

/** Starts the notifications, or says once why they cannot be had. */
export async function startMemcgNotification(o: MemcgNotificationOptions): Promise<void> {
  if (!o.enabled || o.signal.aborted) return;
  if (!o.thresholds.some((t) => t.signal === 'memory.available')) {
    o.logger.info(
      { option: MEMCG_OPTION },
      `${MEMCG_OPTION}: no memory.available eviction threshold is set, so there is ` +
        `nothing to be notified of`,
    );
    return;
  }
  const fs = o.cgroupFs ?? '/sys/fs/cgroup';
  if (!existsSync(join(fs, 'cgroup.controllers'))) {
    cannot(o, CGROUP_V1_REASON);
    return;
  }
  const file = join(fs, o.podsCgroup, 'memory.events');
  if (!existsSync(file)) {
    cannot(o, `${file} does not exist (the pods' cgroup is made with --cgroups-per-qos)`);
    return;
  }
  await watchMemoryEvents(file, o);
}
