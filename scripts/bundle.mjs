#!/usr/bin/env node
// Bundles each program into one ES module with esbuild (npm run build runs it after tsc):
// dist/bundle/<program>/<program>.mjs, plus lazy chunks (chunks/) for what start-up does not
// load (every dynamic import() stays a separate file, loaded when first needed) and source maps
// (the launchers in bin/ turn them on, so stack traces name src/ lines). Native modules stay
// outside: better-sqlite3 (plat-apiserver's storage, a .node addon), node-pty (the process://
// terminal), cpu-features and ssh2's optional sshcrypto addon (both loaded by ssh2 inside
// try/catch, with pure-JS fallbacks), ws's optional bufferutil and utf-8-validate (the same), and
// usocket (dbus-next's unix socket with file descriptor passing, for graceful node shutdown;
// dbus-next's x11 lookup of a session bus address is never reached: the agent names its bus).
// The agent is also bundled as CommonJS, dist/bundle/nodeagent/nodeagent.cjs (the configuration
// phase) requiring nodeagent-run.cjs (bootstrap and what precedes it) requiring
// nodeagent-parts.cjs (the rest), each with the V8 code cache of its start-up
// (scripts/code-cache.mjs writes <file>.cache) and their loader (code-cache.cjs, from
// src/agent/cli/code-cache.ts): bin/nodeagent runs them on Node 20, which has no module compile
// cache; on Node 22+ it runs the ES module bundle with the compile cache on.
// Usage: node scripts/bundle.mjs [--metafile]   (writes dist/bundle/<program>/meta.json too)
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownSourceMap } from './own-source-map.mjs';
import { launchSettings } from './launch-settings.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');

export const PROGRAMS = [
  { name: 'nodeagent', entry: 'src/agent/cli/main.ts' },
  // The TLS front processes run tls-front.mjs beside the bundle (src/apiserver/front/), the
  // worker threads worker-thread.mjs (src/apiserver/workers/).
  {
    name: 'plat-apiserver',
    entry: 'src/apiserver/main.ts',
    more: {
      'tls-front': 'src/apiserver/front/tls-front.ts',
      'worker-thread': 'src/apiserver/workers/thread-main.ts',
    },
  },
];

/** Modules that are never bundled: native addons and the optional native parts of ssh2. */
export const EXTERNAL = [
  'better-sqlite3',
  'cpu-features',
  'node-pty',
  'bufferutil',
  'utf-8-validate',
  'usocket',
  'x11',
  '*.node',
];

// CommonJS dependencies bundled into an ES module call require() for node: built-ins and may read
// __filename/__dirname; an ES module has none of them, so each output file defines them (names
// the CommonJS code expects; the ES sources bundled here declare none of them at top level).
const CJS_BANNER = [
  "import { createRequire as __bundleCreateRequire } from 'node:module';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
  'const require = __bundleCreateRequire(import.meta.url);',
  'const __filename = __bundleFileURLToPath(import.meta.url);',
  "const __dirname = __bundleFileURLToPath(new URL('.', import.meta.url));",
].join('\n');

/** esbuild options shared by the bundles and the single executable (which overrides a few). */
export function commonOptions() {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    external: EXTERNAL,
    // Whitespace and syntax only: identifiers keep their names (class and function names show
    // in logs and some libraries read them); parsing less text shortens every cold start.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'linked',
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
    absWorkingDir: ROOT,
  };
}

async function bundle(program, metafile) {
  const outdir = join(OUT, program.name);
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...commonOptions(),
    entryPoints: {
      [program.name]: join(ROOT, program.entry),
      ...Object.fromEntries(
        Object.entries(program.more ?? {}).map(([name, entry]) => [name, join(ROOT, entry)]),
      ),
    },
    outdir,
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: CJS_BANNER },
    metafile: true,
  });
  if (metafile) await writeFile(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
  await checkNoDefaultOnlyChunks(result.metafile);
  await shrinkSourceMaps(result.metafile);
  return outdir;
}

/**
 * Keeps each source map to the project's own sources (files under src/; see own-source-map.mjs),
 * each named by its path from the map's directory: a source esbuild names in a plugin's namespace
 * (`agent-config:src/...`, from the repository root) is rewritten to that path.
 */
