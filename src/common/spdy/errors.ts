// The one error the SPDY/3.1 code raises for bad input from a peer: what was wrong, in which
// frame, and what is accepted. A session that meets it sends GOAWAY (PROTOCOL_ERROR) and closes.

import { NodeAgentError } from '../util/errors.js';

export class SpdyProtocolError extends NodeAgentError {
  /** The control frame type (or 'data') in which the problem was found, when known. */
  readonly frame: string | undefined;
  constructor(message: string, options: { frame?: string; cause?: unknown } = {}) {
    super(
      'InputSyntax',
      `SPDY/3.1: ${message}`,
      options.cause === undefined ? {} : { cause: options.cause },
    );
    this.frame = options.frame;
  }
}
