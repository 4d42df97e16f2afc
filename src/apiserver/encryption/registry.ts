// The TransformerRegistry built from an EncryptionConfiguration: resource lists are matched in
// order (first match wins, so an earlier identity entry exempts a resource from a later "*.*");
// unmatched resources are stored as they are.
import {
  decodeKey,
  KMS_DEFAULT_TIMEOUT,
  type EncryptionConfiguration,
  type ProviderConfiguration,
} from '../config/encryption.js';
import { tryDurationMs } from '../../common/util/values/duration.js';
import type { Clock } from '../../common/util/clock.js';
import { ConfigError } from '../../common/util/errors.js';
import type { Logger } from '../../common/log/types.js';
import type { TransformerRegistry, ValueTransformer } from '../interfaces.js';
import { KmsClient } from './kms/client.js';
import { KmsEnvelopeProvider } from './kms/envelope.js';
import { PrefixTransformer } from './prefix-transformer.js';
import {
  identityProvider,
  localProvider,
  type EncryptionProvider,
  type LocalProviderKind,
} from './providers.js';

interface Rule {
  readonly resource: string;
  readonly group: string;
  readonly transformer: ValueTransformer;
}

const IDENTITY = new PrefixTransformer({ providers: [identityProvider()] });

/** Makes the provider of one local key (aesgcm, aescbc, secretbox): on this thread, or elsewhere. */
export type LocalProviderFactory = (
  kind: LocalProviderKind,
  name: string,
  key: Buffer,
) => EncryptionProvider;

export interface EncryptionRegistryOptions {
  readonly config: EncryptionConfiguration;
  /** Where local keys do their work (--worker-threads); default: on the calling thread. */
  readonly localProviders?: LocalProviderFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  /** For error messages. */
  readonly file?: string;
}

export class EncryptionTransformerRegistry implements TransformerRegistry {
  private readonly rules: Rule[] = [];
  private readonly kmsClients: KmsClient[] = [];
  private readonly kmsProviders: { name: string; client: KmsClient; endpoint: string }[] = [];

  constructor(opts: EncryptionRegistryOptions) {
    opts.config.resources.forEach((rc, i) => {
      const providers = rc.providers
        .map((p, k) => this.providersOf(p, opts, `resources[${i}].providers[${k}]`))
        .flat();
      const transformer = new PrefixTransformer({ providers });
      for (const name of rc.resources) {
        const dot = name.indexOf('.');
        this.rules.push({
          resource: dot < 0 ? name : name.slice(0, dot),
          group: dot < 0 ? '' : name.slice(dot + 1),
          transformer,
        });
      }
    });
  }

  transformerFor(resource: string, group: string): ValueTransformer {
    for (const r of this.rules) {
      const groupMatches = r.group === '*' || r.group === group;
      if (groupMatches && (r.resource === '*' || r.resource === resource)) return r.transformer;
    }
    return IDENTITY;
  }

  /** Asks every KMS plugin for its status; resolves with one line per unhealthy plugin. */
  async checkKmsPlugins(): Promise<string[]> {
    const problems: string[] = [];
    for (const k of this.kmsProviders) {
      try {
        const s = await k.client.status();
        if (s.healthz !== 'ok')
          problems.push(`KMS provider "${k.name}" at ${k.endpoint}: healthz "${s.healthz}"`);
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    return problems;
  }

  close(): void {
    for (const c of this.kmsClients) c.close();
  }

  private providersOf(
    p: ProviderConfiguration,
    opts: EncryptionRegistryOptions,
    where: string,
  ): EncryptionProvider[] {
    const make = opts.localProviders ?? localProvider;
    const keyed = (kind: LocalProviderKind): EncryptionProvider[] =>
      (p[kind]?.keys ?? []).map((k, j) => {
        const raw = decodeKey(k.secret);
        if (raw === undefined) {
          throw new ConfigError(
            `${inFile(opts)}${where}.${kind}.keys[${j}].secret: Invalid value: ` +
              `REDACTED: secret is not a valid base64 string`,
            opts.file === undefined ? {} : { file: opts.file },
          );
        }
        return make(kind, k.name, raw);
      });
    if (p.aesgcm !== undefined) return keyed('aesgcm');
    if (p.aescbc !== undefined) return keyed('aescbc');
    if (p.secretbox !== undefined) return keyed('secretbox');
    if (p.identity !== undefined) return [identityProvider()];
    const kms = p.kms;
    if (kms !== undefined) {
      if ((kms.apiVersion ?? 'v1') !== 'v2') {
        throw new ConfigError(
          `${inFile(opts)}${where}.kms.apiVersion: Unsupported value: KMS v1 is not ` +
            `supported by plat-apiserver: set apiVersion: v2`,
          opts.file === undefined ? {} : { file: opts.file },
        );
      }
      const client = new KmsClient({
        name: kms.name,
        endpoint: kms.endpoint,
        timeoutMs: tryDurationMs(kms.timeout ?? KMS_DEFAULT_TIMEOUT) ?? 3000,
        clock: opts.clock,
      });
      this.kmsClients.push(client);
      this.kmsProviders.push({ name: kms.name, client, endpoint: kms.endpoint });
      return [new KmsEnvelopeProvider({ name: kms.name, client, clock: opts.clock })];
    }
    return [];
  }
}

function inFile(opts: EncryptionRegistryOptions): string {
  return opts.file === undefined ? '' : `--encryption-provider-config: ${opts.file}: `;
}
