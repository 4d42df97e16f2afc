// SecretReader over the registry, bound once the server (which owns the registry) exists; a read
// before that fails loudly (500), never authenticates.

import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import type { SecretReader } from './bootstrap-token.js';

export class RegistrySecrets implements SecretReader {
  private bound: { registry: Registry; def: ResourceDef } | undefined;

  bind(registry: Registry, secretDef: ResourceDef): void {
    this.bound = { registry, def: secretDef };
  }

  async getSecret(namespace: string, name: string): Promise<Record<string, unknown> | undefined> {
    if (this.bound === undefined) throw new Error('secrets read before the registry was bound');
    const { registry, def } = this.bound;
    const key = registry.key(def, namespace, name);
    const raw = registry.store.getRaw(key);
    return raw === undefined ? undefined : registry.store.decode(key, raw.rv, raw.value);
  }
}
