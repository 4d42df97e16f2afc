// The `yaml` library prints every lexical token (LOG_TOKENS) and every CST token it composes
// (LOG_STREAM) to stdout when either is set in the environment: the text of a file or a request
// body (a key, a token) would reach stdout outside the logger. While a text is parsed both are
// unset (parsing is synchronous: nothing else runs meanwhile) and then put back; a note says so
// once.
import { yamlNote } from './yaml-notes.js';

const VARS = ['LOG_TOKENS', 'LOG_STREAM'] as const;

let noted = false;

/** Runs `fn` (a synchronous parse) with the `yaml` library's debug printing off. */
export function withoutYamlDebugOutput<T>(fn: () => T): T {
  const env = process.env;
  const set = VARS.filter((k) => env[k] !== undefined);
  if (set.length === 0) return fn();
  const saved = set.map((k) => [k, env[k]] as const);
  if (!noted) {
    noted = true;
    yamlNote(
      `${set.join(' and ')} set in the environment: ignored while YAML is parsed (the ` +
        `yaml library would print the text it reads to stdout)`,
    );
  }
  for (const k of set) Reflect.deleteProperty(env, k);
  try {
    return fn();
  } finally {
    for (const [k, v] of saved) env[k] = v;
  }
}
