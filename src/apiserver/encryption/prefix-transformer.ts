// A ValueTransformer over an ordered provider list: writes with the first, reads with whichever
// provider's prefix the stored value carries (identity reads values without any known prefix).
import type { ValueTransformer } from '../interfaces.js';
import type { EncryptionProvider } from './providers.js';

const ENC_MARK = Buffer.from('plat:enc:');

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export class EncryptionReadError extends Error {}

export class PrefixTransformer implements ValueTransformer {
  private readonly providers: readonly { provider: EncryptionProvider; prefix: Buffer }[];

  constructor(opts: { providers: readonly EncryptionProvider[] }) {
    if (opts.providers.length === 0)
      throw new Error('PrefixTransformer needs at least one provider');
    this.providers = opts.providers.map((provider) => ({
      provider,
      prefix: Buffer.from(provider.prefix),
    }));
  }

  async toStorage(plaintext: Uint8Array, context: string): Promise<Uint8Array> {
    const first = this.providers[0];
    if (first === undefined) throw new Error('no providers');
    const body = await first.provider.encrypt(plaintext, context);
    return first.prefix.length === 0 ? body : Buffer.concat([first.prefix, body]);
  }

  async fromStorage(
    stored: Uint8Array,
    context: string,
  ): Promise<{ data: Uint8Array; stale: boolean }> {
    let identityIndex = -1;
    for (const [i, { provider, prefix }] of this.providers.entries()) {
      if (prefix.length === 0) {
        if (identityIndex < 0) identityIndex = i;
        continue;
      }
      if (!startsWith(stored, prefix)) continue;
      try {
        const data = await provider.decrypt(stored.subarray(prefix.length), context);
        return { data, stale: i !== 0 };
      } catch (err) {
        throw new EncryptionReadError(
          `cannot decrypt the stored value with ${provider.description}: ` +
            (err instanceof Error ? err.message : String(err)),
          { cause: err },
        );
      }
    }
    if (identityIndex >= 0) {
      // A value that looks encrypted but matched no configured key must not be served as data.
      if (startsWith(stored, ENC_MARK)) {
        throw new EncryptionReadError(
          `the stored value is encrypted with ${describePrefix(stored)}, which is not ` +
            `in the configured providers`,
        );
      }
      return { data: stored, stale: identityIndex !== 0 };
    }
    throw new EncryptionReadError(
      startsWith(stored, ENC_MARK)
        ? `the stored value is encrypted with ${describePrefix(stored)}, which is not in ` +
            `the configured providers`
        : 'no matching prefix found: the stored value is not encrypted and identity is ' +
            'not among the configured providers',
    );
  }
}

/** "aesgcm key \"k1\"" from a stored value's prefix, for messages. */
function describePrefix(stored: Uint8Array): string {
  const head = Buffer.from(stored.subarray(0, 200)).toString('latin1');
  const m = /^plat:enc:([a-z0-9]+):(v\d+):([^:]*):/.exec(head);
  return m === null ? 'an unknown provider' : `${m[1] ?? ''} ${m[2] ?? ''} key "${m[3] ?? ''}"`;
}
