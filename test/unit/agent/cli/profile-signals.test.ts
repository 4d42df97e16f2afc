// The profile signals of the input (src/agent/cli/profile-signals.ts) and the CRI endpoint check
// (src/agent/cli/cri-endpoint.ts): which spelling, file kind or socket says what.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  commandLineSignals,
  decideProfile,
  documentProfile,
  fileSignal,
  referenceSpellingsIn,
} from '../../../../src/agent/cli/profile-signals.js';
import { translateReferenceFlags } from '../../../../src/agent/cli/reference-flags.js';
import { criEndpointProblems } from '../../../../src/agent/cli/cri-endpoint.js';
import { endpointKind } from '../../../../src/agent/runtime/cri/endpoint.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

test("kubeadm's flag spellings are the reference's: each named once with ours, nothing after --", () => {
  const argv = [
    '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf',
    '--kubeconfig',
    '/etc/kubernetes/kubelet.conf',
    '--config=/var/lib/kubelet/config.yaml',
    '--kubeconfig=/x',
    '--kube-reserved=cpu=1',
    '--kubelet-cgroups=/k',
    '--node-ip=10.0.0.1',
    '--',
    '--kube-api-qps=1',
  ];
  assert.deepEqual(referenceSpellingsIn(argv), [
    ['bootstrap-kubeconfig', 'bootstrap-platconfig'],
    ['kubeconfig', 'platconfig'],
    ['kube-reserved', 'plat-reserved'],
    ['kubelet-cgroups', 'nodeagent-cgroups'],
  ]);
  assert.deepEqual(
    referenceSpellingsIn([
      '--platconfig=/x',
      '--config=/c',
      '--node-ip=1.2.3.4',
      '--hostname-override=n',
    ]),
    [],
  );
});

test('the signals: explicit flag first, then the spellings; a conflict names both, agreement is quiet', () => {
  assert.deepEqual(commandLineSignals(undefined, ['--kubeconfig=/x']), [
    {
      profile: 'kubernetes',
      why: "the flag --kubeconfig (the reference's spelling of --platconfig)",
    },
  ]);
  assert.deepEqual(decideProfile(commandLineSignals('kubernetes', ['--kubeconfig=/x'])), {
    profile: 'kubernetes',
    why: '--platform-profile=kubernetes',
  });
  assert.equal(decideProfile(commandLineSignals(undefined, ['--platconfig=/x'])), undefined);
  assert.throws(
    () => decideProfile(commandLineSignals('platform', ['--kube-api-burst=3'])),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.startsWith(
        "conflicting naming profiles: --platform-profile=platform selects the platform profile, but the flag --kube-api-burst (the reference's spelling of --plat-api-burst) selects the kubernetes profile;",
      ),
  );
});

test('a file signals by its kind; an unreadable, oversized or malformed file signals nothing (the loader reports it)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'signals-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(
    documentProfile({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' }),
    'kubernetes',
  );
  assert.equal(documentProfile({ kind: 'NodeAgentConfiguration' }), 'platform');
  // The apiVersion's group decides a mixed identity (the loader then names the wrong kind).
  assert.equal(
    documentProfile({
      apiVersion: 'nodeagent.config.platform.io/v1beta1',
      kind: 'KubeletConfiguration',
    }),
    'platform',
  );
  assert.equal(
    documentProfile({ apiVersion: 'kubelet.config.k8s.io/v1', kind: 'NodeAgentConfiguration' }),
    'kubernetes',
  );
  assert.equal(documentProfile({ apiVersion: 'nodeagent.config.example.org/v1beta1' }), 'platform');
  for (const d of [null, [], 'x', { kind: 'Pod' }, {}]) assert.equal(documentProfile(d), undefined);
  const write = async (name: string, text: string): Promise<string> => {
    await writeFile(join(dir, name), text);
    return join(dir, name);
  };
  const k = await write(
    'k.yaml',
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
  );
  assert.deepEqual(await fileSignal(k, 'the config file'), {
    profile: 'kubernetes',
    why: `the config file "${k}" (apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration)`,
  });
  assert.equal(await fileSignal(join(dir, 'missing.yaml'), 'the config file'), undefined);
  assert.equal(await fileSignal(dir, 'the config file'), undefined, 'a directory');
  assert.equal(
    await fileSignal(await write('bad.yaml', 'kind: [KubeletConfiguration\n'), 'the config file'),
    undefined,
  );
  assert.equal(
    await fileSignal(
      await write('deep.yaml', `${'['.repeat(500)}${']'.repeat(500)}\n`),
      'the config file',
    ),
    undefined,
  );
  assert.equal(
    await fileSignal(
      await write('big.yaml', `kind: KubeletConfiguration\nx: "${'a'.repeat(4 * 1024 * 1024)}"\n`),
      'the config file',
    ),
    undefined,
  );
});

test('random argv: the signals and the translation never throw anything but ConfigError, and keep the argv length', () => {
  const names = FLAGS.map((f) => f.name);
  const token = fc.oneof(
    fc.string(),
    fc.constantFrom(
      '--',
      '--kubeconfig',
      '--kube',
      '--kubelet-',
      '--kube-api-qps=',
      '--platform-profile=platform',
      '--platform-profile=kubernetes',
    ),
    fc
      .constantFrom(...names)
      .map((n) => `--${n.replace(/plat/g, 'kube').replace(/^nodeagent-/, 'kubelet-')}`),
  );
  fc.assert(
    fc.property(
      fc.array(token, { maxLength: 12 }),
      fc.constantFrom(undefined, 'platform' as const, 'kubernetes' as const),
      (argv, explicit) => {
        assert.equal(translateReferenceFlags(argv).length, argv.length);
        try {
          decideProfile(commandLineSignals(explicit, argv));
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('the CRI sockets kubeadm detects are accepted (the agent speaks CRI to them); an image service of another kind than the runtime is refused naming both flags', () => {
  assert.equal(endpointKind('unix:///var/run/containerd/containerd.sock'), 'cri');
  assert.equal(endpointKind('unix:///var/run/crio/crio.sock'), 'cri');
  assert.equal(endpointKind('unix:///var/run/cri-dockerd.sock'), 'cri');
  assert.equal(endpointKind('unix:///var/run/docker.sock'), 'docker');
  assert.equal(endpointKind('tcp://127.0.0.1:2375'), 'docker');
  assert.equal(endpointKind('process://'), 'process');
  assert.equal(endpointKind('unix:///tmp/other.sock'), 'unknown-unix');
  assert.deepEqual(
    criEndpointProblems({
      containerRuntimeEndpoint: 'unix:///var/run/containerd/containerd.sock',
      imageServiceEndpoint: '',
    }),
    [],
  );
  assert.deepEqual(
    criEndpointProblems({
      containerRuntimeEndpoint: 'unix:///var/run/containerd/containerd.sock',
      imageServiceEndpoint: 'unix:///run/containerd/containerd.sock',
    }),
    [],
  );
  assert.deepEqual(
    criEndpointProblems({
      containerRuntimeEndpoint: 'unix:///var/run/docker.sock',
      imageServiceEndpoint: 'unix:///run/containerd/containerd.sock',
    }),
    [
      'invalid configuration: imageServiceEndpoint (--image-service-endpoint) "unix:///run/containerd/containerd.sock" is a CRI runtime, and the runtime (--container-runtime-endpoint "unix:///var/run/docker.sock") is a Docker engine: the images must come from a service of the same kind (leave --image-service-endpoint empty to use the runtime\'s)',
    ],
  );
});
