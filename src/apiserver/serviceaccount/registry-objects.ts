// What the service-account token authenticator and the ServiceAccount admission plugin read,
// over the registry. Both are built before the server (which owns the registry), so this is
// bound once the server exists; a read before that fails loudly (500, never an allow).

import type { ServiceAccountObjects } from '../authn/service-account.js';
import type { ServiceAccountGetter } from '../admission/service-account.js';
import type { Registry } from '../registry/registry.js';
import type { Obj, ResourceDef } from '../registry/types.js';

export interface ServiceAccountDefs {
  readonly serviceAccount: ResourceDef;
  readonly pod: ResourceDef;
  readonly secret: ResourceDef;
  readonly node: ResourceDef;
}

export class RegistryServiceAccountObjects implements ServiceAccountObjects, ServiceAccountGetter {
  private bound: { registry: Registry; defs: ServiceAccountDefs } | undefined;

  bind(registry: Registry, defs: ServiceAccountDefs): void {
    this.bound = { registry, defs };
  }

  private async read(
    pick: (d: ServiceAccountDefs) => ResourceDef,
    namespace: string,
    name: string,
  ): Promise<Obj | undefined> {
    if (this.bound === undefined)
      throw new Error('service account objects read before the registry was bound');
    const { registry, defs } = this.bound;
    const key = registry.key(pick(defs), namespace, name);
    const raw = registry.store.getRaw(key);
    return raw === undefined ? undefined : registry.store.decode(key, raw.rv, raw.value);
  }

  getServiceAccount(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read((d) => d.serviceAccount, namespace, name);
  }

  getPod(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read((d) => d.pod, namespace, name);
  }

  getSecret(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read((d) => d.secret, namespace, name);
  }

  getNode(name: string): Promise<Obj | undefined> {
    return this.read((d) => d.node, '', name);
  }
}
