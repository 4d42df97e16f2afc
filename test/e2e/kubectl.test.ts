// Interop: kubectl (the reference's command-line client) against plat-apiserver started with
// --platform-domain=k8s.io and the admin.platconfig it writes. Skipped, with the reason printed,
// where kubectl is not installed.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { csrBody, eventBody, makeCsrPem } from '../helpers/apiserver-fixtures.js';

const execFileP = promisify(execFile);
const skip = kubectlSkipReason('the kubectl e2e suite') ?? false;

let api: StartedApiServer;
let dir: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileP('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

before(async () => {
  if (skip !== false) return;
  dir = mkdtempSync(join(tmpdir(), 'pa-kubectl-'));
  api = await startApiServer({ platformDomain: 'k8s.io' });
});
after(async () => {
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test(
  'kubectl create -f, get, describe, certificate approve and deny, delete',
  { skip },
  async () => {
    const { csrPem } = await makeCsrPem({ cn: 'alice', orgs: ['dev'] });
    const file = join(dir, 'csr.yaml');
    writeFileSync(
      file,
      JSON.stringify(
        csrBody(
          'alice',
          csrPem,
          'k8s.io/plat-apiserver-client',
          ['digital signature', 'key encipherment', 'client auth'],
          {},
          'k8s.io',
        ),
      ),
    );
    assert.match(
      await kubectl('create', '-f', file),
      /certificatesigningrequest\.certificates\.k8s\.io\/alice created/,
    );
    assert.match(
      await kubectl('get', 'csr'),
      /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\nalice\s+\d+s\s+k8s\.io\/plat-apiserver-client\s+plat-admin\s+<none>\s+Pending/,
    );
    assert.match(await kubectl('certificate', 'approve', 'alice'), /alice approved/);
    const deadline = Date.now() + 10_000;
    let described = '';
    while (Date.now() < deadline) {
      described = await kubectl('describe', 'csr', 'alice');
      if (/Approved,Issued/.test(described)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(described, /Signer:\s+k8s\.io\/plat-apiserver-client/);
    assert.match(described, /Status:\s+Approved,Issued/);
    assert.match(described, /Common Name:\s+alice/);
    const cert = await kubectl('get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}');
    assert.match(Buffer.from(cert, 'base64').toString(), /BEGIN CERTIFICATE/);

    writeFileSync(
      file,
      JSON.stringify(
        csrBody(
          'bob',
          csrPem,
          'k8s.io/plat-apiserver-client',
          ['digital signature', 'client auth'],
          {},
          'k8s.io',
        ),
      ),
    );
    await kubectl('create', '-f', file);
    assert.match(await kubectl('certificate', 'deny', 'bob'), /bob denied/);
    assert.match(
      await kubectl('get', 'csr', 'bob', '-o', 'jsonpath={.status.conditions[0].type}'),
      /^Denied$/,
    );
    assert.match(
      await kubectl('delete', 'csr', 'alice', 'bob'),
      /"alice" deleted[\s\S]*"bob" deleted/,
    );
    assert.doesNotMatch(await kubectl('get', 'csr'), /alice/);
  },
);

test('kubectl get events -A --watch sees a new event', { skip }, async () => {
  const child = spawn(
    'kubectl',
    [
      '--kubeconfig',
      api.adminPlatconfig,
      'get',
      'events',
      '-A',
      '--watch',
      '--output-watch-events',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const r = await api.request('POST', '/api/v1/namespaces/default/events', {
      body: eventBody('watched', 'default', { reason: 'KubectlWatch' }),
    });
    assert.equal(r.status, 201);
    const deadline = Date.now() + 20_000;
    while (!out.includes('KubectlWatch') && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 50));
    assert.match(out, /ADDED\s+default\s+\S+\s+Normal\s+KubectlWatch\s+pod\/p\s+started container/);
  } finally {
    child.kill('SIGKILL');
  }
});

test('kubectl get --raw and namespaces (protobuf create)', { skip }, async () => {
  const raw = JSON.parse(await kubectl('get', '--raw', '/apis/certificates.k8s.io/v1')) as {
    resources: { name: string }[];
  };
  assert.deepEqual(
    raw.resources.map((r) => r.name),
    [
      'certificatesigningrequests',
      'certificatesigningrequests/status',
      'certificatesigningrequests/approval',
    ],
  );
  // kubectl's typed create speaks protobuf both ways (-v=8 prints the request and response headers).
  const created = await execFileP(
    'kubectl',
    ['--kubeconfig', api.adminPlatconfig, 'create', 'namespace', 'team-a', '-v=8'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.match(created.stdout, /namespace\/team-a created/);
  assert.match(created.stderr, /Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
  const response = created.stderr.slice(created.stderr.indexOf('Response Status: 201 Created'));
  assert.match(response, /Content-Type: application\/vnd\.kubernetes\.protobuf/);
  assert.match(await kubectl('get', 'ns'), /team-a/);
  assert.match(await kubectl('delete', 'namespace', 'team-a'), /namespace "team-a" deleted/);
});

test('kubectl apply (client-side and server-side), label and annotate', { skip }, async () => {
  const file = join(dir, 'event.yaml');
  const doc = (message: string): string =>
    `apiVersion: v1\nkind: Event\nmetadata:\n  name: applied\n  namespace: default\ninvolvedObject:\n  kind: Node\n  name: n1\nreason: Applied\nmessage: ${message}\ntype: Normal\n`;
  writeFileSync(file, doc('first'));
  assert.match(await kubectl('apply', '-f', file), /event\/applied created/);
  writeFileSync(file, doc('second'));
  assert.match(await kubectl('apply', '-f', file), /event\/applied configured/);
  writeFileSync(file, doc('third'));
  assert.match(
    await kubectl('apply', '--server-side', '--force-conflicts', '-f', file),
    /event\/applied serverside-applied/,
  );
  assert.equal(await kubectl('get', 'event', 'applied', '-o', 'jsonpath={.message}'), 'third');
  assert.match(await kubectl('label', 'event', 'applied', 'tier=e2e'), /labeled/);
  assert.match(await kubectl('annotate', 'event', 'applied', 'note=yes'), /annotated/);
  assert.match(await kubectl('get', 'events', '-l', 'tier=e2e'), /Applied\s+node\/n1\s+third/);
});
