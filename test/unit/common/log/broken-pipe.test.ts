// A log reader that stops reading and then goes away (a `nodeagent | while read` pipeline killed
// as a group): the output left in the sink's buffer meets a broken pipe (EPIPE) at the final
// flush, which must give up rather than retry: the process exits. (pino's own sonic-boom 4.x
// retried it for ever in flushSync, and a stop of the agent hung until SIGKILL.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LOGGER = pathToFileURL(
  fileURLToPath(new URL('../../../../src/common/log/logger.js', import.meta.url)),
).href;

// fills the pipe (nobody reads it) and more, says so on the IPC channel, then on the parent's word
// closes the logger (its final synchronous flush) and exits
const CHILD = `
import { createLogger } from ${JSON.stringify(LOGGER)};
const h = createLogger({ verbosity: 0 });
for (let i = 0; i < 4000; i++) h.logger.info({ i, pad: 'x'.repeat(100) }, 'line');
process.send('written');
process.on('message', () => { h.close(); process.exit(0); });
`;

test(
  'the final flush into a broken pipe gives up: the process exits',
  { timeout: 30_000 },
  async (t) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // nobody reads stderr, where the lines go: the pipe fills and the rest stays in the buffer
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before writing`)));
    });
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.send('close');
    const t0 = Date.now();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const r = await exited;
    clearTimeout(killer);
    assert.deepEqual(r, { code: 0, signal: null }, `exit after ${Date.now() - t0} ms`);
  },
);
