// A kubeadm node's kubelet unit, run as systemd runs it with only the binary's path changed: the
// drop-in 10-kubeadm.conf kubeadm 1.32 installs, its kubeadm-flags.env, the KubeletConfiguration
// it writes (test/fixtures/kubeadm/), and no --platform-profile. The files live under a temporary
// root (every /etc/ and /var/ path of the fixtures moved under it), the only other change. The
// reference flag spellings select the kubernetes profile (said once, naming the flag); the BUILT
// agent bootstraps against the BUILT plat-apiserver under that profile and the node turns Ready
// under the reference's names, on process:// given in /etc/default/kubelet's KUBELET_EXTRA_ARGS
// (kubeadm's place for overrides), and with nothing overridden on kubeadm's own CRI socket served by
// a containerd of the test's own (test/helpers/containerd.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  spawnAgent,
  freePort,
  BOOTSTRAP_TOKEN,
  type AgentProcess,
  type BootstrapEnv,
} from '../../../helpers/bootstrap-env.js';
import { execStartArgv } from '../../../helpers/systemd-unit.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { killProcessPods } from '../pods/runtimes.js';
import { REPO } from './run-cli.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { containerdSkipReason, startContainerd } from '../../../helpers/containerd.js';

const ctdSkip = (await containerdSkipReason()) ?? false;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FIXTURES = join(REPO, 'test', 'fixtures', 'kubeadm');
const NODE = 'node-kubeadm';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Moves every absolute /etc/ and /var/ path of `text` under `root`. */
function rooted(text: string, root: string): string {
  return text.replace(/(^|[=\s"-])\/(etc|var)\//gm, `$1${root}/$2/`);
}

interface KubeadmNode {
  root: string;
  argv: string[];
}

/** Lays out a kubeadm node's files under `<env.dir>/host`; `extraArgs` goes to /etc/default/kubelet. */
async function kubeadmNode(
  env: BootstrapEnv,
  extraArgs: string[] | undefined,
  socketRoot?: string,
): Promise<KubeadmNode> {
  const root = join(env.dir, 'host');
  const dropInDir = join(root, 'etc/systemd/system/kubelet.service.d');
  for (const d of [
    'etc/kubernetes/pki',
    'etc/kubernetes/manifests',
    'etc/default',
    'var/lib/kubelet',
    'etc/systemd/system/kubelet.service.d',
  ])
    await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, 'etc/kubernetes/pki/ca.crt'), await readFile(env.api.clusterCaFile));
  // kubeadm join's bootstrap-kubelet.conf: the CA inline, the bootstrap token as the user.
  const caData = (await readFile(env.api.caFile)).toString('base64');
  await writeFile(
    join(root, 'etc/kubernetes/bootstrap-kubelet.conf'),
    `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${caData}\n    server: ${env.api.url}\n  name: kubernetes\ncontexts:\n- context:\n    cluster: kubernetes\n    user: tls-bootstrap-token-user\n  name: tls-bootstrap-token-user@kubernetes\ncurrent-context: tls-bootstrap-token-user@kubernetes\nkind: Config\npreferences: {}\nusers:\n- name: tls-bootstrap-token-user\n  user:\n    token: ${BOOTSTRAP_TOKEN}\n`,
    { mode: 0o600 },
  );
  // podLogsDir (the reference's default /var/log/pods, a config-file field kubeadm leaves out) moved
  // under the root too: the exact argv stays kubeadm's, so the setting goes into kubeadm's config file.
  const config = rooted(await readFile(join(FIXTURES, 'config.yaml'), 'utf8'), root);
  await writeFile(
    join(root, 'var/lib/kubelet/config.yaml'),
    `${config}${config.endsWith('\n') ? '' : '\n'}podLogsDir: ${JSON.stringify(join(root, 'var/log/pods'))}\n`,
  );
  // with socketRoot: kubeadm's CRI socket moved under it (the test's own containerd listens there)
  const flagsEnv = await readFile(join(FIXTURES, 'kubeadm-flags.env'), 'utf8');
  await writeFile(
    join(root, 'var/lib/kubelet/kubeadm-flags.env'),
    socketRoot === undefined
      ? flagsEnv
      : flagsEnv.replaceAll('unix:///var/', `unix://${socketRoot}/var/`),
  );
  if (extraArgs !== undefined)
    await writeFile(
      join(root, 'etc/default/kubelet'),
      `KUBELET_EXTRA_ARGS="${extraArgs.join(' ')}"\n`,
    );
  const unit = rooted(await readFile(join(FIXTURES, '10-kubeadm.conf'), 'utf8'), root);
  await writeFile(join(dropInDir, '10-kubeadm.conf'), unit);
  const argv = execStartArgv(unit);
  assert.equal(
    argv[0],
    '/usr/bin/kubelet',
    'the drop-in runs the kubelet binary (the one thing replaced)',
  );
  return { root, argv: argv.slice(1) };
}

async function getJson(env: BootstrapEnv, path: string): Promise<Obj | undefined> {
  const r = await env.api.request('GET', path);
  return r.status === 200 ? (r.json as Obj) : undefined;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

const SELECTED =
  "naming profile kubernetes selected by the flag --bootstrap-kubeconfig (the reference's spelling of --bootstrap-platconfig)";

test(
  'kubeadm drop-in, only the binary path changed: the reference spellings select the kubernetes profile; the node bootstraps, registers and is Ready',
  { timeout: 120_000 },
  async () => {
    const env = await startBootstrapEnv({ args: ['--platform-profile=kubernetes'] });
    cleanups.push(() => env.stop());
    const root = join(env.dir, 'host');
    const node = await kubeadmNode(env, [
      '--container-runtime-endpoint=process://',
      `--root-dir=${root}/var/lib/kubelet`,
      `--cert-dir=${root}/var/lib/kubelet/pki`,
      '--address=127.0.0.1',
      `--port=${await freePort()}`,
      '--read-only-port=0',
      '--healthz-port=0',
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
    ]);
    assert.deepEqual(
      node.argv.filter((a) => a.startsWith('--platform-profile')),
      [],
      'no --platform-profile on the command line',
    );
    const agent: AgentProcess = await spawnAgent(env, [], NODE, { argv: node.argv });
    cleanups.push(async () => {
      await agent.stop();
      await killProcessPods(join(root, 'var/lib/kubelet'));
    });
    const out = (): string => `\n--- agent output ---\n${agent.output().slice(-4000)}`;
    await waitFor(
      async () =>
        (
          (await getJson(env, `/api/v1/nodes/${NODE}`))?.['status']?.['conditions'] as
            Obj[] | undefined
        )?.find((c) => c['type'] === 'Ready')?.['status'] === 'True',
      `node ${NODE} Ready${out()}`,
      60_000,
      200,
    );

    // The reference's names (Kubernetes 1.32), written here.
    const csrs = ((await getJson(env, '/apis/certificates.k8s.io/v1/certificatesigningrequests'))?.[
      'items'
    ] ?? []) as Obj[];
    assert.deepEqual(
      csrs
        .filter((c) => c['spec']['username'] === 'system:bootstrap:abcdef')
        .map((c) => c['spec']['signerName']),
      ['kubernetes.io/kube-apiserver-client-kubelet'],
    );
    const registered = (await getJson(env, `/api/v1/nodes/${NODE}`)) as Obj;
    assert.equal(registered['metadata']['labels']['kubernetes.io/hostname'], NODE);
    assert.deepEqual(
      registered['status']['addresses'].find((a: Obj) => a['type'] === 'InternalIP'),
      { type: 'InternalIP', address: '127.0.0.1' },
      '--node-ip from kubeadm-flags.env',
    );
    await waitFor(
      async () =>
        (
          await getJson(
            env,
            `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE}`,
          )
        )?.['spec']?.['holderIdentity'] === NODE,
      `the lease in kube-node-lease${out()}`,
      20_000,
      200,
    );
    // --kubeconfig: the kubeconfig the agent wrote after bootstrap, at kubeadm's path.
    const kubeconfig = await readFile(join(root, 'etc/kubernetes/kubelet.conf'), 'utf8');
    assert.match(kubeconfig, /kind: Config/);
    assert.ok(kubeconfig.includes(env.api.url), 'kubelet.conf names the API server');

    // Said once, naming why; no flag refused; the ignored kubeadm flag says so.
    const text = agent.output();
    assert.equal(count(text, SELECTED), 1, `the profile choice logged once${out()}`);
    assert.equal(
      count(
        text,
        'Flag --pod-infra-container-image has been deprecated, will be removed in 1.35. Image garbage collector will get sandbox image information from CRI. Its value is ignored',
      ),
      1,
    );
    assert.doesNotMatch(text, /unknown flag|did you mean/);
  },
);

test(
  "kubeadm drop-in with kubeadm's containerd socket, nothing edited: the agent speaks CRI to containerd, the node is Ready and reports containerd's version",
  { timeout: 120_000, skip: ctdSkip },
  async () => {
    const env = await startBootstrapEnv({ args: ['--platform-profile=kubernetes'] });
    cleanups.push(() => env.stop());
    const root = join(env.dir, 'host');
    // kubeadm's socket path, moved under the test's root like every other path of the node
    const socket = join(root, 'var/run/containerd/containerd.sock');
    const ctd = await startContainerd({ socketPath: socket });
    cleanups.push(() => ctd.stop());
    const node = await kubeadmNode(
      env,
      [
        `--root-dir=${root}/var/lib/kubelet`,
        `--cert-dir=${root}/var/lib/kubelet/pki`,
        '--address=127.0.0.1',
        `--port=${await freePort()}`,
        '--read-only-port=0',
        '--healthz-port=0',
        '--fail-cgroupv1=false',
        ...NO_CGROUPS_ARGS,
      ],
      root,
    );
    const agent: AgentProcess = await spawnAgent(env, [], NODE, { argv: node.argv });
    cleanups.push(() => agent.stop());
    const out = (): string => `\n--- agent output ---\n${agent.output().slice(-4000)}`;
    await waitFor(
      async () =>
        (
          (await getJson(env, `/api/v1/nodes/${NODE}`))?.['status']?.['conditions'] as
            Obj[] | undefined
        )?.find((c) => c['type'] === 'Ready')?.['status'] === 'True',
      `node ${NODE} Ready${out()}`,
      60_000,
      200,
    );
    const registered = (await getJson(env, `/api/v1/nodes/${NODE}`)) as Obj;
    assert.match(
      registered['status']['nodeInfo']['containerRuntimeVersion'],
      /^containerd:\/\/\d/,
      'the runtime is containerd, through CRI',
    );
    assert.doesNotMatch(agent.output(), /does not speak CRI|invalid configuration/);
    assert.equal(count(agent.output(), SELECTED), 1);
  },
);
