// The pod volumes the agent sets up itself, before a pod's containers start and again at every
// sync of the pod: emptyDir (0777, medium Memory on tmpfs), hostPath (its type checked),
// configMap, secret, downwardAPI and projected (written by the atomic writer, secret, downwardAPI
// and projected on tmpfs, fsGroup applied); FlexVolume plugins through flexvolume.ts. A volume
// that fails is reported as the reference reports it (a FailedMount event `MountVolume.SetUp
// failed for volume "x" : <why>`); the pod waits while a volume has never been set up, and a
// running pod keeps the last content when a later refresh fails. Removing the pod unmounts every
// mount under its volumes directory and forgets its objects and tokens; the directories of pods
// gone while the agent was down are cleaned at housekeeping (orphaned-pod-dirs.ts).
import type { Logger } from '../../common/log/types.js';
import { parseQuantity } from '../../common/util/values/quantity.js';
import { joinUnder, mkdirUnder } from '../../common/util/safe-path.js';
import { userMessage } from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import type { PodObjects } from '../objects/types.js';
import type { Container, Pod, Volume } from '../pod/types.js';
import { writeAtomic } from './atomic-writer.js';
import { containerMounts } from './container-mounts.js';
import type { ContainerMount } from '../runtime/types.js';
import type { NodeAllocatable } from './downward-api.js';
import { setupVolumeDir, tmpfsSize } from './empty-dir.js';
import { checkHostPathType } from './host-path.js';
import type { Mounter } from './mounts.js';
import { OrphanedPodDirs } from './orphaned-pod-dirs.js';
import { setVolumeOwnership } from './ownership.js';
import { isMemoryBacked, volumePayload, type PayloadContext } from './payloads.js';
import type { TokenManager } from './token-manager.js';

/** What the manager asks of the FlexVolume plugins (flexvolume.ts). */
export interface FlexPlugins {
  path(pod: Pod, v: Volume): string | undefined;
  setUp(pod: Pod): Promise<void>;
  tearDown(pod: Pod): Promise<void>;
  /** The driver's unmount of a volume whose pod is gone (orphaned-pod-dirs.ts). */
  unmountOrphan(volumeDir: string): Promise<void>;
}

/** Where FailedMount events go (the event recorder, bound once it runs). */
export interface VolumeEvents {
  failedMount(pod: Pod, message: string): void;
}

export interface VolumeManagerOptions {
  rootDir: string;
  mounter: Mounter;
  clock: Clock;
  logger: Logger;
  flex?: FlexPlugins;
  objects?: PodObjects;
  tokens?: TokenManager;
  /** Until the node status reports it (setAllocatable): the machine's cores and memory. */
  allocatable: NodeAllocatable;
  trustAnchors: PayloadContext['trustAnchors'];
}

/** A volume that has never been set up: the pod cannot start. */
export class VolumeSetUpError extends Error {}

export class PodVolumeManager {
  private events: VolumeEvents | undefined;
  private allocatable: NodeAllocatable;
  /** Volumes set up at least once, per pod UID. */
  private readonly ready = new Map<string, Set<string>>();
  private readonly orphans: OrphanedPodDirs;

  constructor(private readonly o: VolumeManagerOptions) {
    this.allocatable = o.allocatable;
    this.orphans = new OrphanedPodDirs({
      rootDir: o.rootDir,
      mounts: o.mounter,
      ...(o.flex !== undefined ? { flex: o.flex } : {}),
      logger: o.logger,
    });
  }

