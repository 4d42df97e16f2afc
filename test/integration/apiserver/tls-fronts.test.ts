// --tls-processes: TLS ended in processes of their own, each connection relayed to the main
// process with the client's certificate facts and address. Client certificates still decide who
// is asking; a front that dies is replaced while the others serve; the inner socket takes only
// headers with the run's secret; a busy port is refused in the same words as without fronts;
// stopping (or killing) the server leaves no front and no socket directory behind.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent, request } from 'undici';
import { generateCa, generateClientCert } from '../../../src/apiserver/csr/ca.js';
import { encodeFrame } from '../../../src/apiserver/front/frame.js';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { waitFor } from '../../helpers/server-https-request.js';

let api: StartedApiServer;
let dir: string;
const clients: Record<string, { certPem: string; keyPem: string }> = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-fronts-'));
  const now = new Date();
  const clientCa = await generateCa({ commonName: 'client-ca', validityDays: 1, now });
  const otherCa = await generateCa({ commonName: 'other-ca', validityDays: 1, now });
  clients['carol'] = await generateClientCert({
    ca: clientCa,
    commonName: 'carol',
    organizations: ['devs'],
    now,
  });
  clients['mallory'] = await generateClientCert({
    ca: otherCa,
    commonName: 'mallory',
    organizations: ['system:masters'],
    now,
  });
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
  api = await startApiServer({
    args: ['--tls-processes=2', `--client-ca-file=${join(dir, 'client-ca.crt')}`],
  });
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The pids of a process's children. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
    if (text !== '') out.push(...text.split(' ').map(Number));
  }
  return out;
}

function frontsOf(pid: number): number[] {
  return childrenOf(pid).filter((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('tls-front.mjs');
    } catch {
      return false;
    }
  });
}

/** The inner socket the server listens on: the unix socket among its descriptors. */
function innerSocketOf(pid: number): string {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m?.[1] === undefined ? [] : [m[1]];
      } catch {
        return [];
      }
    }),
  );
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    const path = f[7];
    if (f[6] !== undefined && inodes.has(f[6]) && path?.includes('plat-apiserver-fronts-') === true)
      return path;
  }
  throw new Error(`no inner socket among the descriptors of ${pid}`);
}

async function as(who: string, path: string): Promise<{ status: number; message: string }> {
  const c = clients[who];
  const ca = readFileSync(api.caFile, 'utf8');
  const agent = new Agent({
    connect: { ca, ...(c === undefined ? {} : { cert: c.certPem, key: c.keyPem }) },
  });
  try {
    const res = await request(`${api.url}${path}`, { dispatcher: agent });
    const text = await res.body.text();
    const body = text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {};
    return { status: res.statusCode, message: String(body['message'] ?? text) };
  } finally {
    await agent.close();
  }
}

test('two fronts run as children of the server and answer on its port', async () => {
  const pid = api.process.pid ?? 0;
  await waitFor(() => frontsOf(pid).length === 2, 'two fronts', 15_000);
  assert.equal((await api.request('GET', '/api/v1/namespaces')).status, 200);
  assert.deepEqual(await as('none', '/healthz'), { status: 200, message: 'ok' });
});

test('through a front, a client certificate authenticates as its CN and O; a foreign one is 401', async () => {
  const carol = await as('carol', '/api/v1/nodes');
  assert.equal(carol.status, 403);
  // the reference's words for an authenticated user RBAC does not allow
  assert.equal(
    carol.message,
    'nodes is forbidden: User "carol" cannot list resource "nodes" in API group "" at the cluster scope',
  );
  // O reached RBAC too: a binding of carol's group (system:heapster lists nodes) lets her in
  const bind = await api.request(
    'POST',
    '/apis/rbac.authorization.platform.io/v1/clusterrolebindings',
    {
      body: {
        apiVersion: 'rbac.authorization.platform.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'devs-nodes' },
        roleRef: {
          apiGroup: 'rbac.authorization.platform.io',
          kind: 'ClusterRole',
          name: 'system:heapster',
        },
        subjects: [{ apiGroup: 'rbac.authorization.platform.io', kind: 'Group', name: 'devs' }],
      },
    },
  );
  assert.equal(bind.status, 201, bind.text);
  await waitFor(
    async () => (await as('carol', '/api/v1/nodes')).status === 200,
    'the group binding to let carol list nodes',
  );
  const mallory = await as('mallory', '/api/v1/nodes');
  assert.deepEqual(mallory, { status: 401, message: 'Unauthorized' });
});

