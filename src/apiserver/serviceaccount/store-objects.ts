// What the service-account token authenticator and the ServiceAccount admission plugin read,
// over the store: service accounts, pods, secrets and nodes as stored (decrypted, never through
// admission), so it is built before the registry whose admission and authentication use it.

import type { ServiceAccountObjects } from '../authn/service-account.js';
import type { ServiceAccountGetter } from '../admission/service-account.js';
import { storageKey } from '../registry/keys.js';
import type { Obj, ResourceDef } from '../registry/types.js';
import type { Store } from '../storage/store.js';

export interface ServiceAccountDefs {
  readonly serviceAccount: ResourceDef;
  readonly pod: ResourceDef;
  readonly secret: ResourceDef;
  readonly node: ResourceDef;
}

export class StoreServiceAccountObjects implements ServiceAccountObjects, ServiceAccountGetter {
  private readonly store: Store;
  private readonly defs: ServiceAccountDefs;

  constructor(o: { store: Store; defs: ServiceAccountDefs }) {
    this.store = o.store;
    this.defs = o.defs;
  }

  private async read(def: ResourceDef, namespace: string, name: string): Promise<Obj | undefined> {
    const key = storageKey(def, namespace, name);
    const raw = this.store.getRaw(key);
    return raw === undefined ? undefined : this.store.decode(key, raw.rv, raw.value);
  }

  getServiceAccount(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read(this.defs.serviceAccount, namespace, name);
  }

  getPod(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read(this.defs.pod, namespace, name);
  }

  getSecret(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read(this.defs.secret, namespace, name);
  }

  getNode(name: string): Promise<Obj | undefined> {
    return this.read(this.defs.node, '', name);
  }
}
