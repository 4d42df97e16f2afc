#!/usr/bin/env node
// Builds the agent as one Node.js single executable application (npm run sea): a file that a
// systemd unit runs on a node with neither Node.js nor node_modules. Steps: esbuild bundles the
// agent into one CommonJS file (a single executable runs one CommonJS script, and its require()
// reaches only node: built-ins), with the package version, the build stamp and the published config
// schema fixed in (src/common/build-info.ts: nothing beside the executable to read them from);
// `node --experimental-sea-config` turns it into a blob with V8's code cache; postject injects
// the blob into a copy of the node binary. The agent has no native module (plat-apiserver's
// better-sqlite3 stays outside); ssh2's optional native parts fall back to JavaScript.
//
// Node: the node running this script, or SEA_NODE=/path/to/node (CI and the README use Node 24
// from the npm registry's `node` package). Output: dist/sea/nodeagent, or SEA_OUT=<dir>/nodeagent
// (test/integration/bundle/sea.test.ts builds into a temporary directory).
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL } from './bundle.mjs';
import { launchSettings } from './launch-settings.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = resolve(process.env.SEA_OUT ?? join(ROOT, 'dist', 'sea'));
const NODE = process.env.SEA_NODE ?? process.execPath;
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/**
 * What the bundles leave outside (scripts/bundle.mjs EXTERNAL: native addons, most optional) is
 * required through a require() rooted at the executable's own file. The require() Node gives the
 * main script of a single executable loads built-ins only and, asked for anything else, prints a
 * warning to stderr before it throws (ws and ssh2 try their optional addons as they load). From
 * beside the executable they are not found, as on a node without them, and the code that tries
 * them goes on without (node-pty: a tty exec on a process:// pod answers 500 naming the addon).
 */
function outsidePlugin() {
  const names = EXTERNAL.filter((e) => !e.includes('*')).map((e) =>
    e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  const filter = new RegExp(`^(${names.join('|')})(/|$)|\\.node$`);
  return {
    name: 'sea-outside',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'sea-outside' }));
      b.onLoad({ filter: /.*/, namespace: 'sea-outside' }, (args) => ({
        contents: `module.exports = require('node:module').createRequire(__seaUrl)(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

async function bundleAgent(entry) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  // npm run build stamped the commit, tree state and date (scripts/stamp-build.mjs).
  const stamped = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8'));
  const info = {
    version: pkg.version,
    gitCommit: stamped.gitCommit,
    gitTreeState: stamped.gitTreeState,
    buildDate: stamped.buildDate,
    configSchema: JSON.parse(
      readFileSync(join(ROOT, 'schema', 'nodeagent-config.schema.json'), 'utf8'),
    ),
  };
  writeFileSync(
    entry,
    [
      // as bin/nodeagent does: V8 has set the heap up; node's flag hash is its own again
      "require('node:v8').setFlagsFromString('--max-semi-space-size=0');",
      `const { main } = require(${JSON.stringify(join(ROOT, 'src', 'agent', 'cli', 'main.ts'))});`,
      'main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {',
      '  process.stderr.write(`nodeagent: ${err instanceof Error ? err.message : String(err)}\\n`);',
      '  process.exitCode = 1;',
      '});',
      '',
    ].join('\n'),
  );
  const script = join(OUT, 'nodeagent.cjs');
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'cjs',
    // import() becomes require(): a single executable's code cache has no dynamic import
    // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING; the atomic writer and the CSR's crypto use it)
    supported: { 'dynamic-import': false },
    plugins: [outsidePlugin()],
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
    console.warn(
      `not stripping ${exe}: strip (binutils) failed or is missing: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * Whether NODE's sea-config takes `execArgv`: a probe blob made with the flags holds them (a node
 * without the field, Node 20, ignores it and writes none).
 */
function takesExecArgv(nodeArgs) {
  const probe = join(OUT, 'probe');
  mkdirSync(probe);
  try {
    writeFileSync(join(probe, 'main.cjs'), '');
    writeFileSync(
      join(probe, 'sea-config.json'),
      JSON.stringify({
        main: join(probe, 'main.cjs'),
        output: join(probe, 'probe.blob'),
        execArgv: nodeArgs,
      }),
    );
    execFileSync(NODE, ['--experimental-sea-config', join(probe, 'sea-config.json')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const blob = readFileSync(join(probe, 'probe.blob'));
    return nodeArgs.every((a) => blob.includes(a));
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

function inject(script) {
  const blob = join(OUT, 'nodeagent.blob');
  const config = join(OUT, 'sea-config.json');
  // The node flags of bin/nodeagent's #! line (scripts/launch-settings.mjs) start the executable
  // too (execArgv, Node 24); the blob's code cache is made under them, as V8 takes a cache only
  // from the flags it was made with (it is compiled before the entry sets the flag back).
  // Its environment (malloc) goes in the unit: see the README.
  // A node whose sea-config has no execArgv (Node 20) starts the executable without them: its
  // code cache is then made without them too (else V8 refuses it at every start, `Warning: Code
  // cache data rejected.`), and the build says so.
  const launch = launchSettings().nodeArgs;
  const nodeArgs = launch.length > 0 && !takesExecArgv(launch) ? [] : launch;
  if (nodeArgs.length < launch.length) {
    console.warn(
      `node ${nodeVersion()} (${NODE}) has no single executable execArgv: the executable starts without bin/nodeagent's node flags (${launch.join(' ')}) and its code cache is made without them; SEA_NODE=<a Node 24> embeds a node that takes them`,
    );
  }
  writeFileSync(
    config,
    JSON.stringify({
      main: script,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      ...(nodeArgs.length > 0 ? { execArgv: nodeArgs } : {}),
    }),
  );
  execFileSync(NODE, [...nodeArgs, '--experimental-sea-config', config], { stdio: 'inherit' });
  const exe = join(OUT, 'nodeagent');
  copyFileSync(NODE, exe);
  stripSymbols(exe);
  // postject is a devDependency; SEA_POSTJECT may name its dist/cli.js elsewhere.
  const postject =
    process.env.SEA_POSTJECT ?? createRequire(import.meta.url).resolve('postject/dist/cli.js');
  // postject (LIEF) warns about note sections it cannot name; they do not matter here.
  execFileSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return exe;
}

const nodeVersion = () => execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();

/** dist/sea is the build's own (emptied first); a SEA_OUT directory must be new or empty. */
function prepareOut() {
  if (process.env.SEA_OUT === undefined) rmSync(OUT, { recursive: true, force: true });
  else if (existsSync(OUT) && readdirSync(OUT).length > 0)
    throw new Error(`SEA_OUT=${OUT} is not empty: give a new or empty directory`);
  mkdirSync(OUT, { recursive: true });
}

async function main() {
  prepareOut();
  const script = await bundleAgent(join(OUT, 'entry.cjs'));
  const exe = inject(script);
  // A start that says anything on stderr (V8 refusing the code cache, say) fails the build.
  const started = spawnSync(exe, ['--version'], { encoding: 'utf8' });
  if (started.status !== 0 || started.stderr !== '')
    throw new Error(
      `${exe} --version: status ${String(started.status)}, stderr: ${started.stderr}`,
    );
  const version = started.stdout.trim();
  const mb = (statSync(exe).size / 1024 / 1024).toFixed(1);
  console.log(`${exe}: ${version}, ${mb} MiB, built with node ${nodeVersion()}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
