// A process that starts servers for a test or a benchmark and is killed (SIGTERM from a runner's
// timeout or `pkill`, SIGINT from Ctrl-C, SIGHUP from a closed terminal) still runs its clean-ups, then ends by that signal as
// it would have; a removed clean-up does not run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const helper = fileURLToPath(new URL('../../helpers/end-on-signal.js', import.meta.url));

function child(dir: string): ReturnType<typeof spawn> {
  const script = `
    import { writeFileSync } from 'node:fs';
    const { onProcessEnd } = await import(${JSON.stringify(helper)});
    onProcessEnd(() => writeFileSync(${JSON.stringify(join(dir, 'ran'))}, 'yes'));
    const forget = onProcessEnd(() => writeFileSync(${JSON.stringify(join(dir, 'removed'))}, 'yes'));
    forget();
    console.log('ready');
    setInterval(() => undefined, 1000);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`on ${signal} the clean-ups run and the process ends by that signal`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'end-on-signal-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const c = child(dir);
    t.after(() => c.kill('SIGKILL'));
    await new Promise<void>((resolve) => c.stdout?.once('data', () => resolve()));
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      c.once('exit', (_code, sig) => resolve(sig)),
    );
    c.kill(signal);
    assert.equal(await ended, signal);
    assert.equal(existsSync(join(dir, 'ran')), true);
    assert.equal(existsSync(join(dir, 'removed')), false);
  });
}
