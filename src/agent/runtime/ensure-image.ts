// The image pull policy as the reference's image manager applies it, for every runtime that pulls:
// a present image is used unless the policy is Always; Never without the image is
// ErrImageNeverPull; a failed pull is ErrImagePull with the reference's message.
import { userMessage } from '../../common/util/errors.js';
import type { RegistryAuth } from './credentials/keyring.js';
import { ImagePullError } from './types.js';

/** What a runtime's image service lends the policy: its image lookup and its pull. */
export interface ImageStore {
  imageId(image: string): Promise<string | undefined>;
  pull(image: string, credentials: readonly RegistryAuth[]): Promise<unknown>;
}

/** The image's ID after the policy has been applied (pulling when it says so). */
export async function ensureImageWith(
  store: ImageStore,
  image: string,
  policy: 'Always' | 'IfNotPresent' | 'Never',
  credentials: readonly RegistryAuth[],
): Promise<string> {
  if (policy !== 'Always') {
    const id = await store.imageId(image);
    if (id !== undefined) return id;
    if (policy === 'Never')
      throw new ImagePullError(
        'ErrImageNeverPull',
        `Container image "${image}" is not present with pull policy of Never`,
      );
  }
  try {
    await store.pull(image, credentials);
  } catch (err) {
    throw new ImagePullError(
      'ErrImagePull',
      `failed to pull image "${image}": ${userMessage(err)}`,
      {
        cause: err,
      },
    );
  }
  const id = await store.imageId(image);
  if (id === undefined)
    throw new ImagePullError('ErrImagePull', `image "${image}" is missing after pulling it`);
  return id;
}
