#!/usr/bin/env node
// Builds the agent as one Node.js single executable application (npm run sea): a file that a
// systemd unit runs on a node with neither Node.js nor node_modules. Steps: esbuild bundles the
// agent into one CommonJS file (a single executable runs one CommonJS script, and its require()
// reaches only node: built-ins), with the package version, the build stamp and the published config
// schema fixed in (src/agent/build-info.ts: nothing beside the executable to read them from);
// `node --experimental-sea-config` turns it into a blob with V8's code cache; postject injects
// the blob into a copy of the node binary. The agent has no native module (plat-apiserver's
// better-sqlite3 stays outside); ssh2's optional native parts fall back to JavaScript.
//
// Node: the node running this script, or SEA_NODE=/path/to/node (CI and the README use Node 24
// from the npm registry's `node` package). Output: dist/sea/nodeagent.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL } from './bundle.mjs';
import { launchSettings } from './launch-settings.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'sea');
const NODE = process.env.SEA_NODE ?? process.execPath;
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function bundleAgent(entry) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  // npm run build stamped the commit, tree state and date (scripts/stamp-build.mjs).
  const stamped = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8'));
  const info = {
    version: pkg.version,
    gitCommit: stamped.gitCommit,
    gitTreeState: stamped.gitTreeState,
    buildDate: stamped.buildDate,
    configSchema: JSON.parse(readFileSync(join(ROOT, 'schema', 'nodeagent-config.schema.json'), 'utf8')),
  };
  writeFileSync(entry, [
    "const { main } = require('../../src/agent/cli/main.ts');",
    'main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {',
    '  process.stderr.write(`nodeagent: ${err instanceof Error ? err.message : String(err)}\\n`);',
    '  process.exitCode = 1;',
    '});',
    '',
  ].join('\n'));
  const script = join(OUT, 'nodeagent.cjs');
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'cjs',
    external: EXTERNAL,
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    // import.meta is empty in CommonJS: the two modules that look for package files get the
    // executable's own URL (they find nothing beside it and use NODEAGENT_BUILD_INFO instead).
    define: { 'import.meta.url': '__seaUrl', NODEAGENT_BUILD_INFO: JSON.stringify(info) },
    banner: { js: "var __seaUrl = require('node:url').pathToFileURL(process.execPath).href;" },
    absWorkingDir: ROOT,
  });
  return script;
}

/** The npm registry's node binary carries its symbols (about 17 MiB): strip them when binutils is here. */
function stripSymbols(exe) {
  try {
    execFileSync('strip', [exe], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    console.warn(`not stripping ${exe}: strip (binutils) failed or is missing: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function inject(script) {
  const blob = join(OUT, 'nodeagent.blob');
  const config = join(OUT, 'sea-config.json');
  // The node flags of bin/nodeagent's #! line (scripts/launch-settings.mjs) start the executable
  // too (execArgv, Node 24); the blob's code cache is made under them, as V8 takes a cache only
  // from the flags it was made with. Its environment (malloc) goes in the unit: see the README.
  const { nodeArgs } = launchSettings();
  writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, execArgv: nodeArgs }));
  execFileSync(NODE, [...nodeArgs, '--experimental-sea-config', config], { stdio: 'inherit' });
  const exe = join(OUT, 'nodeagent');
  copyFileSync(NODE, exe);
  stripSymbols(exe);
  // postject is a devDependency; SEA_POSTJECT may name its dist/cli.js elsewhere.
  const postject = process.env.SEA_POSTJECT ?? createRequire(import.meta.url).resolve('postject/dist/cli.js');
  // postject (LIEF) warns about note sections it cannot name; they do not matter here.
  execFileSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], { stdio: ['ignore', 'ignore', 'pipe'] });
  return exe;
}

async function main() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const script = await bundleAgent(join(OUT, 'entry.cjs'));
  const exe = inject(script);
  const version = execFileSync(exe, ['--version'], { encoding: 'utf8' }).trim();
  const mb = (statSync(exe).size / 1024 / 1024).toFixed(1);
  console.log(`${exe}: ${version}, ${mb} MiB, built with node ${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