  /** The node's allocatable (cpu in cores, the rest in bytes), as the node status computes it. */
  setAllocatable(allocatable: Readonly<Record<string, string>>): void {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(allocatable)) {
      try {
        out[k] = parseQuantity(v).value;
      } catch {
        // a quantity the node status made is well formed; anything else is left out
      }
    }
    this.allocatable = out;
  }

  /**
   * The node's allocatable as last set (the downward API's unset limits; the environment's too).
   */
  nodeAllocatable(): NodeAllocatable {
    return this.allocatable;
  }

  /**
   * The ConfigMap/Secret manager the volumes read through (undefined without an API server), for
   * the other parts of a pod's sync (the environment): the pod is registered with it at the start
   * of every sync, before its containers are made.
   */
  get objects(): PodObjects | undefined {
    return this.o.objects;
  }

  /** Stops the object manager's watches. */
  stop(): void {
    this.o.objects?.stop();
  }

  setEvents(events: VolumeEvents): void {
    this.events = events;
  }

  /** The host directory (or file) of a volume, as the containers' mounts take it. */
  path(pod: Pod, v: Volume): string {
    if (v.hostPath) return v.hostPath.path;
    const flex = this.o.flex?.path(pod, v);
    if (flex !== undefined) return flex;
    return joinUnder(this.o.rootDir, 'pods', pod.metadata.uid, 'volumes', v.name);
  }

  /** Sets up (or refreshes) every volume of the pod; throws when one never could be. */
  async setUp(pod: Pod): Promise<void> {
    this.o.objects?.registerPod(pod);
    await this.o.flex?.setUp(pod);
    const ready = this.ready.get(pod.metadata.uid) ?? new Set<string>();
    this.ready.set(pod.metadata.uid, ready);
    const never: string[] = [];
    for (const v of pod.spec.volumes ?? []) {
      const first = !ready.has(v.name);
      try {
        await this.setUpVolume(pod, v, first);
        ready.add(v.name);
      } catch (err) {
        const message = `MountVolume.SetUp failed for volume "${v.name}" : ${userMessage(err)}`;
        this.o.logger.warn({ pod: `${pod.metadata.namespace}/${pod.metadata.name}` }, message);
        this.events?.failedMount(pod, message);
        if (first) never.push(message);
      }
    }
    if (never.length > 0) throw new VolumeSetUpError(never.join('; '));
  }

  private async setUpVolume(pod: Pod, v: Volume, first: boolean): Promise<void> {
    if (v.hostPath) {
      if (first) await checkHostPathType(v.hostPath.path, v.hostPath.type);
      return;
    }
    if (v.flexVolume) return;
    const ctx: PayloadContext = {
      objects: this.o.objects,
      tokens: this.o.tokens,
      allocatable: () => this.allocatable,
      trustAnchors: this.o.trustAnchors,
    };
    // the files are gathered before anything is made, so a missing object mounts nothing
    const payload = await volumePayload(ctx, pod, v);
    if (payload === undefined && !v.emptyDir) return;
    if (v.emptyDir?.medium !== undefined && !['', 'Memory'].includes(v.emptyDir.medium))
      throw new Error(
        `emptyDir medium "${v.emptyDir.medium}" is not supported by this agent (it ` +
          `manages no huge pages)`,
      );
    if (payload === undefined && !first) return;
    await mkdirUnder(this.o.rootDir, ['pods', pod.metadata.uid, 'volumes']);
    const dir = this.path(pod, v);
    const memory = isMemoryBacked(v)
      ? { sizeBytes: tmpfsSize(pod, v.emptyDir?.sizeLimit, this.allocatable['memory']) }
      : undefined;
    await setupVolumeDir(dir, memory, this.o.mounter);
    const fsGroup = pod.spec.securityContext?.fsGroup;
    if (payload === undefined) {
      await setVolumeOwnership(dir, fsGroup, false);
      return;
    }
    await writeAtomic(dir, payload, {
      clock: this.o.clock,
      setPerms: () => setVolumeOwnership(dir, fsGroup, true),
    });
  }

  /** The container's mounts (subPath, read-only, propagation) for the runtime. */
  containerMounts(
    pod: Pod,
    c: Container,
    env: Readonly<Record<string, string>>,
  ): Promise<ContainerMount[]> {
    return containerMounts(pod, c, env, (v) => this.path(pod, v));
  }

  /** Unmounts the pod's volumes (FlexVolume first, then every mount under its volumes dir). */
  async tearDown(pod: Pod): Promise<void> {
    await this.o.flex?.tearDown(pod);
    const dir = joinUnder(this.o.rootDir, 'pods', pod.metadata.uid, 'volumes');
    for (const m of await this.o.mounter.mountsUnder(dir)) await this.o.mounter.unmount(m);
    this.o.objects?.unregisterPod(pod);
    this.o.tokens?.forgetPod(pod.metadata.uid);
    this.ready.delete(pod.metadata.uid);
  }

  /**
   * Housekeeping: unmounts the volumes and removes the directories of the pods for which `keep`
   * is false (left by an agent stopped without tearing its pods down).
   */
  cleanupOrphans(keep: (uid: string) => boolean): Promise<void> {
    return this.orphans.cleanup(keep);
  }
}
