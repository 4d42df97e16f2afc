// The command line systemd builds from a unit's ExecStart= (as for kubeadm's 10-kubeadm.conf):
// Environment="K=V" lines, EnvironmentFile=[-]path files (KEY=value or KEY="value" lines; a
// leading `-` means a missing file is fine), and an unbraced $NAME in ExecStart= expanded and
// split at whitespace, an unset one expanding to nothing. The last non-empty ExecStart= wins.
import { existsSync, readFileSync } from 'node:fs';

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

function assign(env: Map<string, string>, line: string): void {
  const eq = line.indexOf('=');
  if (eq > 0) env.set(line.slice(0, eq).trim(), unquote(line.slice(eq + 1).trim()));
}

/** The argv (binary first) of the unit's ExecStart=, files read through `path(p)`. */
export function execStartArgv(unit: string, path: (p: string) => string = (p) => p): string[] {
  const env = new Map<string, string>();
  let exec = '';
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('Environment=')) assign(env, unquote(line.slice('Environment='.length)));
    else if (line.startsWith('EnvironmentFile=')) {
      const spec = line.slice('EnvironmentFile='.length);
      const file = path(spec.replace(/^-/, ''));
      if (!existsSync(file)) {
        if (spec.startsWith('-')) continue;
        throw new Error(`EnvironmentFile ${file} is missing`);
      }
      for (const l of readFileSync(file, 'utf8').split('\n'))
        if (l.trim() !== '' && !l.trim().startsWith('#')) assign(env, l.trim());
    } else if (line.startsWith('ExecStart=') && line !== 'ExecStart=')
      exec = line.slice('ExecStart='.length);
  }
  return exec
    .split(/\s+/)
    .filter((t) => t !== '')
    .flatMap((t) =>
      /^\$\w+$/.test(t) ? (env.get(t.slice(1)) ?? '').split(/\s+/).filter((x) => x !== '') : [t],
    );
}
