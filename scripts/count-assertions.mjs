#!/usr/bin/env node
// Counts type assertions in src/: the `as` assertions figure. Counts every `x as T`
// (AsExpression) and `<T>x` (TypeAssertion) node found by the TypeScript compiler's parser, except
// `as const` / `<const>x` (a literal's narrowest type, not an assertion about a value); `x as
// unknown as T` is two nodes and counts 2. Prints the total, then a table per folder: src/common as
// one, src/agent/<part> and src/apiserver/<part> (files directly under a program count as
// "<program>/(root)"). Usage: node scripts/count-assertions.mjs [--files] [dir] (default src);
// --files also lists each file with its count, most first.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const listFiles = args.includes('--files');
const root = args.find((a) => a !== '--files') ?? 'src';

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield p;
  }
}

function isConstAssertion(type) {
  return (
    ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === 'const'
  );
}

function countIn(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  let n = 0;
  const visit = (node) => {
    if (
      (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
      !isConstAssertion(node.type)
    )
      n++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

/** src/common; src/agent/<part>; src/apiserver/<part>; anything else by its first folder. */
function folderOf(file) {
  const parts = relative('.', file).split(sep);
  if (parts[0] !== 'src' || parts.length < 3) return parts.slice(0, -1).join('/') || '.';
  if (parts[1] === 'common') return 'src/common';
  return parts.length === 3 ? `src/${parts[1]}/(root)` : `src/${parts[1]}/${parts[2]}`;
}

const byFolder = new Map();
const byFile = [];
let total = 0;
for (const file of files(root)) {
  const n = countIn(file);
  total += n;
  const folder = folderOf(file);
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + n);
  if (n > 0) byFile.push({ file, n });
}

console.log(`${total} type assertion(s) in ${root} (as const excluded)`);
const width = Math.max(...[...byFolder.keys()].map((k) => k.length));
for (const [folder, n] of [...byFolder].sort((a, b) => a[0].localeCompare(b[0]))) {
  console.log(`  ${folder.padEnd(width)}  ${String(n).padStart(4)}`);
}
if (listFiles) {
  console.log('');
  byFile.sort((a, b) => b.n - a.n || a.file.localeCompare(b.file));
  for (const { file, n } of byFile) console.log(`${String(n).padStart(4)}  ${file}`);
}
