// --vmodule: `pattern=N` pairs. The reference matches file names; our loggers are named by
// component (the `component` binding of a child logger), so patterns match component names, with
// `*` (any run of characters) and `?` (one character) as glob wildcards. The first match wins.

export interface VModuleItem {
  readonly filePattern: string;
  readonly verbosity: number;
}

function globToRegExp(glob: string): RegExp {
  let re = '^';
  for (const ch of glob) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`${re}$`);
}

/** The verbosity vmodule sets for `component`, or undefined when no pattern matches. */
export function vmoduleVerbosity(
  items: readonly VModuleItem[],
  component: string,
): number | undefined {
  for (const item of items) {
    if (globToRegExp(item.filePattern).test(component)) return item.verbosity;
  }
  return undefined;
}
