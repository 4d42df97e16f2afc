// Loads the agent's CommonJS bundle (dist/bundle/nodeagent/nodeagent.cjs, the configuration phase,
// which requires nodeagent-run.cjs once the configuration is settled) with V8's code cache on
// Node 20, which has no module compile cache (module.enableCompileCache is Node 22+): compiling
// the ES module chunks was most of the agent's start-up. `npm run build` runs the bundle once
// (scripts/code-cache.mjs: --print-config of the example configuration, so the functions start-up
// runs are compiled) and writes what V8 compiled to nodeagent.cjs.cache; bin/nodeagent compiles the
// bundle from that cache. V8 takes a cache only from its own version and flags: another node
// compiles the bundle from source, and the launcher says so once on stderr. The caches are made
// under V8's default flags (the launcher sets its one heap flag back at once); a bundle loaded
// after
// the agent set its heap growth (src/agent/cli/heap-growth.ts, LATE_V8_FLAGS) is compiled with
// that flag at its default for the moment, as any flag away from its default makes V8 refuse it.
// The bundle is ASCII (scripts/bundle.mjs escapes the rest), so it is read as latin1 (no UTF-8
// decoding of megabytes). Its frames name the bundle's file, whose source map (`<file>.map`) the
// launcher reads when it prints a stack (src/common/log/mapped-stack.ts).
// This file is bundled on its own (dist/bundle/nodeagent/code-cache.cjs, which bin/nodeagent
// requires: a CommonJS launcher starts no ES module loader) and imports only node:.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';

/** The CommonJS module scope the bundle is compiled in (its first line: see lineOffset). */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_TAIL = '\n})';

export interface CachedBundleOptions {
  /** The bundle's path (its code cache is `<file>.cache`, its source map `<file>.map`). */
  readonly file: string;
  /** Where a refused or missing cache is reported (once per process). */
  readonly warn: (message: string) => void;
  /** Build time only: compile from source, ignoring any cache file. */
  readonly fresh?: boolean;
}

export interface CachedBundle {
  /** The bundle's module.exports. */
  readonly exports: unknown;
  /** Whether V8 compiled the bundle from the cache. */
  readonly fromCache: boolean;
  /**
   * What V8 has compiled so far (after a warm-up run: the functions it ran), for the cache file.
   */
  cacheData(): Buffer;
}

// Every bundle loaded, by file: each is compiled and run once (as require() would).
const loaded = new Map<string, CachedBundle>();
let warned = false;

/** The bundles this process has loaded (the build writes a cache for each). */
export function loadedBundles(): ReadonlyMap<string, CachedBundle> {
  return loaded;
}

function readCache(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * heap-growth.ts's LATE_V8_FLAGS (this file imports only node:, so the key is spelled here too).
 */
const LATE_V8_FLAGS = Symbol.for('nodeagent.lateV8Flags');

/** `compile()` under V8's default flags: those the agent set at run time are set back for it. */
function withDefaultFlags<T>(compile: () => T): T {
  const late = (globalThis as { [LATE_V8_FLAGS]?: { flags: string; defaults: string } })[
    LATE_V8_FLAGS
  ];
  if (late === undefined) return compile();
  setFlagsFromString(late.defaults);
  try {
    return compile();
  } finally {
    setFlagsFromString(late.flags);
  }
}

/**
 * The bundle's require(): a relative `.cjs` (a vendor group, scripts/bundle.mjs) is loaded the same
 * way, from its own code cache; anything else (node: built-ins, native addons) by Node.
 */
function requireFor(o: CachedBundleOptions): (id: string) => unknown {
  const nodeRequire = createRequire(o.file);
  return (id) => {
    if (!/^\.\.?\/.*\.cjs$/.test(id)) return nodeRequire(id) as unknown;
    return loadCachedBundle({ ...o, file: resolve(dirname(o.file), id) }).exports;
  };
}

function say(o: CachedBundleOptions, cachedData: Buffer | undefined, fromCache: boolean): void {
  if (o.fresh === true || fromCache || warned) return;
  warned = true;
  const cacheFile = `${o.file}.cache`;
  if (cachedData === undefined)
    o.warn(
      `no code cache ${cacheFile}: compiling ${basename(o.file)} from source (a slower ` +
        `start); npm run build writes it`,
    );
  else
    o.warn(
      `the code cache ${cacheFile} was made by another Node.js or with other V8 flags ` +
        `(this is ${process.version}): compiling ${basename(o.file)} from source (a slower ` +
        `start)`,
    );
}

/**
 * The bundle's script, from its cache when V8 takes it. A function of its own: a closure here
 * holds its arguments only while it runs (one in loadCachedBundle would keep the bundle's source,
 * megabytes, alive beside the copy V8 keeps, for as long as the bundle's cacheData() is).
 */
function compile(file: string, source: string, cachedData: Buffer | undefined): vm.Script {
  return withDefaultFlags(
    () =>
      new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
        filename: file,
        lineOffset: -1,
        ...(cachedData === undefined ? {} : { cachedData }),
      }),
  );
}

/**
 * Compiles and runs the bundle (once per file, by its absolute path: the run file requires the
 * configuration phase's file for the modules they share); its exports are its entry module's.
 */
export function loadCachedBundle(given: CachedBundleOptions): CachedBundle {
  const o = { ...given, file: resolve(given.file) };
  const known = loaded.get(o.file);
  if (known !== undefined) return known;
  const cachedData = o.fresh === true ? undefined : readCache(`${o.file}.cache`);
  const source = readFileSync(o.file, 'latin1');
  const script = compile(o.file, source, cachedData);
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true;
  say(o, cachedData, fromCache);
  const module = { exports: {} as unknown };
  const bundle: CachedBundle = {
    get exports() {
      return module.exports;
    },
    fromCache,
    cacheData: () => script.createCachedData(),
  };
  loaded.set(o.file, bundle);
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, requireFor(o), module, o.file, dirname(o.file));
  return bundle;
}
