// The shipped programs are the bundles (npm run build: scripts/bundle.mjs): bin/ runs them, each
// is one entry file plus lazy chunks, only native modules stay outside, and stack traces map back
// to src/ through source maps that hold the project's own sources only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/apiserver.js';

const ROOT = repoRoot();
const PROGRAMS = ['nodeagent', 'plat-apiserver'] as const;
/** What may stay outside a bundle: native addons (scripts/bundle.mjs EXTERNAL). */
// Native modules kept outside the bundles (scripts/bundle.mjs EXTERNAL): better-sqlite3 and
// node-pty are addons; cpu-features (ssh2), bufferutil and utf-8-validate (ws) are optional addons
// their users load inside try/catch, with JavaScript fallbacks; usocket is dbus-next's addon (fd
// passing for graceful shutdown), and x11 dbus-next's session-bus lookup, which the agent never
// reaches: it connects to the system bus or DBUS_SYSTEM_BUS_ADDRESS.
const EXTERNAL = new Set(['better-sqlite3', 'node-pty', 'cpu-features', 'bufferutil', 'utf-8-validate', 'usocket', 'x11']);
const BUILTIN = new Set(builtinModules);

const entryOf = (p: string): string => join(ROOT, 'dist', 'bundle', p, `${p}.mjs`);

function outputsOf(p: string): string[] {
  const dir = join(ROOT, 'dist', 'bundle', p);
  const chunks = existsSync(join(dir, 'chunks')) ? readdirSync(join(dir, 'chunks')).map((f) => join(dir, 'chunks', f)) : [];
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
    for (const s of specifiers(file).static) if (s.startsWith('.')) visit(resolve(dirname(file), s));
  };
  visit(entry);
  return seen;
}

test('bin/ launchers run the bundles, not dist/src', () => {
  for (const p of PROGRAMS) {
    const launcher = readFileSync(join(ROOT, 'bin', p), 'utf8');
    assert.doesNotMatch(launcher, /dist\/src/, `bin/${p} must not load dist/src`);
    const target = /import\('([^']+)'\)/.exec(launcher)?.[1];
    assert.equal(target !== undefined && resolve(join(ROOT, 'bin'), target), entryOf(p), `bin/${p} imports the bundle`);
  }
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'nodeagent'), '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(r.stdout, `nodeagent v${pkg.version}\n`);
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
      const r = spawnSync(process.execPath, [join(ROOT, 'bin', p), '--help'], { encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr);
      const cache = join(tmp, 'node-compile-cache');
      const entries = existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0;
      if (major >= 22) assert.ok(entries > 1, `bin/${p} on Node ${process.versions.node}: no compile cache under ${cache}`);
      else assert.equal(entries, 0, `Node ${process.versions.node} has no module.enableCompileCache`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});

test('each bundle imports only node built-ins, its own chunks and the native modules', () => {
  for (const p of PROGRAMS) {
    for (const file of outputsOf(p)) {
      const s = specifiers(file);
      for (const spec of [...s.static, ...s.dynamic, ...s.required]) {
        // Native addons (ssh2's optional sshcrypto.node, loaded inside try/catch) stay outside.
        if (spec.endsWith('.node')) continue;
        if (spec.startsWith('./') || spec.startsWith('../')) {
          assert.ok(existsSync(resolve(dirname(file), spec)), `${file}: imports missing ${spec}`);
          continue;
        }
        // node: names are built-ins by scheme (node:sqlite is in no builtinModules list of Node 20).
        assert.ok(spec.startsWith('node:') || BUILTIN.has(spec) || EXTERNAL.has(packageName(spec)), `${file}: imports ${spec}, which is neither bundled nor a native module`);
      }
    }
  }
});

test('the agent needs no better-sqlite3 (a single executable carries no native module)', () => {
  for (const file of outputsOf('nodeagent')) assert.doesNotMatch(readFileSync(file, 'utf8'), /better-sqlite3/, file);
});

test("the agent's start-up loads neither the agent's parts nor the HTTP client: they are lazy chunks", () => {
  const loadedAtStart = [...staticClosure(entryOf('nodeagent'))].map((f) => readFileSync(f, 'utf8')).join('\n');
  // Markers of code that only runs after the configuration is valid: agent.ts's start line,
  // undici's HTTP parser, the pod workers, js-yaml's fallback (yaml) is loaded on a parse problem.
  for (const marker of ['node agent starting', 'lazyllhttp', 'PodWorkers', 'chokidar']) {
    assert.ok(!loadedAtStart.includes(marker), `"${marker}" is in the start-up files of the agent bundle`);
  }
  const all = outputsOf('nodeagent').map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const marker of ['node agent starting', 'lazyllhttp']) assert.ok(all.includes(marker), `"${marker}" is in a lazy chunk`);
});

test("source maps hold the project's own sources, each an existing file under src/", () => {
  for (const p of PROGRAMS) {
    for (const file of outputsOf(p)) {
      assert.match(readFileSync(file, 'utf8'), /\/\/# sourceMappingURL=\S+\.map\s*$/, `${file} links its map`);
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      for (const s of map.sources) {
        const abs = resolve(dirname(file), s);
        assert.ok(abs.startsWith(join(ROOT, 'src') + '/') && existsSync(abs), `${file}.map names ${s}`);
      }
    }
  }
});

test('a stack trace through the bundle names src/ files and lines', () => {
  // main() writes --help through io.stdout; a throwing stdout makes main reject with a stack.
  const script = `process.setSourceMapsEnabled(true);
    const { main } = await import(${JSON.stringify(pathToFileURL(entryOf('nodeagent')).href)});
    try { await main(['--help'], { stdout() { throw new Error('stack probe'); }, stderr() {} }); }
    catch (err) { console.log(err.stack); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Error: stack probe/);
  assert.match(r.stdout, /src\/agent\/cli\/main\.ts:\d+:\d+/, r.stdout);
});
