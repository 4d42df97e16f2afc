// The shipped programs are the bundles (npm run build: scripts/bundle.mjs): bin/ runs them, each
// is one entry file plus lazy chunks, only native modules stay outside, and stack traces map back
// to src/ through source maps that hold the project's own sources only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/apiserver.js';
import { launcherEnv } from '../../helpers/launcher.js';

const ROOT = repoRoot();
const PROGRAMS = ['nodeagent', 'plat-apiserver'] as const;
/** What may stay outside a bundle: native addons (scripts/bundle.mjs EXTERNAL). */
// Native modules kept outside the bundles (scripts/bundle.mjs EXTERNAL): better-sqlite3 and
// node-pty are addons; cpu-features (ssh2), bufferutil and utf-8-validate (ws) are optional addons
// their users load inside try/catch, with JavaScript fallbacks; usocket is dbus-next's addon (fd
// passing for graceful shutdown), and x11 dbus-next's session-bus lookup, which the agent never
// reaches: it connects to the system bus or DBUS_SYSTEM_BUS_ADDRESS.
const EXTERNAL = new Set([
  'better-sqlite3',
  'node-pty',
  'cpu-features',
  'bufferutil',
  'utf-8-validate',
  'usocket',
  'x11',
]);
const BUILTIN = new Set(builtinModules);

const entryOf = (p: string): string => join(ROOT, 'dist', 'bundle', p, `${p}.mjs`);

const CJS_DIR = join(ROOT, 'dist', 'bundle', 'nodeagent');
/** The agent's CommonJS bundle (Node 20's launcher): the configuration phase, the run, the parts. */
const CJS_FILES = [
  join(CJS_DIR, 'nodeagent.cjs'),
  join(CJS_DIR, 'nodeagent-run.cjs'),
  join(CJS_DIR, 'nodeagent-parts.cjs'),
];

/** The agent's CommonJS bundle and the vendor groups it requires. */
function cjsOutputsOf(): string[] {
  return [
    ...CJS_FILES,
    ...readdirSync(join(CJS_DIR, 'vendor'))
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => join(CJS_DIR, 'vendor', f)),
  ];
}

function outputsOf(p: string): string[] {
  const dir = join(ROOT, 'dist', 'bundle', p);
  const chunks = existsSync(join(dir, 'chunks'))
    ? readdirSync(join(dir, 'chunks')).map((f) => join(dir, 'chunks', f))
    : [];
  return [entryOf(p), ...chunks.filter((f) => f.endsWith('.mjs'))];
}

/** Module specifiers a bundle file imports: static (`from "x"`, `import "x"`), dynamic, require. */
function specifiers(file: string): { static: string[]; dynamic: string[]; required: string[] } {
  const text = readFileSync(file, 'utf8');
  const all = (re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1] ?? '');
  return {
    static: all(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?from\s*)?["']([^"']+)["']/g),
    dynamic: all(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    required: all(/require\(\s*["']([^"']+)["']\s*\)/g),
  };
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

