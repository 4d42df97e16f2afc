// Every package npm installs must accept every Node the package promises (`engines` in
// package.json): a dependency whose own `engines` leaves one out makes `npm ci` print EBADENGINE
// warnings there, and may not run there at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import semver from 'semver';

interface LockPackage {
  engines?: { node?: string } | string[];
  dev?: boolean;
  optional?: boolean;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The lowest version of each major line the package promises (e.g. 20.19.0, 22.13.0, 24.0.0). */
function promisedMinimums(range: string): string[] {
  return range.split('||').map((part) => {
    const min = semver.minVersion(part.trim());
    assert.ok(min, `engines.node part ${JSON.stringify(part)} has no minimum version`);
    return min.version;
  });
}

test('every installed package accepts every Node version the package promises in engines', () => {
  const pkg = readJson('package.json') as { engines: { node: string } };
  const lock = readJson('package-lock.json') as { packages: Record<string, LockPackage> };
  const minimums = promisedMinimums(pkg.engines.node);
  assert.deepEqual(minimums, ['20.19.0', '22.13.0', '24.0.0']);
  const refusals: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const engines = entry.engines;
    if (path === '' || engines === undefined || Array.isArray(engines)) continue;
    const wanted = engines.node;
    if (wanted === undefined) continue;
    for (const node of minimums)
      if (!semver.satisfies(node, wanted))
        refusals.push(`${path} wants node ${wanted}, not ${node}`);
  }
  assert.deepEqual(refusals, []);
});
