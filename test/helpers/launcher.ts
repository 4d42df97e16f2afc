// Starts a program's launcher (bin/nodeagent) as a user or a systemd unit does: executed, so its
// #! line takes effect (the node flags and malloc settings it starts node with, which the build's
// V8 code cache was made with), not `node bin/nodeagent`, where node ignores that line. The node
// that runs the tests is put first on PATH, so the launcher's `env node` finds it.
import { delimiter, dirname } from 'node:path';

/** The environment to execute a launcher in: `env` with this test's node first on PATH. */
export function launcherEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env['PATH'] ?? ''}` };
}
