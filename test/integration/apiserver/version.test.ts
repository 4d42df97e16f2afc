// plat-apiserver --version as kube-apiserver answers it (the reference's verflag): `--version`
// prints one line and exits 0, `--version=raw` the record GET /version serves, `--version=vX.Y.Z`
// sets the gitVersion served (same major/minor/patch as the default, else the reference's error),
// any other value is refused in pflag's words. The agent shares the package version and the build
// stamp (src/common/version.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startApiServer } from '../../helpers/apiserver.js';

const root = repoRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const stamp = JSON.parse(readFileSync(join(root, 'dist', 'build-info.json'), 'utf8')) as Record<
  string,
  string
>;

function run(bin: string, args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin', bin), ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('plat-apiserver --version prints "plat-apiserver vX.Y.Z" and exits 0, as nodeagent does', () => {
  const api = run('plat-apiserver', ['--version']);
  assert.deepEqual(api, { status: 0, out: `plat-apiserver v${pkg.version}\n`, err: '' });
  assert.equal(run('plat-apiserver', ['--version=true']).out, `plat-apiserver v${pkg.version}\n`);
  assert.deepEqual(run('nodeagent', ['--version']), {
    status: 0,
    out: `nodeagent v${pkg.version}\n`,
    err: '',
  });
});

test('--version=raw prints the record GET /version serves, with the build stamp', async () => {
  const r = run('plat-apiserver', ['--version=raw']);
  assert.equal(r.status, 0);
  const rec = JSON.parse(r.out) as Record<string, string>;
  assert.deepEqual(Object.keys(rec), [
    'major',
    'minor',
    'gitVersion',
    'gitCommit',
    'gitTreeState',
    'buildDate',
    'goVersion',
    'compiler',
    'platform',
  ]);
  assert.deepEqual([rec['major'], rec['minor'], rec['gitVersion']], ['1', '32', 'v1.32.0-plat']);
  assert.equal(rec['gitCommit'], stamp['gitCommit']);
  assert.equal(rec['buildDate'], stamp['buildDate']);
  const agent = JSON.parse(run('nodeagent', ['--version=raw']).out) as Record<string, string>;
  assert.equal(agent['gitCommit'], rec['gitCommit'], 'both programs read one build stamp');
  const api = await startApiServer();
  try {
    const served = await api.request('GET', '/version', { anonymous: true });
    assert.deepEqual(served.json, rec);
  } finally {
    await api.stop();
  }
});

test('--version=vX.Y.Z sets the gitVersion /version serves; another major/minor/patch is refused', async () => {
  const api = await startApiServer({ args: ['--version=v1.32.0-custom.1'] });
  try {
    const served = await api.request('GET', '/version', { anonymous: true });
    assert.equal(served.json?.['gitVersion'], 'v1.32.0-custom.1');
    assert.equal(served.json?.['minor'], '32');
  } finally {
    await api.stop();
  }
  const other = run('plat-apiserver', ['--version=v1.33.0']);
  assert.equal(other.status, 1);
  assert.equal(
    other.err,
    'plat-apiserver: invalid argument "v1.33.0" for "--version" flag: version "v1.33.0" must match major/minor/patch of default version "v1.32.0-plat"\n',
  );
  const bad = run('plat-apiserver', ['--version=maybe']);
  assert.equal(bad.status, 1);
  assert.equal(
    bad.err,
    'plat-apiserver: invalid argument "maybe" for "--version" flag: strconv.ParseBool: parsing "maybe": invalid syntax (accepted: true, false, raw, or a version vX.Y.Z[-pre][+build] to report)\n',
  );
  // pflag's NoOptDefVal: a bare --version takes no value, so a following word is an argument.
  assert.match(run('plat-apiserver', ['--version', 'raw']).err, /does not take any arguments/);
});