export async function shrinkSourceMaps(meta, options = {}) {
  for (const file of Object.keys(meta.outputs).filter((f) => f.endsWith('.map'))) {
    const path = join(ROOT, file);
    const map = JSON.parse(await readFile(path, 'utf8'));
    map.sources = map.sources.map((s) => {
      const namespaced = /^[a-z][\w-]*:(?!\/\/)(.+)$/.exec(s);
      return namespaced === null ? s : relative(dirname(path), join(ROOT, namespaced[1]));
    });
    const src = join(ROOT, 'src') + '/';
    const own = (s) => resolve(dirname(path), s).startsWith(src);
    await writeFile(path, JSON.stringify(ownSourceMap(map, own, options)));
  }
}

/**
 * A dynamic import() of a CommonJS package becomes, in a split bundle, a chunk whose only export
 * is `default`: the package's named exports are gone and calls through them fail at run time.
 * Such an import must go through a small local module that imports the package statically.
 */
async function checkNoDefaultOnlyChunks(meta) {
  for (const [file, out] of Object.entries(meta.outputs)) {
    if (!file.endsWith('.mjs') || out.exports.length !== 1 || out.exports[0] !== 'default')
      continue;
    const text = await readFile(join(ROOT, file), 'utf8');
    if (/^export default require_\w+\(\);$/m.test(text)) {
      const cjs = out.entryPoint ?? Object.keys(out.inputs).join(', ');
      throw new Error(
        `${file}: a dynamic import() of the CommonJS module ${cjs} keeps only its default export; import it statically from a local module that is itself imported dynamically`,
      );
    }
  }
}

/**
 * Makes a bundle ASCII by escaping every other character (\\uXXXX, astral ones as surrogate pairs,
 * which strings, templates, regular expressions, comments and identifiers all read back as the
 * same character), so the loader reads it as latin1. esbuild escapes strings, not regex literals.
 */
