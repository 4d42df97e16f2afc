// The reference's pluginProvider.provide: matchImages gate, cacheKeyType Image/Registry/Global,
// cacheDuration (0: no caching; absent: defaultCacheDuration), one run in flight per image; and the
// exec protocol with a real plugin script (request on stdin, env, args, apiVersion check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginProvider } from '../../../../../src/agent/runtime/credentials/plugin-provider.js';
import {
  execPlugin,
  type PluginResponse,
} from '../../../../../src/agent/runtime/credentials/exec-plugin.js';
import { CredentialProviders } from '../../../../../src/agent/runtime/credentials/keyring.js';
import type { CredentialProvider } from '../../../../../src/agent/runtime/credentials/provider-config.js';
import { ManualClock } from '../../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../../helpers/recording-logger.js';
import { systemClock } from '../../../../../src/common/util/clock.js';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const provider = (over: Partial<CredentialProvider> = {}): CredentialProvider => ({
  name: 'cred',
  matchImages: ['*.registry.io'],
  defaultCacheDurationMs: 60_000,
  apiVersion: V1,
  args: [],
  env: [],
  ...over,
});

function counting(answer: (image: string) => PluginResponse) {
  const calls: string[] = [];
  return {
    calls,
    exec: (image: string) => {
      calls.push(image);
      return Promise.resolve(answer(image));
    },
  };
}

test('cacheKeyType Image, Registry and Global decide which later images reuse an answer', async () => {
  for (const [type, reused] of [
    ['Image', false],
    ['Registry', true],
    ['Global', true],
  ] as const) {
    const clock = new ManualClock();
    const f = counting(() => ({
      cacheKeyType: type,
      auth: { '*.registry.io': { username: 'u', password: 'p' } },
    }));
    const p = new PluginProvider({
      provider: provider(),
      binDir: '/x',
      clock,
      logger: recordingLogger(),
      exec: f.exec,
    });
    await p.provide('a.registry.io/one');
    await p.provide('a.registry.io/one');
    await p.provide('a.registry.io/two');
    assert.equal(f.calls.length, reused ? 1 : 2, `${type}: ${f.calls.join(', ')}`);
  }
});

test('cacheDuration: the response wins, absent takes defaultCacheDuration, 0 caches nothing; matchImages gates the plugin', async () => {
  const clock = new ManualClock();
  const f = counting(() => ({ cacheKeyType: 'Image', cacheDurationMs: 5000, auth: {} }));
  const p = new PluginProvider({
    provider: provider(),
    binDir: '/x',
    clock,
    logger: recordingLogger(),
    exec: f.exec,
  });
  await p.provide('a.registry.io/x');
  clock.advance(5000);
  await p.provide('a.registry.io/x');
  assert.equal(f.calls.length, 1, 'still cached at exactly the duration');
  clock.advance(1);
  await p.provide('a.registry.io/x');
  assert.equal(f.calls.length, 2);
  const zero = counting(() => ({ cacheKeyType: 'Image', cacheDurationMs: 0, auth: {} }));
  const pz = new PluginProvider({
    provider: provider(),
    binDir: '/x',
    clock,
    logger: recordingLogger(),
    exec: zero.exec,
  });
  await pz.provide('a.registry.io/x');
  await pz.provide('a.registry.io/x');
  assert.equal(zero.calls.length, 2);
  const def = counting(() => ({ cacheKeyType: 'Image', auth: {} }));
  const pd = new PluginProvider({
    provider: provider({ defaultCacheDurationMs: 0 }),
    binDir: '/x',
    clock,
    logger: recordingLogger(),
    exec: def.exec,
  });
  await pd.provide('a.registry.io/x');
  await pd.provide('a.registry.io/x');
  assert.equal(def.calls.length, 2, 'no cacheDuration and defaultCacheDuration 0: no caching');
  assert.deepEqual(await p.provide('other.io/x'), {});
  assert.equal(f.calls.length, 2, 'an image outside matchImages never runs the plugin');
});

test('one plugin run in flight per image; a bad cacheKeyType gives no credentials and says so', async () => {
  const clock = new ManualClock();
  let release: (() => void) | undefined;
  let runs = 0;
  const exec = async (): Promise<PluginResponse> => {
    runs++;
    await new Promise<void>((r) => {
      release = r;
    });
    return {
      cacheKeyType: 'Bogus',
      auth: { 'a.registry.io': { username: 'u', password: 'secret-pw' } },
    };
  };
  const log = recordingLogger();
  const p = new PluginProvider({ provider: provider(), binDir: '/x', clock, logger: log, exec });
  const both = Promise.all([p.provide('a.registry.io/x'), p.provide('a.registry.io/x')]);
  await new Promise((r) => setImmediate(r));
  release?.();
  assert.deepEqual(await both, [{}, {}]);
  assert.equal(runs, 1);
  assert.ok(
    log.lines.some(
      (l) => l.msg === 'credential provider plugin did not return a valid cacheKeyType',
    ),
  );
  assert.ok(!JSON.stringify(log.lines).includes('secret-pw'), 'credentials never logged');
});

