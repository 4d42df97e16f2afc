// The CRI ImageService behind the agent's ImageService: ImageStatus for the pull policies,
// PullImage with the pod's pull-secret auths, then the credential providers' (each in turn until
// one works, as the Docker
// adapter does), --serialize-image-pulls / maxParallelImagePulls and --registry-qps /
// --registry-burst,
// ListImages and RemoveImage for image GC, ImageFsInfo for eviction. A pull failure is
// ErrImagePull with the runtime's message (the pod workers back off to ImagePullBackOff).
import { statfs } from 'node:fs/promises';
import type { Clock } from '../../../common/util/clock.js';
import { TokenBucket } from '../../../common/util/token-bucket.js';
import type { ImageCredentialSource, RegistryAuth } from '../credentials/keyring.js';
import { ensureImageWith } from '../ensure-image.js';
import { PullQueue } from '../docker/pull-queue.js';
import type { EnsuredImage, ImageFsInfo, ImageInfo, ImageService } from '../types.js';
import type { CriClient } from './client.js';
import type { AuthConfig } from './types.generated.js';

export interface CriImagesOptions {
  client: CriClient;
  clock: Clock;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  credentials?: ImageCredentialSource;
}

const authOf = (a: RegistryAuth): AuthConfig => ({
  username: a.username,
  password: a.password,
  server_address: a.serveraddress,
});

const finiteOr0 = (n: number | undefined): number =>
  n !== undefined && Number.isFinite(n) && n >= 0 ? n : 0;

export class CriImages implements ImageService {
  private readonly pulls: PullQueue;
  private readonly limiter: TokenBucket | undefined;

  constructor(private readonly o: CriImagesOptions) {
    this.pulls = new PullQueue({
      serialize: o.serializeImagePulls,
      ...(o.maxParallelImagePulls !== undefined ? { maxParallel: o.maxParallelImagePulls } : {}),
    });
    this.limiter =
      o.registryPullQPS > 0
        ? new TokenBucket({
            qps: o.registryPullQPS,
            burst: Math.max(1, o.registryBurst),
            clock: o.clock,
          })
        : undefined;
  }

  /** The image's id and size (ImageStatus), or undefined when the runtime does not have it. */
  async inspect(image: string): Promise<{ id: string; sizeBytes: number } | undefined> {
    const r = await this.o.client.call('ImageService/ImageStatus', { image: { image } });
    const id = r.image?.id;
    return id === undefined || id === '' ? undefined : { id, sizeBytes: finiteOr0(r.image?.size) };
  }

  private async pullOnce(image: string, auth?: RegistryAuth): Promise<string> {
    await this.limiter?.acquire();
    const r = await this.o.client.call(
      'ImageService/PullImage',
      { image: { image }, ...(auth !== undefined ? { auth: authOf(auth) } : {}) },
      { noDeadline: true },
    );
    return r.image_ref ?? '';
  }

  /** Pulls with each auth in turn; resolves to how long it took once it had a pull slot (ms). */
  private pull(image: string, secrets: readonly RegistryAuth[]): Promise<number> {
    return this.pulls.run(async () => {
      const t0 = this.o.clock.nowMs();
      await this.pullWithAuths(image, secrets);
      return this.o.clock.nowMs() - t0;
    });
  }

  private async pullWithAuths(image: string, secrets: readonly RegistryAuth[]): Promise<string> {
    const auths = [...secrets, ...((await this.o.credentials?.lookup(image)) ?? [])];
    if (auths.length === 0) return this.pullOnce(image);
    let last: unknown;
    for (const auth of auths) {
      try {
        return await this.pullOnce(image, auth);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  ensureImage(
    image: string,
    policy: 'Always' | 'IfNotPresent' | 'Never',
    credentials: readonly RegistryAuth[] = [],
    onPulling?: () => void,
  ): Promise<EnsuredImage> {
    return ensureImageWith(
      { inspect: (i) => this.inspect(i), pull: (i, c) => this.pull(i, c) },
      image,
      policy,
      credentials,
      onPulling,
    );
  }

  async listImages(): Promise<ImageInfo[]> {
    const r = await this.o.client.call('ImageService/ListImages', {});
    return (r.images ?? [])
      .filter((i) => i.id !== undefined && i.id !== '')
      .map((i) => ({
        id: i.id ?? '',
        tags: i.repo_tags ?? [],
        sizeBytes: finiteOr0(i.size),
        // CRI gives no creation time of an image
        createdAtMs: 0,
      }));
  }

  async removeImage(id: string): Promise<void> {
    await this.o.client.call('ImageService/RemoveImage', { image: { image: id } });
  }

  /** The image file system's use from ImageFsInfo, its capacity from statfs of its mount point. */
  async imageFsInfo(): Promise<ImageFsInfo | undefined> {
    const r = await this.o.client.call('ImageService/ImageFsInfo', {});
    const fs = r.image_filesystems?.[0];
    const mount = fs?.fs_id?.mountpoint;
    if (fs === undefined || mount === undefined || mount === '') return undefined;
    const s = await statfs(mount).catch(() => undefined);
    if (s === undefined) return undefined;
    const capacityBytes = s.blocks * s.bsize;
    const used = fs.used_bytes?.value;
    return {
      capacityBytes,
      usedBytes:
        used !== undefined
          ? Math.min(finiteOr0(used), capacityBytes)
          : capacityBytes - s.bavail * s.bsize,
      ...(s.files > 0 ? { inodes: s.files, inodesFree: s.ffree } : {}),
    };
  }
}
