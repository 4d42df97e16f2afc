// The client CA bundle of --client-ca-file, re-read whenever the file changes. A watch on the
// file's directory (editors and tools replace files by rename, which a watch on the file itself
// would miss) triggers the re-read; a slow poll backs it up. A bad new file keeps the previous
// bundle and logs why, so a half-written file never locks every client out.

import { X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../../common/log/types.js';
import { systemClock, type Clock } from '../../../common/util/clock.js';
import { CertificateError, userMessage } from '../../../common/util/errors.js';
import { runEvery } from '../../../common/util/every.js';
import { pemBlocksOfType } from '../../../common/util/pem.js';

/** Parses every certificate of a PEM bundle; throws a CertificateError naming the file. */
export function parseCertificateBundle(pem: string, file: string): X509Certificate[] {
  const blocks = pemBlocksOfType(pem, 'CERTIFICATE');
  if (blocks.length === 0)
    throw new CertificateError(`client CA file "${file}" holds no PEM certificate`, { file });
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (err) {
      throw new CertificateError(
        `client CA file "${file}": certificate ${i + 1} cannot be parsed: ${userMessage(err)}`,
        { file, cause: err },
      );
    }
  });
}

export interface ClientCaSource {
  /** The authorities currently trusted for client certificates. */
  authorities(): readonly X509Certificate[];
}

export interface ClientCaFileOptions {
  file: string;
  logger: Logger;
  /** The backup poll's clock (default the system clock). */
  clock?: Clock;
  /** Backup poll interval; default 60 s. */
  pollIntervalMs?: number;
}

export class ClientCaFile implements ClientCaSource {
  private current: readonly X509Certificate[] = [];
  private lastPem = '';
  private watcher: FSWatcher | undefined;
  private poll: AbortController | undefined;
  private reloading: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: ClientCaFileOptions) {}

  /** Loads the file (throws if it cannot be used at start) and starts watching it. */
  async start(signal: AbortSignal): Promise<void> {
    const pem = await readFile(this.options.file, 'utf8').catch((err: unknown) => {
      throw new CertificateError(
        `cannot read client CA file "${this.options.file}": ${userMessage(err)}`,
        { file: this.options.file, cause: err },
      );
    });
    this.current = parseCertificateBundle(pem, this.options.file);
    this.lastPem = pem;
    try {
      const name = basename(this.options.file);
      this.watcher = watch(dirname(this.options.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name || changed.startsWith('..')) this.scheduleReload();
      });
      this.watcher.on('error', (err) =>
        this.options.logger.warn(
          { err: err.message, file: this.options.file },
          'client CA file watch failed; relying on polling',
        ),
      );
    } catch (err) {
      this.options.logger.warn(
        { err: userMessage(err), file: this.options.file },
        'cannot watch the client CA file; relying on polling',
      );
    }
    this.poll = new AbortController();
    void runEvery({
      clock: this.options.clock ?? systemClock,
      ms: this.options.pollIntervalMs ?? 60_000,
      signal: AbortSignal.any([signal, this.poll.signal]),
      run: () => {
        this.scheduleReload();
        return Promise.resolve();
      },
      onError: (err) =>
        this.options.logger.warn(
          { err: userMessage(err), file: this.options.file },
          'client CA file poll failed',
        ),
    });
    signal.addEventListener('abort', () => this.stop(), { once: true });
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.poll?.abort();
    this.poll = undefined;
  }

  authorities(): readonly X509Certificate[] {
    return this.current;
  }

  /** Called after each successful reload that changed the bundle. */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Re-reads the file now (also what the watch triggers). */
  reload(): Promise<void> {
    this.reloading ??= this.doReload().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private scheduleReload(): void {
    this.reload().catch(() => undefined);
  }

  private async doReload(): Promise<void> {
    let pem: string;
    try {
      pem = await readFile(this.options.file, 'utf8');
    } catch (err) {
      this.options.logger.warn(
        { file: this.options.file, err: userMessage(err) },
        'cannot re-read the client CA file; keeping the previous authorities',
      );
      return;
    }
    if (pem === this.lastPem) return;
    try {
      this.current = parseCertificateBundle(pem, this.options.file);
      this.lastPem = pem;
      this.options.logger.info(
        { file: this.options.file, authorities: this.current.length },
        'reloaded the client CA file',
      );
      for (const l of this.listeners) l();
    } catch (err) {
      this.options.logger.warn(
        { file: this.options.file, err: userMessage(err) },
        'the changed client CA file is not usable; keeping the previous authorities',
      );
    }
  }
}
