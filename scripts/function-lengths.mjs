#!/usr/bin/env node
// Lists functions longer than a limit (default 60 lines), longest first: the house style's "no
// function over ~60 lines" as a figure. Usage: node scripts/function-lengths.mjs [--max N] [dir...]
// (default src). Counts every function-like node (declarations, methods, arrows, constructors,
// accessors) from its first to its last line; a nested function counts inside its parent too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
let max = 60;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--max') max = Number(args[++i]);
  else dirs.push(args[i]);
}
if (dirs.length === 0) dirs.push('src');

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield p;
  }
}

function nameOf(node, sf) {
  if (node.name !== undefined) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent !== undefined && ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

const found = [];
for (const dir of dirs) {
  for (const file of files(dir)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > max)
          found.push({ lines, where: `${file}:${start + 1}`, name: nameOf(node, sf) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.where}  ${f.name}`);
console.log(`${found.length} function(s) over ${max} lines`);
