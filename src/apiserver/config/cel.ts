// CEL expressions in the configuration files are compiled and type-checked when a file is loaded,
// so a typo is a startup error naming the field, never a per-request surprise.
import { Environment } from '@marcbachmann/cel-js';

/** What an expression must produce. */
export type CelResult = 'bool' | 'string' | 'string-or-list';

export type CelVariable = 'claims' | 'user' | 'request';

export interface CompiledCel {
  readonly expression: string;
  /** Evaluates with the given variable bound; throws on evaluation errors. */
  evaluate(value: unknown): unknown;
}

const ACCEPTED: Record<CelResult, readonly string[]> = {
  bool: ['bool', 'dyn'],
  string: ['string', 'dyn'],
  'string-or-list': ['string', 'dyn', 'list', 'list<string>', 'list<dyn>', 'null_type'],
};

const WANTED: Record<CelResult, string> = {
  bool: 'must evaluate to bool',
  string: 'must evaluate to string',
  'string-or-list': 'must evaluate to string or list of strings',
};

function environment(variable: CelVariable): Environment {
  return new Environment({ homogeneousAggregateLiterals: false }).registerVariable(
    variable,
    'map<string, dyn>',
  );
}

/** Compiles and type-checks; returns the compiled expression or a message saying what is wrong. */
export function compileCel(
  expression: string,
  variable: CelVariable,
  result: CelResult,
): { ok: true; compiled: CompiledCel } | { ok: false; message: string } {
  if (expression.trim() === '') return { ok: false, message: 'Required value' };
  const env = environment(variable);
  let checked;
  try {
    checked = env.check(expression);
  } catch (err) {
    return { ok: false, message: `Invalid value: compilation failed: ${firstLine(err)}` };
  }
  if (!checked.valid) {
    return { ok: false, message: `Invalid value: compilation failed: ${firstLine(checked.error)}` };
  }
  const type = String(checked.type);
  if (!ACCEPTED[result].includes(type)) {
    return { ok: false, message: `Invalid value: ${WANTED[result]}, got ${type}` };
  }
  let program: (ctx: Record<string, unknown>) => unknown;
  try {
    program = env.parse(expression);
  } catch (err) {
    return { ok: false, message: `Invalid value: compilation failed: ${firstLine(err)}` };
  }
  return {
    ok: true,
    compiled: {
      expression,
      evaluate: (value: unknown) => program({ [variable]: value }),
    },
  };
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? text).trim();
}
