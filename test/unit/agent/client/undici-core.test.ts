// src/agent/client/undici-core.ts imports undici's Agent and request() by their paths inside the
// package, not through its index. An undici upgrade may move those files: this test names each
// path that is gone or no longer what the index exports, and checks that package.json pins the
// exact version the paths were written against (so an upgrade is a deliberate change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as undiciIndex from 'undici';

const SOURCE = 'src/agent/client/undici-core.ts';
const require = createRequire(import.meta.url);
const installed = (
  JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8')) as { version: string }
).version;

/** The `undici/...` paths the source imports, in order. */
function internalPaths(): string[] {
  const text = readFileSync(SOURCE, 'utf8');
  return [...text.matchAll(/from '(undici\/[^']+)'/g)].map((m) => m[1] ?? '');
}

const moved = (path: string, what: string): string =>
  `undici ${installed}: ${path} ${what}. ${SOURCE} imports it by path (typed in src/agent/client/undici-modules.d.ts): find where this undici version keeps it and update both, or go back to the pinned version`;

test('package.json pins undici to one exact version, the one installed', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const pin = pkg.dependencies['undici'];
  assert.match(
    pin ?? '',
    /^\d+\.\d+\.\d+$/,
    `undici is ${String(pin)} in package.json: internal paths need an exact pin, not a range`,
  );
  assert.equal(
    installed,
    pin,
    `node_modules has undici ${installed}, package.json pins ${String(pin)}: run npm ci`,
  );
});

test('every undici path undici-core.ts imports exists in the installed undici', () => {
  const paths = internalPaths();
  assert.deepEqual(
    paths,
    [
      'undici/lib/dispatcher/agent.js',
      'undici/lib/api/api-request.js',
      'undici/lib/global.js',
      'undici/lib/core/util.js',
      'undici/lib/core/connect.js',
    ],
    `the paths of ${SOURCE} changed: list them here and check them below`,
  );
  for (const p of paths) {
    assert.doesNotThrow(() => require.resolve(p), moved(p, 'does not exist'));
  }
});

async function load<T>(path: string): Promise<T> {
  try {
    return ((await import(path)) as { default: T }).default;
  } catch (err) {
    return assert.fail(
      moved(path, `cannot be loaded (${err instanceof Error ? err.message : String(err)})`),
    );
  }
}

test("the internal modules are the index's own: Agent, the request API, the global dispatcher, parseURL, buildConnector", async () => {
  const agent = await load<unknown>('undici/lib/dispatcher/agent.js');
  assert.equal(
    agent,
    undiciIndex.Agent,
    moved('undici/lib/dispatcher/agent.js', "is not the index's Agent"),
  );
  const requestApi = await load<unknown>('undici/lib/api/api-request.js');
  assert.equal(
    typeof requestApi,
    'function',
    moved('undici/lib/api/api-request.js', 'does not export the request function'),
  );
  const global = await load<{ getGlobalDispatcher?: unknown }>('undici/lib/global.js');
  assert.equal(
    global.getGlobalDispatcher,
    undiciIndex.getGlobalDispatcher,
    moved('undici/lib/global.js', "does not export the index's getGlobalDispatcher"),
  );
  const util = await load<{ parseURL?: unknown }>('undici/lib/core/util.js');
  assert.equal(
    typeof util.parseURL,
    'function',
    moved('undici/lib/core/util.js', 'does not export parseURL'),
  );
  const connector = await load<unknown>('undici/lib/core/connect.js');
  assert.equal(
    connector,
    undiciIndex.buildConnector,
    moved('undici/lib/core/connect.js', "is not the index's buildConnector"),
  );
});
