// The HTTP source: GET the manifest URL every `checkFrequencyMs` with the configured headers.
// Non-200 or a bad body keeps the current pods; an empty 200 removes them all; an unchanged body
// is skipped. After three logged failures in a row, further ones log at debug level only.
import { userMessage } from '../../common/util/errors.js';
import { manifestText, staticPodsFromManifest } from '../pod/static-manifest.js';
import { logDroppedFields } from '../pod/decode.js';
import { dedupeByName } from './file.js';
import { MANIFEST_LIMITS } from '../../common/util/parse-limits.js';
import { type PodSource, type PolledSourceOptions } from './types.js';

export interface HttpSourceOptions extends PolledSourceOptions {
  url: string;
  /** Header name → values, sent in order (values are secrets: never logged). */
  headers: Record<string, string[]>;
  timeoutMs?: number;
}

/** The URL without credentials or query, for log lines. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = u.search === '' ? '' : '?…';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

export class HttpSource implements PodSource {
  readonly name = 'http';
  private readonly opts: HttpSourceOptions;
  private lastBody: Buffer | undefined;
  private failures = 0;
  private loop: Promise<void> = Promise.resolve();

  constructor(opts: HttpSourceOptions) {
    this.opts = opts;
  }

  async start(signal: AbortSignal): Promise<void> {
    await this.poll(signal);
    this.loop = this.run(signal);
  }

  closed(): Promise<void> {
    return this.loop;
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.opts.clock.sleep(this.opts.checkFrequencyMs, signal);
      } catch {
        return;
      }
      await this.poll(signal);
    }
  }

  private async fetchBody(signal: AbortSignal): Promise<Buffer> {
    const timeoutMs = this.opts.timeoutMs ?? 10_000;
    const headers: string[] = [];
    for (const [name, values] of Object.entries(this.opts.headers))
      for (const v of values) headers.push(name, v);
    // The HTTP client loads with the first fetch: an agent without --manifest-url never loads it.
    const { request } = await import('../client/undici-core.js');
    const res = await request(this.opts.url, {
      method: 'GET',
      headers,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`manifest URL answered HTTP ${res.statusCode}; keeping the current pods`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > MANIFEST_LIMITS.maxBytes) {
        res.body.destroy();
        throw new Error('manifest URL body is over the 10 MB limit; keeping the current pods');
      }
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }

  /** One GET; emits a snapshot when the body changed and is valid. */
  async poll(signal: AbortSignal): Promise<void> {
    const where = redactUrl(this.opts.url);
    try {
      const body = await this.fetchBody(signal);
      if (this.lastBody !== undefined && body.equals(this.lastBody)) {
        this.failures = 0;
        return;
      }
      const pods = staticPodsFromManifest(manifestText(body, where), where, {
        defaults: {
          nodeName: this.opts.nodeName,
          sourceKey: `url:${this.opts.url}`,
          sourceName: 'http',
          names: this.opts.names,
        },
        validation: this.opts.validation,
        droppedFields: logDroppedFields(this.opts.logger),
      });
      this.lastBody = body;
      this.failures = 0;
      this.opts.onSnapshot({ source: this.name, pods: dedupeByName(pods, this.opts.logger) });
    } catch (err) {
      if (signal.aborted) return;
      this.failures++;
      const fields = { url: where, failures: this.failures, err: userMessage(err) };
      if (this.failures <= 3)
        this.opts.logger.error(
          fields,
          'http source: could not read pods from the manifest URL; keeping the current pods',
        );
      else this.opts.logger.debug(fields, 'http source: still failing');
    }
  }
}
