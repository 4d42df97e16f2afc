// Creating a directory and its missing parents without `mkdir(..., { recursive: true })`, which
// spins forever on some paths (for example under /proc, where mkdir answers ENOENT for a
// parent that exists).

import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { errnoCode } from '../../common/util/errno.js';

export function ensureDirSync(path: string, mode: number): void {
  const missing: string[] = [];
  let cur = path;
  for (let depth = 0; depth < 256; depth++) {
    try {
      if (!statSync(cur).isDirectory()) throw new Error(`${cur} exists and is not a directory`);
      break;
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw err;
      missing.push(cur);
      const parent = dirname(cur);
      if (parent === cur) break;
      cur = parent;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
    }
  }
}
