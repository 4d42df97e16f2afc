// $(VAR) references, expanded as the reference expands command, args, env values and subPathExpr:
// `$(name)` is replaced by the first of the given maps that holds `name` (any text up to the
// first `)` is a name), `$$` is a literal `$`, and anything else (an unknown name, `$x`, an
// unclosed `$(`) is left as written.
import type { Container, Pod } from './types.js';

/** What a container runs with: its environment in order, command and args expanded over it. */
export interface ContainerEnvironment {
  env: readonly { name: string; value: string }[];
  command?: string[];
  args?: string[];
}

/** A container's environment, command and args as the worker resolves them (src/agent/env). */
export type ResolveEnvironment = (
  pod: Pod,
  c: Container,
  podIP: string | undefined,
) => Promise<ContainerEnvironment>;

type Vars = ReadonlyMap<string, string>;

function lookup(maps: readonly Vars[], name: string): string | undefined {
  for (const m of maps) {
    const v = m.get(name);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** `input` with each `$(name)` replaced by its value in the first map that has it. */
export function expandVars(input: string, ...maps: readonly Vars[]): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const dollar = input.indexOf('$', i);
    if (dollar < 0 || dollar === input.length - 1) break;
    out += input.slice(i, dollar);
    const next = input[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
      continue;
    }
    const close = next === '(' ? input.indexOf(')', dollar + 2) : -1;
    if (close < 0) {
      // not a reference: `$` and the character after it stay as written
      out += input.slice(dollar, dollar + 2);
      i = dollar + 2;
      continue;
    }
    const name = input.slice(dollar + 2, close);
    out += lookup(maps, name) ?? `$(${name})`;
    i = close + 1;
  }
  return out + input.slice(i);
}

function plainEnvMap(c: Container): Map<string, string> {
  const env = new Map<string, string>();
  for (const e of c.env ?? []) env.set(e.name, expandVars(e.value ?? '', env));
  return env;
}

/** The container's env[].value entries in order, each expanded over those before it. */
export function containerEnv(c: Container): Record<string, string> {
  return Object.fromEntries(plainEnvMap(c));
}

/** command and args with $(VAR) expanded over `env` (the container's env values by default). */
export function expandedCommand(
  c: Container,
  env: Vars = plainEnvMap(c),
): { command?: string[]; args?: string[] } {
  return {
    ...(c.command !== undefined ? { command: c.command.map((s) => expandVars(s, env)) } : {}),
    ...(c.args !== undefined ? { args: c.args.map((s) => expandVars(s, env)) } : {}),
  };
}

/**
 * The environment of a container made without the worker's resolution (env sources, service
 * variables): its env[].value entries only. The runtimes use it when a caller passes none.
 */
export function plainEnvironment(c: Container): ContainerEnvironment {
  const env = plainEnvMap(c);
  return {
    env: [...env].map(([name, value]) => ({ name, value })),
    ...expandedCommand(c, env),
  };
}
