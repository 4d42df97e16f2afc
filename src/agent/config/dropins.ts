// --config-dir: every file whose name ends in exactly `.conf`, found recursively, walked
// depth-first in lexical order of each directory's entries (a subdirectory's files come where its
// name sorts), as the reference does. A missing directory is an error. Listed synchronously:
// nothing else runs while the configuration loads (see profile-signals.ts).
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../common/util/errors.js';
import { errnoText, loadDropInFile, type LoadedConfigFile, type LoadOptions } from './load.js';

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The drop-in files under `dir`, in the order they apply (a rejection says why not). */
export function listDropIns(dir: string): Promise<string[]> {
  try {
    return Promise.resolve(dropInPaths(dir));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

function dropInPaths(dir: string): string[] {
  const root = resolve(dir);
  try {
    const st = statSync(root);
    if (!st.isDirectory())
      throw new ConfigError(`config dir "${root}" is not a directory`, { file: root });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`failed to read config dir "${root}": ${errnoText(err)}`, {
      file: root,
      cause: err,
    });
  }
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 32)
      throw new ConfigError(`config dir "${root}" nests deeper than 32 levels at "${d}"`, {
        file: d,
      });
    let names: string[];
    try {
      names = readdirSync(d);
    } catch (err) {
      throw new ConfigError(`failed to read config dir "${d}": ${errnoText(err)}`, {
        file: d,
        cause: err,
      });
    }
    names.sort(byteOrder);
    for (const name of names) {
      const p = join(d, name);
      let st;
      try {
        st = statSync(p); // follows symlinks, as a directory walk over /etc usually should
      } catch (err) {
        throw new ConfigError(`failed to read drop-in "${p}": ${errnoText(err)}`, {
          file: p,
          cause: err,
        });
      }
      if (st.isDirectory()) walk(p, depth + 1);
      else if (name.endsWith('.conf')) out.push(p);
    }
  };
  walk(root, 0);
  return out;
}

export async function loadDropIns(dir: string, opts: LoadOptions): Promise<LoadedConfigFile[]> {
  // listed already by the naming-profile inference (pre-read.ts), or now
  const files = opts.preRead?.dropIns.get(resolve(dir)) ?? (await listDropIns(dir));
  const out: LoadedConfigFile[] = [];
  for (const f of files) out.push(await loadDropInFile(f, opts));
  return out;
}