/** The files loaded before any dynamic import runs: the entry and its static imports, transitively. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of specifiers(file).static)
      if (s.startsWith('.')) visit(resolve(dirname(file), s));
  };
  visit(entry);
  return seen;
}

test('bin/ launchers run the bundles, not dist/src', () => {
  for (const p of PROGRAMS) {
    const launcher = readFileSync(join(ROOT, 'bin', p), 'utf8');
    assert.doesNotMatch(launcher, /dist\/src/, `bin/${p} must not load dist/src`);
    const target = /import\('([^']+)'\)/.exec(launcher)?.[1];
    assert.equal(
      target !== undefined && resolve(join(ROOT, 'bin'), target),
      entryOf(p),
      `bin/${p} imports the bundle`,
    );
  }
  const r = spawnSync(join(ROOT, 'bin', 'nodeagent'), ['--version'], {
    encoding: 'utf8',
    env: launcherEnv(),
  });
  assert.equal(r.status, 0, r.stderr);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(r.stdout, `nodeagent v${pkg.version}\n`);
});

test('bin/nodeagent starts node with its memory settings (its #! line), and the example unit sets the same environment', () => {
  const first = readFileSync(join(ROOT, 'bin', 'nodeagent'), 'utf8').split('\n', 1)[0] ?? '';
  // Linux before 5.1 reads 127 bytes of a #! line and drops the rest
  assert.ok(Buffer.byteLength(first) <= 127, `${first}: ${Buffer.byteLength(first)} bytes`);
  const m = /^#!\/usr\/bin\/env -S ((?:\w+=\S+ )*)node((?: --\S+)*)$/.exec(first);
  assert.ok(m !== null, first);
  const env = (m[1] ?? '').trim().split(' ');
  assert.deepEqual(env, ['MALLOC_ARENA_MAX=1', 'MALLOC_MMAP_THRESHOLD_=16384']);
  // The one V8 flag V8 reads only when it sets the heap up: the launcher sets it back at once (so
  // V8's flag hash is node's default and node takes its built-in modules' code cache); the old
  // generation's growth is set at run time (src/agent/cli/heap-growth.ts). And node's option to
  // trust OpenSSL's CA store, the host's (system-trust.test.ts).
  assert.deepEqual((m[2] ?? '').trim().split(' '), ['--max-semi-space-size=1', '--use-openssl-ca']);
  // That it is set back is shown below: executed, the launcher compiles the bundle from the code
  // cache the build made under V8's default flags, which V8 refuses under any others (Node 20).
  const unit = readFileSync(join(ROOT, 'examples', 'systemd', 'nodeagent.service'), 'utf8');
  assert.match(unit, new RegExp(`^Environment=${env.join(' ')}$`, 'm'));
});

test('on Node 22 and later both launchers turn the module compile cache on (Node 20 has none)', () => {
  const major = Number(process.versions.node.split('.')[0]);
  for (const p of PROGRAMS) {
    const tmp = mkdtempSync(join(tmpdir(), 'compile-cache-'));
    try {
      // The default cache directory is <tmpdir>/node-compile-cache; NODE_COMPILE_CACHE would turn
      // the cache on by itself, so it is removed from the child's environment.
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
      delete env['NODE_COMPILE_CACHE'];
      const r = spawnSync(join(ROOT, 'bin', p), ['--help'], {
        encoding: 'utf8',
        env: launcherEnv(env),
      });
      assert.equal(r.status, 0, r.stderr);
      const cache = join(tmp, 'node-compile-cache');
      const entries = existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0;
      if (major >= 22)
        assert.ok(
          entries > 1,
          `bin/${p} on Node ${process.versions.node}: no compile cache under ${cache}`,
        );
      else
        assert.equal(entries, 0, `Node ${process.versions.node} has no module.enableCompileCache`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});

test('each bundle imports only node built-ins, its own chunks and the native modules', () => {
  for (const p of PROGRAMS) {
    for (const file of [...outputsOf(p), ...(p === 'nodeagent' ? cjsOutputsOf() : [])]) {
      const s = specifiers(file);
      for (const spec of [...s.static, ...s.dynamic, ...s.required]) {
        // Native addons (ssh2's optional sshcrypto.node, loaded inside try/catch) stay outside.
        if (spec.endsWith('.node')) continue;
        if (spec.startsWith('./') || spec.startsWith('../')) {
          assert.ok(existsSync(resolve(dirname(file), spec)), `${file}: imports missing ${spec}`);
          continue;
        }
        // node: names are built-ins by scheme (node:sqlite is in no builtinModules list of Node 20).
        assert.ok(
          spec.startsWith('node:') || BUILTIN.has(spec) || EXTERNAL.has(packageName(spec)),
          `${file}: imports ${spec}, which is neither bundled nor a native module`,
        );
      }
    }
  }
});

test('the agent needs no better-sqlite3 (a single executable carries no native module)', () => {
  for (const file of [...outputsOf('nodeagent'), ...cjsOutputsOf()])
    assert.doesNotMatch(readFileSync(file, 'utf8'), /better-sqlite3/, file);
});

test("the agent's start-up loads neither the agent's parts nor the HTTP client: they are lazy chunks", () => {
  const loadedAtStart = [...staticClosure(entryOf('nodeagent'))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  // Markers of code that only runs after the configuration is valid: agent.ts's start line,
  // undici's HTTP parser, the pod workers, the file source's watch; js-yaml's fallback (yaml) is
  // loaded on a parse problem.
  for (const marker of ['node agent starting', 'lazyllhttp', 'PodWorkers', 'DirectoryWatch']) {
    assert.ok(
      !loadedAtStart.includes(marker),
      `"${marker}" is in the start-up files of the agent bundle`,
    );
  }
  const all = outputsOf('nodeagent')
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const marker of ['node agent starting', 'lazyllhttp'])
    assert.ok(all.includes(marker), `"${marker}" is in a lazy chunk`);
});

test("source maps hold the project's own sources, each an existing file under src/", () => {
  for (const p of PROGRAMS) {
    for (const file of outputsOf(p)) {
      assert.match(
        readFileSync(file, 'utf8'),
        /\/\/# sourceMappingURL=\S+\.map\s*$/,
        `${file} links its map`,
      );
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      for (const s of map.sources) {
        const abs = resolve(dirname(file), s);
        assert.ok(
          abs.startsWith(join(ROOT, 'src') + '/') && existsSync(abs),
          `${file}.map names ${s}`,
        );
      }
    }
  }
});

/** A probe's stack as made (`raw`) and through the bundle's maps (`mapped`), from `script`. */
function stackProbe(script: string): { raw: string; mapped: string } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { raw: string; mapped: string };
}

