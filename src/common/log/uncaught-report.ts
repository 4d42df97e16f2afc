// An uncaught exception, as both launchers (bin/nodeagent, bin/plat-apiserver) report it once their
// bundle is loaded: one line on stderr, `<program>: uncaught exception: <stack>`, its stack mapped
// through the bundle's source maps (mapped-stack.ts: node's own source-map support stays off), then
// status 1, as node's own report ends.
import { writeSync } from 'node:fs';
import { mapStack } from './mapped-stack.js';

/** The line for `err`: its mapped stack when it has one, else what it says of itself. */
export function uncaughtReport(program: string, err: unknown): string {
  let text = String(err);
  try {
    if (err instanceof Error && typeof err.stack === 'string') text = mapStack(err.stack);
  } catch {
    // the stack as it is
  }
  return `${program}: uncaught exception: ${text}\n`;
}

/** Installs the report for this process. */
export function reportUncaught(program: string): void {
  process.on('uncaughtException', (err) => {
    writeSync(2, uncaughtReport(program, err));
    process.exit(1);
  });
}
