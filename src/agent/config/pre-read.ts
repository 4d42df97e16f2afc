// The --config file and --config-dir drop-ins are read once per start. The naming-profile
// inference (cli/profile-signals.ts) reads each file before the loader runs; what it read is kept
// here and handed to the loader (load.ts, dropins.ts), which takes each entry once instead of
// reading and parsing the file again. A file the inference could not read is not here: the loader
// reads it and reports the problem.
import { resolve } from 'node:path';

export interface PreReadFile {
  /** The file's text. */
  readonly text: string;
  /**
   * common/util/fast-yaml.ts's decoding of the text, or undefined when only the full parser can
   * read it.
   */
  readonly fast: { value: unknown } | undefined;
}

export interface PreRead {
  /** Files read, by absolute path. */
  readonly files: Map<string, PreReadFile>;
  /** --config-dir listings, by absolute directory. */
  readonly dropIns: Map<string, readonly string[]>;
}

export function newPreRead(): PreRead {
  return { files: new Map(), dropIns: new Map() };
}

/** The pre-read file at `path`, removed so that its decoded value is used (and changed) once. */
export function takePreRead(pre: PreRead | undefined, path: string): PreReadFile | undefined {
  if (pre === undefined) return undefined;
  const key = resolve(path);
  const got = pre.files.get(key);
  pre.files.delete(key);
  return got;
}
