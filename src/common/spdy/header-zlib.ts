// The compression of SPDY/3 header blocks: one zlib stream per direction of a connection,
// started from the SPDY/3 dictionary, each block ended with a sync flush so the peer can
// inflate it on its own. Calls must be made one at a time and in frame order (the session's
// queues do so); output over `maxInflatedBytes` is a SpdyProtocolError (a zlib bomb).

import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';
import { SpdyProtocolError } from './errors.js';

type Stream = Deflate | Inflate;

function flushThrough(stream: Stream, input: Buffer, limit: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    };
    const done = (err?: Error): void => {
      stream.off('data', onData);
      stream.off('error', done);
      if (err !== undefined)
        reject(
          new SpdyProtocolError(`cannot ${what} a header block: ${err.message}`, {
            frame: 'header block',
            cause: err,
          }),
        );
      else if (size > limit)
        reject(
          new SpdyProtocolError(`a header block inflates to over ${limit} bytes`, {
            frame: 'header block',
          }),
        );
      else resolve(Buffer.concat(chunks));
    };
    stream.on('data', onData);
    stream.once('error', done);
    stream.write(input);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      if (!stream.destroyed) done();
    });
  });
}

export class HeaderDeflater {
  private readonly deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });

  compress(block: Buffer): Promise<Buffer> {
    return flushThrough(this.deflate, block, Number.MAX_SAFE_INTEGER, 'compress');
  }

  close(): void {
    this.deflate.destroy();
  }
}

export class HeaderInflater {
  private readonly inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  private broken: Error | undefined;

  constructor(private readonly maxInflatedBytes = 256 * 1024) {
    this.inflate.on('error', (err) => {
      this.broken = err;
    });
  }

  async decompress(block: Buffer): Promise<Buffer> {
    if (this.broken !== undefined)
      throw new SpdyProtocolError(`the header stream is broken: ${this.broken.message}`, {
        frame: 'header block',
      });
    if (block.length === 0)
      throw new SpdyProtocolError(
        'an empty header block; accepted: a zlib block with at least the pair count',
        { frame: 'header block' },
      );
    return flushThrough(this.inflate, block, this.maxInflatedBytes, 'inflate');
  }

  close(): void {
    this.inflate.destroy();
  }
}