test('the inner socket sits in a 0700 directory and refuses a header without the secret', async () => {
  const path = innerSocketOf(api.process.pid ?? 0);
  assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
  const forged = encodeFrame('0'.repeat(64), {
    remoteAddress: '127.0.0.1',
    remotePort: 1,
    certificate: {
      authorized: true,
      authorizationError: '',
      commonNames: ['admin'],
      organizations: ['system:masters'],
      sha256: '',
    },
  });
  const answer = await new Promise<string>((resolve, reject) => {
    const s = connect(path);
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    s.on('close', () => resolve(got));
    s.on('error', reject);
    s.write(forged);
  });
  assert.equal(answer, '', 'closed without a byte');
  await waitFor(
    () => api.logs().includes('refused a connection on the inner socket'),
    'the refusal logged',
  );
  assert.match(api.logs(), /why="?inner connection header: wrong secret"?$/m);
});

test('a front that dies is logged and replaced; requests go on meanwhile', async () => {
  const pid = api.process.pid ?? 0;
  const [victim] = frontsOf(pid);
  assert.ok(victim !== undefined);
  process.kill(victim, 'SIGKILL');
  assert.equal((await api.request('GET', '/api/v1/namespaces')).status, 200);
  await waitFor(
    () => api.logs().includes('a TLS front process exited; starting another'),
    'the exit logged',
  );
  await waitFor(
    () => {
      const now = frontsOf(pid);
      return now.length === 2 && !now.includes(victim);
    },
    'a replacement front',
    15_000,
  );
  assert.equal((await api.request('GET', '/api/v1/namespaces')).status, 200);
});

test('a busy port is refused in the words of a server without fronts', async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const port = (holder.address() as AddressInfo).port;
  try {
    for (const n of ['0', '2']) {
      await assert.rejects(
        startApiServer({ args: [`--secure-port=${port}`, `--tls-processes=${n}`] }),
        new RegExp(
          `cannot listen on 127\\.0\\.0\\.1:${port} \\(--bind-address, --secure-port\\): the port is in use`,
        ),
      );
    }
  } finally {
    holder.close();
  }
});

test('stopped or killed, the server leaves no front and no inner socket directory', async () => {
  for (const how of ['SIGTERM', 'SIGKILL'] as const) {
    const s = await startApiServer({ args: ['--tls-processes=2'] });
    const pid = s.process.pid ?? 0;
    await waitFor(() => frontsOf(pid).length === 2, 'two fronts', 15_000);
    const fronts = frontsOf(pid);
    const inner = dirname(innerSocketOf(pid));
    if (how === 'SIGTERM') await s.stop();
    else {
      s.process.kill('SIGKILL');
      await waitFor(
        () => s.process.exitCode !== null || s.process.signalCode !== null,
        'the server gone',
      );
      await s.stop();
    }
    // a front killed with its parent may stay a zombie of init's: gone all the same
    await waitFor(
      () =>
        fronts.every(
          (f) =>
            !existsSync(`/proc/${f}`) || readFileSync(`/proc/${f}/stat`, 'utf8').includes(') Z'),
        ),
      `the fronts gone after ${how}`,
    );
    await waitFor(() => !existsSync(inner), `${inner} removed after ${how}`);
  }
});
