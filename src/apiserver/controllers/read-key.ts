// How a controller reads the object a queued key names: a NotFound means it is gone (nothing to
// do); every other error (storage, decryption) is thrown so the work queue logs it and retries
// the key with back-off, instead of dropping the object without a word.

import type { Registry } from '../registry/registry.js';
import type { Obj, ResourceDef } from '../registry/types.js';
import { StatusError } from '../status.js';

export async function getUnlessGone(
  registry: Pick<Registry, 'get'>,
  def: ResourceDef,
  name: string,
): Promise<Obj | undefined> {
  try {
    return await registry.get(def, '', name);
  } catch (err) {
    if (err instanceof StatusError && err.status === 404) return undefined;
    throw err;
  }
}
