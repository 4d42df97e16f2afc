// An exec with a terminal for process:// containers: the command runs on a pseudo-terminal
// (node-pty, loaded only when a terminal is asked for), as a session leader so kill() ends
// its whole process group. The terminal merges stdout and stderr (as a tty exec does in the
// reference); the client's stdin end sends EOT (^D), which a shell reads as end of input.

import { PassThrough, Writable } from 'node:stream';
import type * as NodePty from 'node-pty';
import { RuntimeError, userMessage } from '../../../common/util/errors.js';
import type { ExecSession } from '../types.js';

export interface PtyExecOptions {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

type PtyModule = typeof NodePty;

async function loadPty(): Promise<PtyModule> {
  try {
    return await import('node-pty');
  } catch (err) {
    throw new RuntimeError(
      `a terminal (tty) for process:// exec needs the node-pty addon, which did not ` +
        `load: ${userMessage(err)}`,
      { cause: err },
    );
  }
}

export async function spawnOnPty(o: PtyExecOptions): Promise<ExecSession> {
  const pty = await loadPty();
  let term: NodePty.IPty;
  try {
    term = pty.spawn(o.file, [...o.args], {
      name: 'xterm',
      cols: 80,
      rows: 24,
      env: { TERM: 'xterm', ...o.env },
      encoding: null,
      ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    });
  } catch (err) {
    throw new RuntimeError(
      `exec: could not start ${JSON.stringify(o.file)} on a terminal: ${userMessage(err)}`,
      { cause: err },
    );
  }
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stderr.end();
  term.onData((d: string | Buffer) => stdout.write(d));
  let done = false;
  const exited = new Promise<number>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      done = true;
      stdout.end();
      resolve(signal !== undefined && signal > 0 ? 128 + signal : exitCode);
    });
  });
  const stdin = new Writable({
    write: (chunk: Buffer, _enc, cb) => {
      if (!done) term.write(chunk);
      cb();
    },
    final: (cb) => {
      if (!done) term.write('\x04');
      cb();
    },
  });
  const kill = (): void => {
    if (done) return;
    try {
      process.kill(-term.pid, 'SIGKILL');
    } catch {
      term.kill('SIGKILL');
    }
  };
  const resize = (cols: number, rows: number): void => {
    if (!done && cols > 0 && rows > 0) term.resize(cols, rows);
  };
  return { stdin, stdout, stderr, exited, kill, resize };
}
