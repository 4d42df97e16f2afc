// SecretReader over the store: the bootstrap token authenticator reads its Secrets as stored
// (decrypted), so it is built over the store, before the registry and the server.

import type { ResourceDef } from '../registry/types.js';
import { storageKey } from '../registry/keys.js';
import type { Store } from '../storage/store.js';
import type { SecretReader } from './bootstrap-token.js';

export class StoreSecrets implements SecretReader {
  private readonly store: Store;
  private readonly def: ResourceDef;

  constructor(o: { store: Store; secretDef: ResourceDef }) {
    this.store = o.store;
    this.def = o.secretDef;
  }

  async getSecret(namespace: string, name: string): Promise<Record<string, unknown> | undefined> {
    const key = storageKey(this.def, namespace, name);
    const raw = this.store.getRaw(key);
    return raw === undefined ? undefined : this.store.decode(key, raw.rv, raw.value);
  }
}
