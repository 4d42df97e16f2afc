// Interactive streams through the Docker engine: exec (with Tty when a terminal is asked; resize
// through the engine), attach to a container's stdio (hijacked), and a connection to a port in
// a pod's network namespace (an exec of busybox's nc in the sandbox, which shares it; its
// failure, such as a refused connection, arrives as the stream's error with nc's message).
// Without a terminal the engine multiplexes stdout and stderr on one stream (demuxed here).

import { Duplex, PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { RuntimeError, userMessage } from '../../../common/util/errors.js';
import type { AttachOptions, ExecSession } from '../types.js';

function outputs(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  tty: boolean,
): { stdout: PassThrough; stderr: PassThrough } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (tty) stream.pipe(stdout);
  else docker.modem.demuxStream(stream, stdout, stderr);
  const end = (): void => {
    stdout.end();
    stderr.end();
  };
  stream.once('end', end);
  stream.once('close', end);
  stream.once('error', end);
  return { stdout, stderr };
}

/**
 * The hijacked connection's write side as stdin: its end half-closes the connection (stdin EOF).
 */
function stdinOf(stream: NodeJS.ReadWriteStream): NodeJS.WritableStream {
  stream.on('error', () => undefined);
  return stream;
}

/** Closes a hijacked connection: a net.Socket, which dockerode's types call a ReadWriteStream. */
function destroyHijacked(stream: NodeJS.ReadWriteStream): void {
  if (stream instanceof Duplex) stream.destroy();
  else stream.end();
}

export async function dockerExecStream(
  docker: Docker,
  id: string,
  command: readonly string[],
  opts: { tty: boolean },
): Promise<ExecSession> {
  let exec: Docker.Exec;
  let stream: NodeJS.ReadWriteStream;
  try {
    exec = await docker.getContainer(id).exec({
      Cmd: [...command],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: opts.tty,
    });
    stream = (await exec.start({
      hijack: true,
      stdin: true,
      Tty: opts.tty,
    })) as NodeJS.ReadWriteStream;
  } catch (err) {
    throw new RuntimeError(`exec in container ${id.slice(0, 12)}: ${userMessage(err)}`, {
      cause: err,
    });
  }
  const { stdout, stderr } = outputs(docker, stream, opts.tty);
  const exited = new Promise<number>((resolve) => {
    const done = (): void => {
      exec.inspect().then(
        (i) => resolve(i.ExitCode ?? 137),
        () => resolve(137),
      );
    };
    stream.once('end', done);
    stream.once('close', done);
  });
  // The engine has no way to kill an exec: its host pid (ExecInspect Pid) is signalled directly.
  const kill = (): void => {
    exec.inspect().then(
      (i) => {
        if (i.Running && i.Pid > 0) {
          try {
            process.kill(i.Pid, 'SIGKILL');
          } catch {
            // gone meanwhile, or in a pid namespace this agent cannot signal
          }
        }
        destroyHijacked(stream);
      },
      () => {
        destroyHijacked(stream);
      },
    );
  };
  const resize = (cols: number, rows: number): void => {
    if (opts.tty && cols > 0 && rows > 0) exec.resize({ w: cols, h: rows }).catch(() => undefined);
  };
  return { stdin: stdinOf(stream), stdout, stderr, exited, kill, resize };
}

export async function dockerAttachStream(
  docker: Docker,
  id: string,
  opts: AttachOptions,
): Promise<ExecSession> {
  const container = docker.getContainer(id);
  let tty: boolean;
  let stream: NodeJS.ReadWriteStream;
  try {
    tty = (await container.inspect()).Config.Tty;
    stream = await container.attach({
      stream: true,
      stdin: opts.stdin,
      stdout: opts.stdout,
      stderr: opts.stderr,
      hijack: true,
    });
  } catch (err) {
    throw new RuntimeError(`attach to container ${id.slice(0, 12)}: ${userMessage(err)}`, {
      cause: err,
    });
  }
  const { stdout, stderr } = outputs(docker, stream, tty);
  const exited = new Promise<number>((resolve) => {
    stream.once('end', () => resolve(0));
    stream.once('close', () => resolve(0));
  });
  const kill = (): void => {
    destroyHijacked(stream);
  };
  const resize = (cols: number, rows: number): void => {
    if (tty && cols > 0 && rows > 0) container.resize({ w: cols, h: rows }).catch(() => undefined);
  };
  return { stdin: stdinOf(stream), stdout, stderr, exited, kill, resize };
}

/** A connection to `port` on 127.0.0.1 inside the sandbox's network namespace (busybox nc). */
export async function dockerConnectPort(
  docker: Docker,
  sandboxId: string,
  port: number,
): Promise<Duplex> {
  const session = await dockerExecStream(docker, sandboxId, ['nc', '127.0.0.1', String(port)], {
    tty: false,
  });
  const errText: Buffer[] = [];
  session.stderr.on('data', (c: Buffer) => errText.push(c));
  const conn = Duplex.from({ readable: session.stdout, writable: session.stdin });
  void session.exited.then((code) => {
    if (code !== 0)
      conn.destroy(new Error(Buffer.concat(errText).toString().trim() || `nc exited with ${code}`));
  });
  conn.once('close', () => session.kill());
  return conn;
}
