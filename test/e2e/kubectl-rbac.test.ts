// kubectl's RBAC commands against plat-apiserver (--platform-domain=k8s.io, default
// --authorization-mode=Node,RBAC): auth can-i (and --list), auth whoami, --as, create role,
// create clusterrolebinding, auth reconcile -f. Outputs are the reference's kubectl texts.
// Without kubectl these tests skip, except under CI=true, where the suite fails (test/helpers/kubectl.ts).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';

const execFileP = promisify(execFile);
const skip = kubectlSkipReason('kubectl RBAC e2e') ?? false;

let api: StartedApiServer;
let dir: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileP('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

/** kubectl as a token user (its own kubeconfig with the same server and CA). */
async function kubectlAs(
  token: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const cfg = join(dir, `${token}.kubeconfig`);
  writeFileSync(
    cfg,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.url}\n    certificate-authority: ${api.caFile}\nusers:\n- name: u\n  user:\n    token: ${token}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`,
  );
  try {
    const { stdout, stderr } = await execFileP('kubectl', ['--kubeconfig', cfg, ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    };
  }
}

before(async () => {
  if (skip !== false) return;
  dir = mkdtempSync(join(tmpdir(), 'pa-kubectl-rbac-'));
  writeFileSync(join(dir, 'tokens.csv'), 'tok-dana,dana,u-dana,"qa"\n');
  api = await startApiServer({
    platformDomain: 'k8s.io',
    args: [`--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
});
after(async () => {
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('kubectl auth whoami and can-i as the admin and as a plain user', { skip }, async () => {
  assert.match(
    await kubectl('auth', 'whoami'),
    // a client-certificate user carries its certificate's SHA-256 as credential id, as on the
    // reference (kube-apiserver 1.32: `Extra: authentication.kubernetes.io/credential-id [X509SHA256=...]`)
    /^ATTRIBUTE\s+VALUE\nUsername\s+plat-admin\nGroups\s+\[system:masters system:authenticated\]\nExtra: authentication\.[a-z0-9.]+\/credential-id\s+\[X509SHA256=[0-9a-f]{64}\]\n$/,
  );
  assert.equal(await kubectl('auth', 'can-i', 'delete', 'nodes'), 'yes\n');
  const who = await kubectlAs('tok-dana', 'auth', 'whoami');
  assert.match(who.stdout, /Username\s+dana\nUID\s+u-dana\nGroups\s+\[qa system:authenticated\]/);
  const no = await kubectlAs('tok-dana', 'auth', 'can-i', 'list', 'pods');
  assert.equal(no.code, 1);
  assert.equal(no.stdout, 'no\n');
  const list = await kubectlAs('tok-dana', 'auth', 'can-i', '--list');
  assert.match(list.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
  assert.match(
    list.stdout,
    /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/,
  );
  assert.match(list.stdout, /\s+\[\/api\/\*\]\s+\[\]\s+\[get\]/);
  assert.doesNotMatch(list.stdout, /^pods/m);
  // The reference's Node authorizer lists no rules only for nodes (RulesFor: incomplete for a node
  // user, complete for anyone else), so a plain user's list comes without kubectl's warning.
  assert.doesNotMatch(list.stderr, /the list may be incomplete/);
});

test(
  'kubectl create role, create rolebinding and clusterrolebinding grant what they say',
  { skip },
  async () => {
    assert.match(
      await kubectl(
        'create',
        'role',
        'pod-reader',
        '--verb=get,list,watch',
        '--resource=pods',
        '-n',
        'default',
      ),
      /role\.rbac\.authorization\.k8s\.io\/pod-reader created/,
    );
    assert.match(
      await kubectl(
        'create',
        'rolebinding',
        'dana-pods',
        '--role=pod-reader',
        '--user=dana',
        '-n',
        'default',
      ),
      /rolebinding\.rbac\.authorization\.k8s\.io\/dana-pods created/,
    );
    assert.equal(
      (await kubectlAs('tok-dana', 'auth', 'can-i', 'list', 'pods', '-n', 'default')).stdout,
      'yes\n',
    );
    assert.equal(
      (await kubectlAs('tok-dana', 'auth', 'can-i', 'list', 'pods', '-n', 'kube-system')).stdout,
      'no\n',
    );
    assert.equal((await kubectlAs('tok-dana', 'auth', 'can-i', 'get', 'nodes')).stdout, 'no\n');
    assert.match(
      await kubectl('create', 'clusterrolebinding', 'qa-view', '--clusterrole=view', '--group=qa'),
      /clusterrolebinding\.rbac\.authorization\.k8s\.io\/qa-view created/,
    );
    assert.equal(
      (await kubectlAs('tok-dana', 'auth', 'can-i', 'list', 'pods', '-n', 'kube-system')).stdout,
      'yes\n',
    );
    const got = await kubectlAs('tok-dana', 'get', 'pods', '-n', 'kube-system');
    assert.equal(got.code, 0, got.stderr);
    assert.match(
      await kubectl('get', 'rolebinding', 'dana-pods', '-n', 'default', '-o', 'wide'),
      /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\ndana-pods\s+Role\/pod-reader\s+\S+\s+dana\s*\n$/,
    );
  },
);

test(
  'kubectl --as impersonates, and is refused for a user without the impersonate verb',
  { skip },
  async () => {
    assert.match(
      await kubectl('--as', 'erin', '--as-group', 'ops', 'auth', 'whoami'),
      /Username\s+erin\nGroups\s+\[ops system:authenticated\]/,
    );
    assert.equal(
      await kubectl('--as', 'erin', 'auth', 'can-i', 'list', 'pods').catch(
        (e: { stdout?: string }) => e.stdout ?? '',
      ),
      'no\n',
    );
    const refused = await kubectlAs('tok-dana', '--as', 'erin', 'get', 'pods');
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): users "erin" is forbidden: User "dana" cannot impersonate resource "users" in API group "" at the cluster scope/,
    );
  },
);

test(
  'kubectl auth reconcile -f creates, then adds missing rules without removing any',
  { skip },
  async () => {
    const file = join(dir, 'rbac.yaml');
    const doc = (verbs: string) =>
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reconciled\nrules:\n- apiGroups: [""]\n  resources: ["events"]\n  verbs: [${verbs}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: reconciled\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: reconciled\nsubjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: User\n  name: dana\n`;
    writeFileSync(file, doc('"get"'));
    const first = await kubectl('auth', 'reconcile', '-f', file);
    assert.match(first, /clusterrole\.rbac\.authorization\.k8s\.io\/reconciled reconciled/);
    assert.match(first, /clusterrolebinding\.rbac\.authorization\.k8s\.io\/reconciled reconciled/);
    writeFileSync(file, doc('"list"'));
    await kubectl('auth', 'reconcile', '-f', file);
    const rules = JSON.parse(
      await kubectl('get', 'clusterrole', 'reconciled', '-o', 'jsonpath={.rules}'),
    ) as unknown[];
    assert.deepEqual(rules, [
      { apiGroups: [''], resources: ['events'], verbs: ['get'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list'] },
    ]);
    assert.equal(
      (await kubectlAs('tok-dana', 'auth', 'can-i', 'list', 'events', '-A')).stdout,
      'yes\n',
    );
  },
);