export function asciiOnly(text) {
  return text.replace(
    /[^\x00-\x7f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Packages the agent uses rarely and late (config problems, tracing, the Docker runtime, graceful
 * shutdown over D-Bus) stay out of its CommonJS bundle: a code cache costs start-up time in
 * proportion to the bundle it compiles (5.3 MB with them, 2.4 MB without). Each group is bundled
 * on its own into vendor/<group>.cjs and required, by Node's own loader, when first used.
 */
export const CJS_VENDOR_GROUPS = [
  { group: 'zod', test: /^zod(\/|$)/ },
  // The API alone: the agent's servers use it whether or not tracing is on; the SDK and exporter
  // (tracing) load only when tracing is configured, and share this one copy of the API.
  { group: 'otel-api', test: /^@opentelemetry\/api$/ },
  // gRPC alone: the CRI client uses it on every node with containerd, without the tracing SDK
  // (1.5 MB with it); the tracing exporter shares this one copy.
  { group: 'grpc', test: /^@grpc\// },
  { group: 'tracing', test: /^@opentelemetry\// },
  { group: 'docker', test: /^dockerode$/ },
  { group: 'dbus', test: /^dbus-next$/ },
];

/**
 * esbuild plugin: a vendor package import becomes a require() of its group's vendor file
 * (`dir`: that file's directory as the requiring bundle sees it; `own`: the group being built).
 */
function vendorPlugin(used, dir = './vendor/', own = undefined) {
  return {
    name: 'vendor-groups',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const g = CJS_VENDOR_GROUPS.find((v) => v.test.test(args.path));
        if (g === undefined || g.group === own || args.namespace === 'vendor') return undefined;
        if (!used.has(g.group)) used.set(g.group, new Set());
        used.get(g.group).add(args.path);
        return { path: args.path, namespace: 'vendor', pluginData: g.group };
      });
      b.onResolve({ filter: /^\.\//, namespace: 'vendor' }, (args) => ({
        path: args.path,
        external: true,
      }));
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`${dir}${args.pluginData}.cjs`)})(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * vendor/<group>.cjs: a function from each import path the agent uses to that module (`specs`
 * lists them, for the build's warm-up); another group's package is required from its own file.
 */
async function bundleVendorGroup(outdir, group, specs, used) {
  const entries = [...specs]
    .sort()
    .map((spec) => `  ${JSON.stringify(spec)}: () => require(${JSON.stringify(spec)}),`);
  const outfile = join(outdir, 'vendor', `${group}.cjs`);
  await build({
    ...commonOptions(),
    stdin: {
      contents: `const load = {\n${entries.join('\n')}\n};\nmodule.exports = Object.assign((spec) => load[spec](), { specs: Object.keys(load) });\n`,
      resolveDir: ROOT,
      sourcefile: `vendor-${group}.cjs`,
    },
    outfile,
    format: 'cjs',
    sourcemap: false,
    plugins: [vendorPlugin(used, './', group)],
    define: { 'import.meta.url': '__vendorImportMetaUrl' },
    banner: {
      js: "var __vendorImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
  });
  await writeFile(outfile, asciiOnly(await readFile(outfile, 'utf8')));
}

/**
 * What the agent loads once its configuration is settled: main.ts's dynamic imports of the agent
 * and its start-up parts, and the parsers only a configuration problem needs (the `yaml` library
 * that words line and column, the zod schema). The configuration phase (nodeagent.cjs: flags,
 * config load, merge, validation, --print-config, --help, --version) requires the run
 * (nodeagent-run.cjs: these modules and everything only they use, but the parts) on the first
 * import() of one of them. A code cache costs start-up time in proportion to the file it
 * compiles: 2.4 MB in one file against ~0.3 MB for the configuration phase.
 */
export const AGENT_RUN_MODULES = [
  'src/agent/start/agent.ts',
  // reached by agent.ts's import() too; named here for the build's warm-up (scripts/code-cache.mjs)
  'src/agent/certificate/setup.ts',
  'src/agent/cli/host-checks.ts',
  'src/common/log/logger.ts',
  'src/agent/config/logger-options.ts',
  'src/agent/config/unsafe-serving.ts',
  'src/common/util/bounded-yaml.ts',
  'src/agent/config/yaml-doc.ts',
  'src/agent/config/schema.ts',
  'src/agent/config/schema-paths.ts',
];
/**
 * What the run loads once the client certificate is settled (src/agent/start/agent.ts's import()s
 * after bootstrap, and the certificate code's own late ones): the third file, nodeagent-parts.cjs,
 * required on the first import() of one of them, so that the file a node's first start reads and
 * compiles before its certificate is on disk holds bootstrap and what precedes it, not the pods,
 * the runtimes and the servers (the run's source 2.5 MB in one file).
 */
export const AGENT_PARTS_MODULES = [
  'src/agent/start/parts.ts',
  'src/agent/runtime/settings/from-config.ts',
  'src/agent/cli/inert-options.ts',
  'src/agent/cgroups/setup.ts',
  'src/agent/cm/from-config.ts',
  'src/agent/runtime/factory.ts',
  'src/agent/runtime/credentials/keyring.ts',
  'src/agent/cgroups/docker-driver.ts',
  'src/agent/certificate/x509-lib.ts',
  'src/agent/certificate/metrics.ts',
];
const RUN_FILE = 'nodeagent-run.cjs';
const PARTS_FILE = 'nodeagent-parts.cjs';
const CONFIG_FILE = 'nodeagent.cjs';
const SKIP = Symbol('resolving');

/** A module's key in both bundles: its path from the repository root. */
const keyOf = (path) => relative(ROOT, path);

/** Options of both halves of the agent's CommonJS bundle. */
function agentCjsOptions(outfile, plugins) {
  return {
    ...commonOptions(),
    outfile,
    format: 'cjs',
    // import() of an external (node-pty, node: built-ins) becomes require(): a vm.Script has no
    // dynamic import on Node 20 without --experimental-vm-modules.
    supported: { 'dynamic-import': false },
    // import.meta is empty in CommonJS: the modules that look for package files beside them
    // (build stamp, config schema) get the bundle's own URL.
    define: { 'import.meta.url': '__bundleImportMetaUrl' },
    banner: {
      js: "var __bundleImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    plugins,
    metafile: true,
  };
}

/** esbuild plugin: resolves an import with the other plugins and esbuild, then lets `pick` redirect it. */
function redirectPlugin(name, pick, load) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === SKIP || args.namespace !== 'file') return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: SKIP,
        });
        if (r.errors.length > 0 || r.external || r.namespace !== 'file') return undefined;
        const key = pick(keyOf(r.path), args.kind);
        return key === undefined ? undefined : { path: key, namespace: name };
      });
      b.onResolve({ filter: /^\.\//, namespace: name }, (args) => ({
        path: args.path,
        external: true,
      }));
      b.onLoad({ filter: /.*/, namespace: name }, (args) => ({
        contents: load(args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * The configuration phase: main.ts, with each import() of a run module a require() of the run
 * file, and `__shared(key)`: the modules of this file the run and parts files import (`shared`),
 * so the files hold one instance of each module (one ConfigError class, one clock, one set of
 * names).
 */
async function buildConfigPhase(outdir, used, run, shared) {
  const entries = [...shared]
    .sort()
    .map((k) => `  ${JSON.stringify(k)}: () => require(${JSON.stringify(join(ROOT, k))}),`);
  const contents = [
    `export * from ${JSON.stringify(join(ROOT, 'src/agent/cli/main.ts'))};`,
    `const shared = {\n${entries.join('\n')}\n};`,
    '/** A module of this file, for nodeagent-run.cjs and nodeagent-parts.cjs. */',
    'export function __shared(key) { return shared[key](); }',
  ].join('\n');
  return build({
    ...agentCjsOptions(join(outdir, CONFIG_FILE), [
      vendorPlugin(used),
      fromKeyedFile('agent-run', RUN_FILE, (key, kind) =>
        kind === 'dynamic-import' && run.has(key) ? key : undefined,
      ),
    ]),
    stdin: { contents, resolveDir: ROOT, sourcefile: 'nodeagent-entry.js' },
  });
}

/**
 * A plugin taking each import `pick` accepts from the keyed file `file` (its entry is keyedEntry's:
 * `require(file)(key)`), under the namespace `name`.
 */
function fromKeyedFile(name, file, pick) {
  return redirectPlugin(
    name,
    pick,
    (key) => `module.exports = require(${JSON.stringify(`./${file}`)})(${JSON.stringify(key)});`,
  );
}

/** A plugin taking each import of a module of the configuration phase from that file. */
function fromConfigPhase(configInputs, shared) {
  return redirectPlugin(
    'agent-config',
    (key) => (configInputs.has(key) ? (shared.add(key), key) : undefined),
    (key) =>
      `module.exports = require(${JSON.stringify(`./${CONFIG_FILE}`)}).__shared(${JSON.stringify(key)});`,
  );
}

/** The entry of a file whose modules are required by key: `require(file)(key)`. */
function keyedEntry(keys, sourcefile) {
  const entries = [...keys]
    .sort()
    .map((k) => `  ${JSON.stringify(k)}: () => require(${JSON.stringify(join(ROOT, k))}),`);
  return {
    contents: `const load = {\n${entries.join('\n')}\n};\nmodule.exports = Object.assign((key) => load[key](), { keys: Object.keys(load) });\n`,
    resolveDir: ROOT,
    sourcefile,
  };
}

/**
 * The run: the run modules (and `more`, the ones the parts take from it), each import of a
 * configuration-phase module taken from that file, each import() of a part from the parts file.
 */
async function buildRun(outdir, used, run, configInputs, parts, more = new Set()) {
  const shared = new Set();
  const result = await build({
    ...agentCjsOptions(join(outdir, RUN_FILE), [
      vendorPlugin(used),
      fromConfigPhase(configInputs, shared),
      fromKeyedFile('agent-parts', PARTS_FILE, (key, kind) =>
        kind === 'dynamic-import' && parts.has(key) ? key : undefined,
      ),
    ]),
    stdin: keyedEntry(new Set([...run, ...more]), 'nodeagent-run-entry.js'),
  });
  return { result, shared };
}

/** The parts: each import of a module of the configuration phase or of the run from its file. */
async function buildParts(outdir, used, parts, configInputs, runInputs) {
  const sharedConfig = new Set();
  const sharedRun = new Set();
  const result = await build({
    ...agentCjsOptions(join(outdir, PARTS_FILE), [
      vendorPlugin(used),
      fromConfigPhase(configInputs, sharedConfig),
      fromKeyedFile('agent-run', RUN_FILE, (key) =>
        runInputs.has(key) ? (sharedRun.add(key), key) : undefined,
      ),
    ]),
    stdin: keyedEntry(parts, 'nodeagent-parts-entry.js'),
  });
  return { result, sharedConfig, sharedRun };
}

/**
 * The agent's three CommonJS files for the Node 20 launcher (see the top of this file,
 * AGENT_RUN_MODULES and AGENT_PARTS_MODULES).
 */
async function bundleAgentCjs(program) {
  const outdir = join(OUT, program.name);
  const used = new Map();
  const inputs = (r) =>
    new Set(
      Object.keys(r.metafile.inputs)
        .filter((k) => !k.includes(':'))
        .map((k) => keyOf(join(ROOT, k))),
    );
  // The configuration phase's modules decide what the run takes from it; a run module that the
  // configuration phase also imports statically stays there (one instance). The run's modules
  // decide what the parts take from it, the same way.
  const first = await buildConfigPhase(outdir, new Map(), new Set(AGENT_RUN_MODULES), new Set());
  const run = new Set(AGENT_RUN_MODULES.filter((k) => !inputs(first).has(k)));
  const parts = new Set(AGENT_PARTS_MODULES);
  const runFirst = await buildRun(outdir, new Map(), run, inputs(first), parts);
  const partsBuilt = await buildParts(outdir, used, parts, inputs(first), inputs(runFirst.result));
  const { result: runResult, shared } = await buildRun(
    outdir,
    used,
    run,
    inputs(first),
    parts,
    partsBuilt.sharedRun,
  );
  const fromConfig = new Set([...shared, ...partsBuilt.sharedConfig]);
  const configResult = await buildConfigPhase(outdir, used, run, fromConfig);
  await bundleVendorGroups(outdir, used);
  for (const f of [CONFIG_FILE, RUN_FILE, PARTS_FILE])
    await writeFile(join(outdir, f), asciiOnly(await readFile(join(outdir, f), 'utf8')));
  // A printed stack decodes the maps of the files it names, so these keep lines, not columns.
  for (const r of [configResult, runResult, partsBuilt.result])
    await shrinkSourceMaps(r.metafile, { lines: true });
  await build({
    ...commonOptions(),
    entryPoints: [join(ROOT, 'src/agent/cli/code-cache.ts')],
    outfile: join(outdir, 'code-cache.cjs'),
    format: 'cjs',
    sourcemap: false,
  });
  // made under V8's default flags, as bin/nodeagent has them when it loads the bundle (it sets its
  // #! line's heap flag back at once): V8 refuses a cache made under any other flags
  const { env } = launchSettings();
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts', 'code-cache.mjs'), join(outdir, CONFIG_FILE)],
    { stdio: 'inherit', env: { ...process.env, ...env } },
  );
  if (r.status !== 0)
    throw new Error(
      `scripts/code-cache.mjs ${join(outdir, CONFIG_FILE)} failed (status ${String(r.status)})`,
    );
}

/**
 * vendor/<group>.cjs for each group used; a group may require another (tracing needs otel-api and
 * grpc).
 */
async function bundleVendorGroups(outdir, used) {
  const built = new Set();
  for (let more = true; more;) {
    more = false;
    for (const [group, specs] of [...used]) {
      if (built.has(group)) continue;
      built.add(group);
      more = true;
      await bundleVendorGroup(outdir, group, specs, used);
    }
  }
}

async function main() {
  const metafile = process.argv.includes('--metafile');
  for (const p of PROGRAMS) {
    const outdir = await bundle(p, metafile);
    console.log(`bundled ${p.name} -> ${relative(ROOT, join(outdir, `${p.name}.mjs`))}`);
    if (p.name === 'nodeagent') await bundleAgentCjs(p);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
}