test('exec protocol: request on stdin, args and env given, apiVersion checked, failures in the reference words without the response', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cred-exec-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const script = `#!/bin/sh
req=$(cat)
case "$req" in *'"kind":"CredentialProviderRequest"'*'"image":"a.registry.io/app"'*) ;; *) echo "bad request: $req" >&2; exit 3;; esac
[ "$1" = "--mode=$MODE" ] || { echo "args/env not given" >&2; exit 4; }
printf '{"kind":"CredentialProviderResponse","apiVersion":"%s","cacheKeyType":"Registry","cacheDuration":"1m","auth":{"a.registry.io":{"username":"u","password":"top-secret"}}}' "$API"
`;
  await writeFile(join(dir, 'cred'), script);
  await chmod(join(dir, 'cred'), 0o755);
  const o = (api: string) => ({
    provider: provider({
      args: ['--mode=x'],
      env: [
        { name: 'MODE', value: 'x' },
        { name: 'API', value: api },
      ],
    }),
    binDir: dir,
    clock: systemClock,
  });
  assert.deepEqual(await execPlugin(o(V1), 'a.registry.io/app'), {
    cacheKeyType: 'Registry',
    cacheDurationMs: 60_000,
    auth: { 'a.registry.io': { username: 'u', password: 'top-secret' } },
  });
  await assert.rejects(
    execPlugin(o('credentialprovider.kubelet.k8s.io/v1beta1'), 'a.registry.io/app'),
    /^Error: apiVersion from credential plugin response did not match expected apiVersion:credentialprovider\.kubelet\.k8s\.io\/v1, actual apiVersion:credentialprovider\.kubelet\.k8s\.io\/v1beta1$/,
  );
  await assert.rejects(execPlugin(o(V1), 'b.registry.io/app'), (e: Error) => {
    assert.match(
      e.message,
      /^error execing credential provider plugin cred for image b\.registry\.io\/app: exit status 3: bad request/,
    );
    return true;
  });
  await writeFile(
    join(dir, 'cred'),
    '#!/bin/sh\ncat >/dev/null\necho \'{"kind":"CredentialProviderResponse","apiVersion":"credentialprovider.kubelet.k8s.io/v1","cacheKeyType":"Image","auth":{"x":{"username":"u","password":"leak-me","extra":1}}}\'\n',
  );
  await assert.rejects(execPlugin(o(V1), 'a.registry.io/app'), (e: Error) => {
    assert.equal(e.message, 'error decoding credential provider plugin response from stdout');
    return true;
  });
  const clock = new ManualClock();
  await writeFile(join(dir, 'cred'), '#!/bin/sh\nexec sleep 30\n');
  const slow = execPlugin({ ...o(V1), clock, timeoutMs: 1000 }, 'a.registry.io/app');
  await clock.waitForSleepers(1);
  clock.advance(1000);
  await assert.rejects(
    slow,
    /error execing credential provider plugin cred for image a\.registry\.io\/app: context deadline exceeded/,
  );
});

test('keyring: the entries whose key matches the image, most specific first, with the registry as server address', async () => {
  const clock = new ManualClock();
  const f = counting(() => ({
    cacheKeyType: 'Image',
    auth: {
      'https://a.registry.io': { username: 'broad', password: 'p1' },
      'a.registry.io/team': { username: 'team', password: 'p2' },
      'b.registry.io': { username: 'other', password: 'p3' },
    },
  }));
  const ring = new CredentialProviders([
    new PluginProvider({
      provider: provider(),
      binDir: '/x',
      clock,
      logger: recordingLogger(),
      exec: f.exec,
    }),
  ]);
  assert.deepEqual(await ring.lookup('a.registry.io/team/app:v1'), [
    { username: 'team', password: 'p2', serveraddress: 'a.registry.io' },
    { username: 'broad', password: 'p1', serveraddress: 'a.registry.io' },
  ]);
  assert.deepEqual(
    f.calls,
    ['a.registry.io/team/app'],
    'the plugin is asked about the repository, without the tag',
  );
  assert.deepEqual(await ring.lookup('docker.io/library/busybox'), []);
});
