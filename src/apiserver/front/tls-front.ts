// The TLS front process's entry (bundled as its own file beside plat-apiserver's): it waits for
// its configuration from plat-apiserver over the IPC channel, then serves (front-server.ts) until
// that channel closes, when it exits.

import { rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { asFrontConfig, type FrontConfig } from './messages.js';
import { startFront } from './front-server.js';
import { INNER_DIR_PREFIX } from './inner-listener.js';

let serving: FrontConfig | undefined;

/**
 * A front exits when its IPC channel closes: the main process is gone. Had it been killed, nothing
 * removed its inner socket's directory: the fronts do (any of them; the removal is idempotent).
 * At an orderly stop the main process removes it and ends the fronts with SIGTERM.
 */
function removeInnerDirIfOrphaned(): void {
  if (process.connected || serving === undefined) return;
  const dir = dirname(serving.innerPath);
  if (basename(dir).startsWith(INNER_DIR_PREFIX)) rmSync(dir, { recursive: true, force: true });
}

const send = process.send?.bind(process);
if (send === undefined) {
  process.stderr.write("plat-apiserver's TLS front runs only as a process plat-apiserver starts\n");
  process.exit(2);
}
process.once('message', (m: unknown) => {
  const config = asFrontConfig(m);
  if (config === undefined) {
    process.stderr.write(
      "plat-apiserver's TLS front: the first message was not its configuration\n",
    );
    process.exit(2);
  }
  serving = config;
  startFront(config, (r) => send(r));
});
process.once('disconnect', () => process.exit(0));
process.on('exit', removeInnerDirIfOrphaned);
send({ kind: 'ready' });