// main() writes --help through io.stdout; a throwing stdout makes main reject with a stack.
const PROBE = `try { await main(['--help'], { stdout() { throw new Error('stack probe'); }, stderr() {} }); }
    catch (err) { console.log(JSON.stringify({ raw: err.stack, mapped: mapStack(err.stack) })); }`;

test('a stack trace through the bundle names src/ files and lines once printed (mapStack); node maps nothing by itself', () => {
  const { raw, mapped } = stackProbe(
    `const { main, mapStack } = await import(${JSON.stringify(pathToFileURL(entryOf('nodeagent')).href)});
    ${PROBE}`,
  );
  assert.match(raw, /Error: stack probe/);
  assert.doesNotMatch(raw, /\.ts:\d+:\d+/, raw);
  assert.match(mapped, /^Error: stack probe\n/);
  assert.match(
    mapped,
    new RegExp(`\\(${join(ROOT, 'src', 'agent', 'cli')}/main\\.ts:\\d+:\\d+\\)`),
    mapped,
  );
  // Node's own frames are kept as they are.
  assert.equal(mapped.split('\n').length, raw.split('\n').length);
});

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** Runs `<copy>/bin/nodeagent --version` in a copy of the launcher and the agent's bundle. */
function versionFromCopy(change: (bundleDir: string) => void): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const tmp = mkdtempSync(join(tmpdir(), 'code-cache-'));
  try {
    cpSync(join(ROOT, 'bin', 'nodeagent'), join(tmp, 'bin', 'nodeagent'));
    cpSync(join(ROOT, 'bin', 'package.json'), join(tmp, 'bin', 'package.json'));
    cpSync(join(ROOT, 'dist', 'bundle', 'nodeagent'), join(tmp, 'dist', 'bundle', 'nodeagent'), {
      recursive: true,
    });
    cpSync(join(ROOT, 'dist', 'build-info.json'), join(tmp, 'dist', 'build-info.json'));
    cpSync(join(ROOT, 'package.json'), join(tmp, 'package.json'));
    change(join(tmp, 'dist', 'bundle', 'nodeagent'));
    return spawnSync(join(tmp, 'bin', 'nodeagent'), ['--version'], {
      encoding: 'utf8',
      env: launcherEnv(),
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test("on Node 20 bin/nodeagent compiles the CommonJS bundle from the build's V8 code cache; a refused or missing cache is said once", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const cacheLines = (stderr: string): string[] =>
    stderr.split('\n').filter((l) => l.includes('code cache'));
  // The build's cache, made by this node under V8's default flags: taken (the launcher has set its
  // #! line's heap flag back), nothing said.
  const ok = versionFromCopy(() => undefined);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, `nodeagent v${pkg.version}\n`);
  assert.deepEqual(cacheLines(ok.stderr), []);
  // A cache V8 refuses (another node made it): compiled from source, said once.
  const refused = versionFromCopy((dir) =>
    writeFileSync(join(dir, 'nodeagent.cjs.cache'), Buffer.alloc(4096, 7)),
  );
  assert.equal(refused.status, 0, refused.stderr);
  assert.equal(refused.stdout, `nodeagent v${pkg.version}\n`);
  const missing = versionFromCopy((dir) => rmSync(join(dir, 'nodeagent.cjs.cache')));
  assert.equal(missing.status, 0, missing.stderr);
  assert.equal(missing.stdout, `nodeagent v${pkg.version}\n`);
  if (NODE_MAJOR >= 22) {
    // Node 22+ runs the ES module bundle with the module compile cache: the file is not read.
    assert.deepEqual([...cacheLines(refused.stderr), ...cacheLines(missing.stderr)], []);
  } else {
    assert.equal(cacheLines(refused.stderr).length, 1, refused.stderr);
    assert.match(
      cacheLines(refused.stderr)[0] ?? '',
      /^nodeagent: the code cache \S+nodeagent\.cjs\.cache was made by another Node\.js or with other V8 flags \(this is v20\.\d+\.\d+\): compiling nodeagent\.cjs from source/,
    );
    assert.equal(cacheLines(missing.stderr).length, 1, missing.stderr);
    assert.match(
      cacheLines(missing.stderr)[0] ?? '',
      /^nodeagent: no code cache \S+nodeagent\.cjs\.cache: compiling nodeagent\.cjs from source/,
    );
  }
});

test('the CommonJS bundle is ASCII (read as latin1) and its code caches were made by the build', () => {
  for (const file of CJS_FILES) {
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(readFileSync(file, 'utf8'), /[^\x00-\x7f]/, file);
    assert.ok(
      readFileSync(`${file}.cache`).length > 100_000,
      `${file}: the code cache holds the compiled start-up`,
    );
  }
});

test("the CommonJS bundle's configuration phase holds none of the agent's parts: the run file holds bootstrap, the parts file the rest, each loaded after", () => {
  const [configPhase, run, parts] = CJS_FILES.map((f) => readFileSync(f, 'utf8'));
  // Markers of code that only runs after the configuration is valid (as for the ES module bundle):
  // the agent's start and bootstrap's HTTP client in the run, the pods' machinery in the parts.
  for (const marker of ['node agent starting', 'lazyllhttp']) {
    assert.ok(!configPhase?.includes(marker), `"${marker}" is in nodeagent.cjs`);
    assert.ok(run?.includes(marker), `"${marker}" is in nodeagent-run.cjs`);
    assert.ok(!parts?.includes(marker), `"${marker}" is in nodeagent-parts.cjs`);
  }
  for (const marker of ['PodWorkers', 'DirectoryWatch']) {
    assert.ok(!configPhase?.includes(marker), `"${marker}" is in nodeagent.cjs`);
    assert.ok(!run?.includes(marker), `"${marker}" is in nodeagent-run.cjs`);
    assert.ok(parts?.includes(marker), `"${marker}" is in nodeagent-parts.cjs`);
  }
  // The parts take the run's modules from the run (one instance of each).
  assert.match(
    parts ?? '',
    /require\("\.\/nodeagent-run\.cjs"\)\("src\/agent\/client\/resource-client\.ts"\)/,
  );
  assert.match(
    run ?? '',
    /require\("\.\/nodeagent-parts\.cjs"\)\("src\/agent\/start\/parts\.ts"\)/,
  );
  // The run takes the modules both use from the configuration phase (one instance of each).
  assert.match(
    run ?? '',
    /require\("\.\/nodeagent\.cjs"\)\.__shared\("src\/common\/util\/errors\.ts"\)/,
  );
  assert.doesNotMatch(run ?? '', /\bConfigError=class\b/);
  assert.match(configPhase ?? '', /\bConfigError=class\b/);
});

test('a stack trace through the CommonJS bundle names src/ files and lines once printed, shared modules too', () => {
  const { raw, mapped } = stackProbe(
    `const { loadCachedBundle } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'bundle', 'nodeagent', 'code-cache.cjs')).href)});
    const { exports } = loadCachedBundle({ file: ${JSON.stringify(join(ROOT, 'dist', 'bundle', 'nodeagent', 'nodeagent.cjs'))}, warn() {} });
    const { main, mapStack } = exports;
    ${PROBE}`,
  );
  assert.match(raw, /nodeagent\.cjs:\d+:\d+/, raw);
  assert.doesNotMatch(raw, /\.ts:\d+:\d+/, raw);
  assert.match(
    mapped,
    new RegExp(`\\(${join(ROOT, 'src', 'agent', 'cli')}/main\\.ts:\\d+:\\d+\\)`),
    mapped,
  );
});

test("the CommonJS bundle's source maps name existing files under src/, from the map's directory", () => {
  for (const file of CJS_FILES) {
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    assert.ok(map.sources.length > 10, file);
    for (const s of map.sources) {
      const abs = resolve(dirname(file), s);
      assert.ok(
        abs.startsWith(join(ROOT, 'src') + '/') && existsSync(abs),
        `${file}.map names ${s}`,
      );
    }
  }
});

test('an uncaught exception in bin/nodeagent is printed with its stack through the source maps, status 1', () => {
  const bundle = join(ROOT, 'dist', 'bundle', 'nodeagent', 'nodeagent.cjs');
  // A frame at a position of the bundle that its map knows, thrown once the launcher is running.
  const script = `const { SourceMap } = require('node:module');
    const map = new SourceMap(JSON.parse(require('node:fs').readFileSync(${JSON.stringify(`${bundle}.map`)}, 'utf8')));
    let at;
    for (let line = 0; at === undefined && line < 100; line++)
      for (let col = 0; at === undefined && col < 2000; col += 50)
        if (map.findEntry(line, col).originalSource) at = (line + 1) + ':' + (col + 1);
    // Thrown once main() writes its help: the bundle (and its mapStack) is loaded by then.
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (...args) => {
      setImmediate(() => {
        const err = new Error('probe defect');
        err.stack = 'Error: probe defect\\n    at probe (${bundle}:' + at + ')';
        throw err;
      });
      process.stdout.write = write;
      return write(...args);
    };`;
  const tmp = mkdtempSync(join(tmpdir(), 'uncaught-'));
  try {
    writeFileSync(join(tmp, 'probe.cjs'), script);
    const r = spawnSync(join(ROOT, 'bin', 'nodeagent'), ['--help'], {
      encoding: 'utf8',
      env: { ...launcherEnv(), NODE_OPTIONS: `--require ${join(tmp, 'probe.cjs')}` },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^nodeagent: uncaught exception: Error: probe defect\\n    at probe \\(${join(ROOT, 'src')}/\\S+\\.ts:\\d+:\\d+\\)$`,
        'm',
      ),
      r.stderr,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
