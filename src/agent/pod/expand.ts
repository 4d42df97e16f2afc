// $(VAR) references in command and args expand to the container's env values, as in the
// reference; $$(VAR) escapes to a literal $(VAR); unknown names stay as written.
import type { Container } from './types.js';

export function expandVars(input: string, env: Readonly<Record<string, string>>): string {
  return input.replace(
    /\$\$|\$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)/g,
    (m, name: string | undefined) => {
      if (m === '$$') return '$';
      return (name !== undefined && Object.hasOwn(env, name) ? env[name] : undefined) ?? m;
    },
  );
}

export function containerEnv(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) env[e.name] = expandVars(e.value ?? '', env);
  return env;
}

/** command and args with $(VAR) expanded. */
export function expandedCommand(c: Container): { command?: string[]; args?: string[] } {
  const env = containerEnv(c);
  return {
    ...(c.command !== undefined ? { command: c.command.map((s) => expandVars(s, env)) } : {}),
    ...(c.args !== undefined ? { args: c.args.map((s) => expandVars(s, env)) } : {}),
  };
}
