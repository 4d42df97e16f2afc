// Without --platform-profile the BUILT agent takes the naming profile from its input: a reference
// flag spelling or a KubeletConfiguration file selects kubernetes (said once, naming why);
// signals of both profiles are an error naming one of each, before anything else is read.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, copyFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, runCli } from './run-cli.js';

const dir = await mkdtemp(join(tmpdir(), 'profile-selection-'));
after(() => rm(dir, { recursive: true, force: true }));
const kubeadm = join(dir, 'config.yaml');
await copyFile(join(REPO, 'test/fixtures/kubeadm/config.yaml'), kubeadm);
const ours = join(dir, 'nodeagent.yaml');
await writeFile(
  ours,
  'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n',
);
const kubeletDropIns = join(dir, 'kubelet.conf.d');
await mkdir(kubeletDropIns);
await writeFile(
  join(kubeletDropIns, '10-qps.conf'),
  'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nkubeAPIQPS: 7\n',
);

const HINT =
  'give the input of one profile only: under --platform-profile=kubernetes the reference flag spellings and a KubeletConfiguration file, under --platform-profile=platform our spellings (--platconfig, --bootstrap-platconfig, ...) and a NodeAgentConfiguration file';

/** The one error line of a refused command line (deprecation notices and log lines aside). */
async function refusal(args: string[]): Promise<string[]> {
  const r = await runCli([...args, '--print-config']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  return r.stderr
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('Flag --') && !/^[IW]\d{4} /.test(l));
}

test('--platform-profile=platform with --kubeconfig: refused naming both', async () => {
  assert.deepEqual(
    await refusal(['--platform-profile=platform', '--kubeconfig=/nonexistent/kubelet.conf']),
    [
      `conflicting naming profiles: --platform-profile=platform selects the platform profile, but the flag --kubeconfig (the reference's spelling of --platconfig) selects the kubernetes profile; ${HINT}`,
    ],
  );
});

test('--platform-profile=platform with a KubeletConfiguration file: refused naming both', async () => {
  assert.deepEqual(await refusal(['--platform-profile=platform', `--config=${kubeadm}`]), [
    `conflicting naming profiles: --platform-profile=platform selects the platform profile, but the config file "${kubeadm}" (apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration) selects the kubernetes profile; ${HINT}`,
  ]);
});

test('a reference spelling with a NodeAgentConfiguration file: refused naming both', async () => {
  assert.deepEqual(await refusal(['--kube-api-qps=5', `--config=${ours}`]), [
    `conflicting naming profiles: the flag --kube-api-qps (the reference's spelling of --plat-api-qps) selects the kubernetes profile, but the config file "${ours}" (apiVersion: nodeagent.config.platform.io/v1beta1, kind: NodeAgentConfiguration) selects the platform profile; ${HINT}`,
  ]);
});

test('a NodeAgentConfiguration file with KubeletConfiguration drop-ins: refused naming both', async () => {
  assert.deepEqual(await refusal([`--config=${ours}`, `--config-dir=${kubeletDropIns}`]), [
    `conflicting naming profiles: the config file "${ours}" (apiVersion: nodeagent.config.platform.io/v1beta1, kind: NodeAgentConfiguration) selects the platform profile, but the drop-in config file "${join(kubeletDropIns, '10-qps.conf')}" (apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration) selects the kubernetes profile; ${HINT}`,
  ]);
});

test('an unknown --platform-profile is named before any reference spelling is judged', async () => {
  assert.deepEqual(await refusal(['--platform-profile=kube', '--kubeconfig=/x']), [
    'invalid value "kube" for --platform-profile: the accepted values are platform, kubernetes',
  ]);
});

test('a KubeletConfiguration file alone selects kubernetes, said once naming the file; its drop-ins load', async () => {
  const r = await runCli([
    `--config=${kubeadm}`,
    `--config-dir=${kubeletDropIns}`,
    '--print-config',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const said = `naming profile kubernetes selected by the config file "${kubeadm}" (apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration) (no --platform-profile was given; --platform-profile=kubernetes says so explicitly)`;
  assert.equal(r.stderr.split(said).length - 1, 1, r.stderr);
  assert.match(r.stdout, /^platformProfile: kubernetes$/m);
  assert.match(r.stdout, /^platAPIQPS: 7$/m, 'the KubeletConfiguration drop-in applied');
});

test('given explicitly, the profile is not announced; a platform input alone stays quiet too', async () => {
  const explicit = await runCli([
    '--platform-profile=kubernetes',
    `--config=${kubeadm}`,
    '--print-config',
  ]);
  assert.equal(explicit.code, 0, explicit.stderr);
  assert.doesNotMatch(explicit.stderr, /naming profile/);
  const platform = await runCli([
    `--config=${ours}`,
    '--platconfig=/nonexistent',
    '--print-config',
  ]);
  assert.equal(platform.code, 0, platform.stderr);
  assert.doesNotMatch(platform.stderr, /naming profile/);
  assert.match(platform.stdout, /^platformProfile: platform$/m);
});
