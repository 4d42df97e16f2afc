// What exec and attach do with their streams once the client's are in place, whichever the
// protocol (SPDY streams or WebSocket channels): stdin into the process (its end closes the
// process's stdin), output out until it ends, terminal sizes from the resize stream (the
// reference's TerminalSize JSON objects, {"Width":80,"Height":24}, one after another).

import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../../../common/log/types.js';
import type { ExecSession } from './types.js';

export interface ExecIo {
  stdin?: Readable | undefined;
  stdout?: Writable | undefined;
  stderr?: Writable | undefined;
  resize?: Readable | undefined;
}

const MAX_SIZE_TEXT = 4096;

/** Why a resize message is refused, or the size it carries. */
export function parseTerminalSize(text: string): { width: number; height: number } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return (
      `resize: not JSON: ${JSON.stringify(text.slice(0, 64))}; accepted: ` +
      `{"Width":<0-65535>,"Height":<0-65535>}`
    );
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as { Width?: unknown; Height?: unknown };
  const ok = (n: unknown): n is number =>
    typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 65535;
  if (!ok(o.Width) || !ok(o.Height))
    return (
      `resize: ${JSON.stringify(text.slice(0, 64))}: accepted: ` +
      `{"Width":<0-65535>,"Height":<0-65535>}`
    );
  return { width: o.Width, height: o.Height };
}

/**
 * Reads sizes until the stream ends; the first bad message stops it (as the reference's decoder
 * loop).
 */
export function readSizes(
  from: Readable,
  onSize: (w: number, h: number) => void,
  onBad: (why: string) => void,
): void {
  let text = '';
  let stopped = false;
  from.on('data', (chunk: Buffer) => {
    if (stopped) return;
    text += chunk.toString('utf8');
    for (let end = text.indexOf('}'); end >= 0; end = text.indexOf('}')) {
      const size = parseTerminalSize(text.slice(0, end + 1).trim());
      text = text.slice(end + 1);
      if (typeof size === 'string') {
        stopped = true;
        onBad(size);
        return;
      }
      onSize(size.width, size.height);
    }
    if (text.length > MAX_SIZE_TEXT) {
      stopped = true;
      onBad(
        `resize: a message over ${MAX_SIZE_TEXT} bytes; accepted: ` +
          `{"Width":<0-65535>,"Height":<0-65535>}`,
      );
    }
  });
}

/** Copies `from` into `to` (not ending it); resolves when `from` ends or either side closes. */
export function pipeOut(from: NodeJS.ReadableStream, to: Writable | undefined): Promise<void> {
  return new Promise((resolve) => {
    // A runtime's stream may not say whether it has ended (a Readable does).
    const src: NodeJS.ReadableStream & { readonly readableEnded?: boolean } = from;
    if (src.readableEnded === true) {
      resolve();
      return;
    }
    src.once('end', resolve);
    src.once('close', resolve);
    if (to === undefined) {
      src.resume();
      return;
    }
    src.pipe(to, { end: false });
    to.once('close', resolve);
  });
}

/**
 * Wires the streams to the process; resolves with its exit code once its output has been sent on.
 */
export async function pumpExec(proc: ExecSession, io: ExecIo, logger: Logger): Promise<number> {
  if (io.stdin !== undefined) {
    io.stdin.pipe(proc.stdin);
    io.stdin.once('close', () => proc.stdin.end());
  } else proc.stdin.end();
  if (io.resize !== undefined) {
    readSizes(
      io.resize,
      (w, h) => proc.resize?.(w, h),
      (why) => logger.info({}, `${why}; later sizes are ignored`),
    );
  }
  const [code] = await Promise.all([
    proc.exited,
    pipeOut(proc.stdout, io.stdout),
    pipeOut(proc.stderr, io.stderr),
  ]);
  return code;
}
