// Under --platform-profile=kubernetes the --config file is the reference's KubeletConfiguration:
// the file kubeadm 1.32 writes on a node (test/fixtures/kubeadm/config.yaml) loads with the
// reference's defaults for its zero values; `kube` fields map onto ours; a reference field we do
// not support fails naming it; a field nobody knows is a warning; the reference's flag
// spellings are accepted; an unknown profile names the flag and the accepted values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import {
  profileOnCommandLine,
  translateReferenceFlags,
} from '../../../../src/agent/cli/reference-flags.js';
import { buildConfiguration } from '../../../../src/agent/config/effective.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const KUBEADM = join(process.cwd(), 'test', 'fixtures', 'kubeadm', 'config.yaml');
const build = (argv: string[]) => buildConfiguration({ specs: FLAGS, parsed: parseArgs(argv) });

async function file(t: { after(fn: () => unknown): void }, text: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'kubelet-config-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  const f = join(d, 'config.yaml');
  await writeFile(f, text);
  return f;
}

test("kubeadm's config.yaml loads under kubernetes, zero values taking the reference defaults", async () => {
  const eff = await build(['--platform-profile=kubernetes', `--config=${KUBEADM}`]);
  assert.deepEqual(eff.problems, []);
  const c = eff.config;
  assert.equal(c.platformProfile, 'kubernetes');
  assert.equal(c.authentication.x509.clientCAFile, '/etc/kubernetes/pki/ca.crt');
  assert.equal(c.authorization.mode, 'Webhook');
  assert.equal(c.staticPodPath, '/etc/kubernetes/manifests');
  assert.equal(c.clusterDomain, 'cluster.local');
  assert.deepEqual(c.clusterDNS, ['10.96.0.10']);
  assert.equal(c.cgroupDriver, 'systemd');
  // 0s means "the default" in the reference: 10s, 5m, 1m, 20s, 4h ...
  assert.equal(c.nodeStatusUpdateFrequency, '10s');
  assert.equal(c.nodeStatusReportFrequency, '5m0s');
  assert.equal(c.syncFrequency, '1m0s');
  assert.equal(c.nodeLeaseDurationSeconds, 40);
  // The reference fields we do not support hold their zero values: dropped with a note each.
  for (const f of ['logging.options.json']) {
    assert.ok(
      eff.warnings.some((w) => w.includes(`field "${f}"`)),
      `a note about ${f}: ${eff.warnings.join('\n')}`,
    );
  }
  // The file-only fields are read, at the reference's defaults.
  for (const f of [
    'crashLoopBackOff',
    'memorySwap',
    'shutdownGracePeriod',
    'shutdownGracePeriodCriticalPods',
    'imageMaximumGCAge',
  ]) {
    assert.ok(
      !eff.warnings.some((w) => w.includes(`field "${f}"`)),
      `no note about ${f}: ${eff.warnings.join('\n')}`,
    );
  }
  assert.equal(c.shutdownGracePeriod, '0s');
  assert.deepEqual(c.memorySwap, { swapBehavior: '' });
  assert.deepEqual(c.crashLoopBackOff, { maxContainerRestartPeriod: null });
  assert.equal(c.podLogsDir, '/var/log/pods');
});

test('kube fields map onto ours; a supported-nowhere field set fails naming it; an unknown one warns', async (t) => {
  const f = await file(
    t,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nkubeAPIQPS: 7\nkubeAPIBurst: 9\nkubeReserved: {cpu: 100m}\nkubeletCgroups: /kubelet\nnotAField: 1\n',
  );
  const eff = await build(['--platform-profile=kubernetes', `--config=${f}`]);
  assert.equal(eff.config.platAPIQPS, 7);
  assert.equal(eff.config.platAPIBurst, 9);
  assert.deepEqual(eff.config.platReserved, { cpu: '100m' });
  assert.equal(eff.config.nodeagentCgroups, '/kubelet');
  assert.ok(
    eff.warnings.some((w) => /field "notAField" unknown field ignored/.test(w)),
    eff.warnings.join('\n'),
  );

  const bad = await file(
    t,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 30s\nuserNamespaces: {idsPerPod: 131072}\n',
  );
  await assert.rejects(
    build(['--platform-profile=kubernetes', `--config=${bad}`]),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(
        e.message,
        /config\.yaml" line 4, column 1: field userNamespaces is not supported by nodeagent \(set it to its default or remove it\)/,
      );
      assert.doesNotMatch(e.message, /shutdownGracePeriod/);
      return true;
    },
  );
  const fileOnly = await file(
    t,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 30s\nmemorySwap: {swapBehavior: LimitedSwap}\n',
  );
  const ok = await build(['--platform-profile=kubernetes', `--config=${fileOnly}`]);
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.config.shutdownGracePeriod, '30s');
  assert.equal(ok.config.memorySwap.swapBehavior, 'LimitedSwap');
});

test('identity: a NodeAgentConfiguration under kubernetes, or a KubeletConfiguration under platform, is refused', async (t) => {
  const ours = await file(
    t,
    'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n',
  );
  await assert.rejects(
    build(['--platform-profile=kubernetes', `--config=${ours}`]),
    /kind "NodeAgentConfiguration" is not supported under --platform-profile=kubernetes: expected kind: KubeletConfiguration/,
  );
  await assert.rejects(
    build([`--config=${KUBEADM}`]),
    /kind "KubeletConfiguration" is not supported: expected kind: NodeAgentConfiguration/,
  );
});

test('an unknown profile names the flag and the accepted values', async () => {
  await assert.rejects(
    build(['--platform-profile=k8s']),
    /^ConfigError: invalid value "k8s" for --platform-profile: the accepted values are platform, kubernetes$|invalid value "k8s" for --platform-profile: the accepted values are platform, kubernetes/,
  );
});

test("the reference's flag spellings (kubeadm's drop-in) under kubernetes", () => {
  const argv = [
    '--platform-profile=kubernetes',
    '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf',
    '--kubeconfig=/etc/kubernetes/kubelet.conf',
    '--config=/var/lib/kubelet/config.yaml',
    '--kube-api-qps',
    '20',
    '--kube-reserved=cpu=100m',
    '--kubelet-cgroups=/k',
    '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock',
    '--',
    '--kubeconfig=x',
  ];
  assert.equal(profileOnCommandLine(argv), 'kubernetes');
  assert.deepEqual(translateReferenceFlags(argv), [
    '--platform-profile=kubernetes',
    '--bootstrap-platconfig=/etc/kubernetes/bootstrap-kubelet.conf',
    '--platconfig=/etc/kubernetes/kubelet.conf',
    '--config=/var/lib/kubelet/config.yaml',
    '--plat-api-qps',
    '20',
    '--plat-reserved=cpu=100m',
    '--nodeagent-cgroups=/k',
    '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock',
    '--',
    '--kubeconfig=x',
  ]);
  assert.equal(profileOnCommandLine(['--platform-profile', 'platform']), 'platform');
});
