// kubectl (the reference's client) against plat-apiserver under --platform-profile=kubernetes,
// with the built agent joined through TLS bootstrap: `kubectl get nodes` shows it Ready, `kubectl
// get lease -n kube-node-lease` shows its lease, and `kubectl certificate approve` of its serving
// CSR (signer kubernetes.io/kubelet-serving, never auto-approved, as in the reference) gets the
// agent its serving certificate. Skipped where kubectl is missing, except under CI=true, where a
// missing kubectl fails (test/helpers/kubectl.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  startBootstrapEnv,
  spawnAgent,
  type AgentProcess,
  type BootstrapEnv,
} from '../helpers/bootstrap-env.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';

const execFileP = promisify(execFile);
const skip = kubectlSkipReason('the kubectl e2e suite (kubernetes profile)') ?? false;

const NODE = 'kube-node-1';
let env: BootstrapEnv | undefined;
let agent: AgentProcess | undefined;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileP(
    'kubectl',
    ['--kubeconfig', env?.api.adminPlatconfig ?? '', ...args],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return stdout;
}

before(async () => {
  if (skip !== false) return;
  env = await startBootstrapEnv({ args: ['--platform-profile=kubernetes'] });
  const config = join(env.dir, 'config.yaml');
  await mkdir(join(env.dir, 'manifests'));
  await writeFile(
    config,
    [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      'serverTLSBootstrap: true',
      'nodeStatusUpdateFrequency: 1s',
      'authentication:',
      `  x509: {clientCAFile: ${env.api.clusterCaFile}}`,
      '',
    ].join('\n'),
  );
  agent = await spawnAgent(
    env,
    ['--platform-profile=kubernetes', `--config=${config}`, '--node-ip=127.0.0.1'],
    NODE,
    { referenceSpellings: true },
  );
});

after(async () => {
  await agent?.stop();
  if (env !== undefined) await killProcessPods(join(env.dir, 'root'));
  await env?.stop();
});

test(
  'kubectl: get nodes Ready, get lease -n kube-node-lease, certificate approve of a serving CSR',
  { skip, timeout: 120_000 },
  async () => {
    const out = (): string => `\n--- agent output ---\n${agent?.output().slice(-3000) ?? ''}`;
    await waitFor(
      async () => /^kube-node-1\s+Ready\s/m.test(await kubectl('get', 'nodes').catch(() => '')),
      `kubectl get nodes: ${NODE} Ready${out()}`,
      60_000,
      250,
    );
    assert.match(
      await kubectl('get', 'nodes'),
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\nkube-node-1\s+Ready\s+<none>\s+\d+s\s+v\S+\n$/,
    );
    assert.match(
      await kubectl('get', 'lease', '-n', 'kube-node-lease'),
      /^NAME\s+HOLDER\s+AGE\nkube-node-1\s+kube-node-1\s+\d+s\n$/,
    );

    // The serving CSR waits for a person, as the reference's kubelet-serving CSRs do.
    let csr = '';
    await waitFor(
      async () => {
        const m =
          /^(csr-\S+)\s+\S+\s+kubernetes\.io\/kubelet-serving\s+system:node:kube-node-1\s+\S+\s+Pending$/m.exec(
            await kubectl('get', 'csr'),
          );
        csr = m?.[1] ?? '';
        return csr !== '';
      },
      `a Pending kubernetes.io/kubelet-serving CSR${out()}`,
      30_000,
      250,
    );
    assert.match(
      await kubectl('certificate', 'approve', csr),
      new RegExp(`certificatesigningrequest\\.certificates\\.k8s\\.io/${csr} approved`),
    );
    await waitFor(
      async () => /Approved,Issued/.test(await kubectl('get', 'csr', csr)),
      'the serving CSR issued',
      20_000,
      250,
    );
    // The agent stores the issued serving certificate, signed by the cluster CA.
    const current = join(env?.certDir ?? '', 'nodeagent-server-current.pem');
    await waitFor(
      () => existsSync(current),
      `the serving certificate in ${current}${out()}`,
      20_000,
      250,
    );
    const verify = spawnSync(
      'openssl',
      ['verify', '-CAfile', env?.api.clusterCaFile ?? '', current],
      { encoding: 'utf8' },
    );
    assert.match(verify.stdout, /: OK$/m, verify.stderr);
  },
);
