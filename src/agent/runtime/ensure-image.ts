// The image pull policy as the reference's image manager applies it, for every runtime that pulls:
// a present image is used unless the policy is Always; Never without the image is
// ErrImageNeverPull; a failed pull is ErrImagePull with the reference's message. What it did
// (present, or pulled in how long and how big) goes back to the caller, which reports it on the pod.
import { userMessage } from '../../common/util/errors.js';
import type { RegistryAuth } from './credentials/keyring.js';
import { ImagePullError, type EnsuredImage } from './types.js';

/** What a runtime's image service lends the policy: its image lookup and its pull. */
export interface ImageStore {
  /** The image's ID and size (0 when the runtime does not say), or undefined when absent. */
  inspect(image: string): Promise<{ id: string; sizeBytes: number } | undefined>;
  /** Pulls; resolves to how long the pull took once it had a pull slot (ms). */
  pull(image: string, credentials: readonly RegistryAuth[]): Promise<number>;
}

/** The image's ID after the policy has been applied (pulling when it says so). */
export async function ensureImageWith(
  store: ImageStore,
  image: string,
  policy: 'Always' | 'IfNotPresent' | 'Never',
  credentials: readonly RegistryAuth[],
  onPulling?: () => void,
): Promise<EnsuredImage> {
  if (policy !== 'Always') {
    const present = await store.inspect(image);
    if (present !== undefined) return { id: present.id };
    if (policy === 'Never')
      throw new ImagePullError(
        'ErrImageNeverPull',
        `Container image "${image}" is not present with pull policy of Never`,
      );
  }
  onPulling?.();
  let durationMs: number;
  try {
    durationMs = await store.pull(image, credentials);
  } catch (err) {
    throw new ImagePullError(
      'ErrImagePull',
      `failed to pull image "${image}": ${userMessage(err)}`,
      {
        cause: err,
      },
    );
  }
  const pulled = await store.inspect(image);
  if (pulled === undefined)
    throw new ImagePullError('ErrImagePull', `image "${image}" is missing after pulling it`);
  return { id: pulled.id, pulled: { durationMs, sizeBytes: pulled.sizeBytes } };
}
