// Reading the reference's /openapi/v3 documents (a real kube-apiserver 1.32's, kept beside the
// repository in ../shared/reference/kubernetes-1.32/openapi-v3): the one reader the generators of
// schemas from them share (reference-core-schema.mjs, pod-schema.mjs).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the folder above scripts/. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const REFERENCE_OPENAPI = join('shared', 'reference', 'kubernetes-1.32', 'openapi-v3');

/**
 * The reference's openapi-v3 folder: `../shared/...` beside the repository, or beside a folder
 * above it (a worktree of the repository lives one level deeper). Undefined when absent.
 */
export function findReferenceDir() {
  let dir = dirname(repoRoot);
  for (let i = 0; i < 3; i++) {
    const p = join(dir, REFERENCE_OPENAPI);
    if (existsSync(p)) return p;
    dir = dirname(dir);
  }
  return undefined;
}

/** A path for headers and messages: relative to the repository, never a machine's own path. */
export function shownPath(p) {
  return relative(repoRoot, p).split('\\').join('/');
}

/** The `components.schemas` of the given documents (every .json of `dir` when `files` is absent). */
export function readSchemas(dir, files) {
  const names = files ?? readdirSync(dir).filter((x) => x.endsWith('.json'));
  const ref = {};
  for (const f of names)
    Object.assign(ref, JSON.parse(readFileSync(join(dir, f), 'utf8')).components.schemas);
  return ref;
}

/** The definition a property refers to ($ref, or allOf[0].$ref), by its full name. */
export function refName(p) {
  const r = p.$ref ?? p.allOf?.[0]?.$ref;
  return r === undefined ? undefined : r.split('/').pop();
}

/** The names in `deps` (a Map of name → Set of names) ordered dependencies first; a cycle throws. */
export function dependenciesFirst(deps) {
  const ordered = [];
  const state = new Map();
  const visit = (n, chain) => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'open') throw new Error(`cycle: ${[...chain, n].join(' -> ')}`);
    state.set(n, 'open');
    for (const d of [...(deps.get(n) ?? [])].sort()) visit(d, [...chain, n]);
    state.set(n, 'done');
    ordered.push(n);
  };
  for (const n of [...deps.keys()].sort()) visit(n, []);
  return ordered;
}
