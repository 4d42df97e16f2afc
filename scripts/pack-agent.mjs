#!/usr/bin/env node
// Packs nodeagent alone as an npm package a node installs (npm run pack:agent, after npm run
// build): the agent's bundle (dist/bundle/nodeagent: every dependency it uses is inside it), its
// launcher, build stamp, config schema and man page, and a package.json with no dependencies,
// so installing the agent pulls none of plat-apiserver's (better-sqlite3, gRPC, OpenTelemetry,
// cel-js, jose, tweetnacl) and compiles nothing. Writes dist/pkg/nodeagent-<version>.tgz and
// prints its path.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'pkg');
const STAGE = join(OUT, 'nodeagent');

/** What the agent reads from its package at run time, beside the bundle. */
const FILES = [
  'bin/nodeagent',
  'bin/package.json',
  'dist/bundle/nodeagent',
  'dist/build-info.json',
  'schema/nodeagent-config.schema.json',
  'man/nodeagent.1',
];

function main() {
  for (const f of FILES)
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run "npm run build" first`);
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  for (const f of FILES) {
    mkdirSync(dirname(join(STAGE, f)), { recursive: true });
    cpSync(join(ROOT, f), join(STAGE, f), { recursive: true });
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const agentPkg = {
    name: 'nodeagent',
    version: pkg.version,
    description:
      'The node agent daemon (nodeagent) alone: one bundled program with no dependencies to install.',
    type: 'module',
    license: pkg.license,
    engines: pkg.engines,
    bin: { nodeagent: 'bin/nodeagent' },
    man: ['man/nodeagent.1'],
    files: FILES,
  };
  writeFileSync(join(STAGE, 'package.json'), `${JSON.stringify(agentPkg, null, 2)}\n`);
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', OUT], {
    cwd: STAGE,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop();
  process.stdout.write(`${join(OUT, name)}\n`);
}

main();
