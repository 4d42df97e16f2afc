// Encryption at rest on worker threads: a local provider (aesgcm, aescbc, secretbox) whose
// encrypt and decrypt run on the pool. Its key is given to every thread once, by number; a job
// names the number. When no thread runs, or the thread dies mid-job, the same provider made on
// the main thread does the work, so a value is never refused for want of a thread.

import {
  localProvider,
  type EncryptionProvider,
  type LocalProviderKind,
} from '../encryption/providers.js';
import type { CipherJob, JobResult, KeySetup } from './messages.js';
import type { ThreadPool } from './thread-pool.js';

/** The thread's keys: each set-up message makes its provider. */
export class ThreadKeys {
  private readonly providers = new Map<number, EncryptionProvider>();

  add(s: KeySetup): void {
    this.providers.set(s.key, localProvider(s.provider, s.name, s.material));
  }

  async run(job: CipherJob): Promise<JobResult> {
    const p = this.providers.get(job.key);
    if (p === undefined) return { ok: false, error: `no key number ${job.key} on this thread` };
    try {
      const bytes =
        job.kind === 'encrypt'
          ? await p.encrypt(job.data, job.context)
          : await p.decrypt(job.data, job.context);
      return { ok: true, bytes };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

let keyNumbers = 0;

/** The provider for one configured key, its work done on the pool. */
export function pooledProvider(
  pool: ThreadPool,
  kind: LocalProviderKind,
  name: string,
  key: Uint8Array,
): EncryptionProvider {
  const here = localProvider(kind, name, key);
  const number = ++keyNumbers;
  pool.setup({ kind: 'key', key: number, provider: kind, name, material: key });
  const onPool = async (
    op: CipherJob['kind'],
    data: Uint8Array,
    context: string,
  ): Promise<Uint8Array> => {
    const r = await pool.tryRun({ kind: op, key: number, data, context });
    if (r === undefined)
      return op === 'encrypt' ? here.encrypt(data, context) : here.decrypt(data, context);
    if (!r.ok) throw new Error('error' in r ? r.error : r.decodeError.message);
    if (!('bytes' in r)) throw new Error('the worker thread answered a cipher job with an object');
    return r.bytes;
  };
  return {
    prefix: here.prefix,
    description: here.description,
    encrypt: (data, context) => onPool('encrypt', data, context),
    decrypt: (data, context) => onPool('decrypt', data, context),
  };
}
