// The agent sets its heap growth at run time (heap-growth.ts), after start-up; a code cache loaded
// afterwards (a vendor group) was made under V8's default flags, which V8 requires of a cache:
// code-cache.ts compiles it with the flag set back for the moment, and the flag stays set after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { loadCachedBundle } from '../../../../src/agent/cli/code-cache.js';
import { LATE_V8_FLAGS, setHeapGrowth } from '../../../../src/agent/cli/heap-growth.js';

const SOURCE = 'module.exports = { twice: (n) => 2 * n, name: "vendor group" };\n';

/** A bundle file with the code cache V8 makes of it under its default flags, and `copies` copies of both. */
function bundleWithCache(dir: string, copies: string[]): void {
  const first = join(dir, 'made.cjs');
  writeFileSync(first, SOURCE);
  const made = loadCachedBundle({ file: first, fresh: true, warn: () => undefined });
  writeFileSync(`${first}.cache`, made.cacheData());
  for (const name of copies) {
    copyFileSync(first, join(dir, name));
    copyFileSync(`${first}.cache`, join(dir, `${name}.cache`));
  }
}

/** Whether V8 took the cache of `name` (each copy has its own file name: V8 keeps compiled scripts by source and origin). */
function taken(dir: string, name: string): boolean {
  return loadCachedBundle({ file: join(dir, name), warn: () => undefined }).fromCache;
}

test('a code cache loaded after the agent set its heap growth is taken; the flag is set again after it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'late-flags-'));
  t.after(() => {
    delete (globalThis as { [LATE_V8_FLAGS]?: unknown })[LATE_V8_FLAGS];
    setFlagsFromString('--heap-growing-percent=0');
    rmSync(dir, { recursive: true, force: true });
  });
  bundleWithCache(dir, ['before.cjs', 'unmarked.cjs', 'after.cjs', 'probe.cjs']);
  assert.equal(taken(dir, 'before.cjs'), true, 'under the default flags the cache is taken');
  // The flag alone (not through setHeapGrowth, so code-cache.ts is not told): V8 refuses the cache.
  setFlagsFromString('--heap-growing-percent=10');
  assert.equal(taken(dir, 'unmarked.cjs'), false, 'V8 refuses a cache made under other flags');
  setFlagsFromString('--heap-growing-percent=0');
  setHeapGrowth();
  assert.deepEqual((globalThis as { [LATE_V8_FLAGS]?: unknown })[LATE_V8_FLAGS], {
    flags: '--heap-growing-percent=10',
    defaults: '--heap-growing-percent=0',
  });
  const after = loadCachedBundle({ file: join(dir, 'after.cjs'), warn: () => undefined });
  assert.equal(after.fromCache, true, 'loaded after setHeapGrowth, the cache is taken');
  assert.equal((after.exports as { twice(n: number): number }).twice(21), 42);
  // The flag is set again after the compile: without the mark, the next cache is refused.
  const late = (globalThis as { [LATE_V8_FLAGS]?: unknown })[LATE_V8_FLAGS];
  delete (globalThis as { [LATE_V8_FLAGS]?: unknown })[LATE_V8_FLAGS];
  assert.equal(
    taken(dir, 'probe.cjs'),
    false,
    'the heap growth flag is set again once the cache is compiled',
  );
  (globalThis as { [LATE_V8_FLAGS]?: unknown })[LATE_V8_FLAGS] = late;
});
