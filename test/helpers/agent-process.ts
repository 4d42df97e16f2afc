// The built agent (bin/nodeagent, executed as a user runs it) as a child process: its output kept
// for failure messages, and a stop that sends SIGTERM and, after 10 s, SIGKILL (processes.ts stopChild).
import { spawn, type ChildProcess } from 'node:child_process';
import { launcherEnv } from './launcher.js';
import { stopChild } from './processes.js';

export interface RunningAgent {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

export function startAgent(args: string[]): RunningAgent {
  const child = spawn('bin/nodeagent', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: launcherEnv(),
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  // 'close', not 'exit': once it fires the whole output has been read
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return {
    child,
    output: () => out,
    stop: async () => {
      await stopChild(child);
      return exited;
    },
  };
}
