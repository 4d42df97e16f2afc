#!/usr/bin/env node
// Stamps the build's version facts into dist/build-info.json at build time (npm run build):
// the commit, whether the tree had uncommitted changes, and the build date. `nodeagent
// --version=raw` reports these; nothing reads .git or a file's mtime at run time.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';

const git = (...args) => {
  try {
    return execFileSync('git', args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
};
const commit = git('rev-parse', 'HEAD');
const status =
  commit === undefined ? undefined : git('status', '--porcelain', '--untracked-files=no');
const info = {
  gitCommit: commit ?? 'unknown',
  gitTreeState: status === undefined ? 'unknown' : status === '' ? 'clean' : 'dirty',
  // SOURCE_DATE_EPOCH makes the date reproducible where a packager sets it.
  buildDate:
    new Date(
      process.env.SOURCE_DATE_EPOCH ? Number(process.env.SOURCE_DATE_EPOCH) * 1000 : Date.now(),
    )
      .toISOString()
      .slice(0, 19) + 'Z',
};
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json.tmp', `${JSON.stringify(info, null, 2)}\n`);
renameSync('dist/build-info.json.tmp', 'dist/build-info.json');
