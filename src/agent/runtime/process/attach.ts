// Attaching to a process:// container: its output from now on (the log file, followed; stdout
// and stderr share that file, so both arrive on the attach's stdout and its stderr stays
// empty) and, when the container keeps stdin open (spec stdin: true), its stdin, shared by every
// attacher. With stdinOnce the first attacher's end of input closes the container's stdin (the
// reference's semantics); otherwise it only detaches. Detaching never stops the container.

import { PassThrough, Writable } from 'node:stream';
import { statSync } from 'node:fs';
import type { Logger } from '../../../common/log/types.js';
import type { AttachOptions, ExecSession } from '../types.js';
import { followFile } from './log-follow.js';

export interface AttachTarget {
  name: string;
  logFile: string;
  /**
   * The container's stdin pipe, held by this agent; undefined: none (spec stdin false, or adopted).
   */
  stdin: NodeJS.WritableStream | undefined;
  stdinOnce: boolean;
  /** Resolves when the container exits. */
  exited: Promise<void>;
  logger: Logger;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function stdinOf(t: AttachTarget, wanted: boolean): Writable {
  let noted = false;
  return new Writable({
    write: (chunk: Buffer, _enc, cb) => {
      if (t.stdin !== undefined && wanted) t.stdin.write(chunk);
      else if (!noted) {
        noted = true;
        t.logger.info(
          { container: t.name },
          `attach: container "${t.name}" has no stdin held by this agent (spec stdin is ` +
            `false, or a previous agent started it); input is dropped`,
        );
      }
      cb();
    },
    final: (cb) => {
      if (t.stdin !== undefined && wanted && t.stdinOnce) t.stdin.end();
      cb();
    },
  });
}

export function attachToProcess(t: AttachTarget, opts: AttachOptions): ExecSession {
  const follower = followFile(t.logFile, sizeOf(t.logFile));
  const stderr = new PassThrough();
  stderr.end();
  let detach: () => void = () => undefined;
  const detached = new Promise<void>((resolve) => (detach = resolve));
  const exited = Promise.race([t.exited, detached]).then(() => {
    follower.stop();
    return 0;
  });
  const stdout = opts.stdout || opts.stderr ? follower.stream : new PassThrough();
  if (stdout !== follower.stream) {
    follower.stream.resume();
    void exited.then(() => stdout.end());
  }
  return { stdin: stdinOf(t, opts.stdin), stdout, stderr, exited, kill: () => detach() };
}
