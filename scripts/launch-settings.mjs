// The environment and node flags bin/nodeagent's #! line starts node with (the line itself is
// the one place they are written): `#!/usr/bin/env -S NAME=VALUE... node --flag...`. The build
// makes the agent's V8 code caches in the same environment and under V8's default flags (the
// launcher sets its heap flag back before it loads anything: scripts/bundle.mjs), and the single
// executable carries the flags in its sea-config `execArgv` and sets them back the same way
// (scripts/sea.mjs); its systemd unit sets the environment (README, "What ships").
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'nodeagent');

/** { env: { NAME: VALUE }, nodeArgs: ['--flag', ...] } of the launcher's #! line. */
export function launchSettings(file = LAUNCHER) {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\/usr\/bin\/env -S (.*)$/.exec(first);
  if (m === null) return { env: {}, nodeArgs: [] };
  const words = m[1].trim().split(/\s+/);
  const at = words.indexOf('node');
  if (at < 0) throw new Error(`${file}: the #! line names no node: ${first}`);
  const env = Object.fromEntries(
    words.slice(0, at).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
  return { env, nodeArgs: words.slice(at + 1) };
}
