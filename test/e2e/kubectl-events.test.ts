// kubectl 1.32's event commands against the built plat-apiserver (kubernetes profile):
// `kubectl events` (list and --for), `kubectl get events.events.k8s.io` (a Table through the
// events.k8s.io group) and `kubectl get events -w` following new events.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { eventBody } from '../helpers/apiserver-fixtures.js';

const execFileP = promisify(execFile);
const skip = kubectlSkipReason('the kubectl events suite') ?? false;

let api: StartedApiServer;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileP('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

/** Runs kubectl; once it has printed its first listing, acts; stops it when `until` matches (or 20 s pass). */
async function follow(args: string[], act: () => Promise<void>, until: RegExp): Promise<string> {
  const child = spawn('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const deadline = Date.now() + 20_000;
    // The header comes with the initial list: the watch is open after it, so the new event arrives through it.
    while (!/LAST SEEN/.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await act();
    while (!until.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return out;
  } finally {
    child.kill('SIGKILL');
  }
}

before(async () => {
  if (skip !== false) return;
  api = await startApiServer({ platformDomain: 'k8s.io', args: ['--platform-profile=kubernetes'] });
  const modern = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'modern', namespace: 'default' },
    eventTime: new Date().toISOString().replace('Z', '000Z'),
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pulling',
    reason: 'Pulling',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' },
    note: 'Pulling image "nginx"',
    type: 'Normal',
  };
  assert.equal(
    (
      await api.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
        body: modern,
      })
    ).status,
    201,
  );
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const legacy = eventBody('legacy', 'default', {
    reason: 'BackOff',
    type: 'Warning',
    message: 'Back-off restarting failed container',
    involvedObject: { kind: 'Pod', name: 'db', namespace: 'default', apiVersion: 'v1' },
    firstTimestamp: now,
    lastTimestamp: now,
  });
  assert.equal(
    (await api.request('POST', '/api/v1/namespaces/default/events', { body: legacy })).status,
    201,
  );
});
after(async () => {
  await api?.stop();
});

test(
  'kubectl events lists events written through both groups; --for narrows to one object',
  { skip },
  async () => {
    const all = await kubectl('events', '-n', 'default');
    assert.match(all, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(all, /Normal\s+Pulling\s+Pod\/web\s+Pulling image "nginx"/);
    assert.match(all, /Warning\s+BackOff\s+Pod\/db\s+Back-off restarting failed container/);
    const forDb = await kubectl('events', '-n', 'default', '--for', 'pod/db');
    assert.match(forDb, /BackOff/);
    assert.doesNotMatch(forDb, /Pulling/);
  },
);

test(
  'kubectl get events.events.k8s.io prints the reference columns through the events.k8s.io group',
  { skip },
  async () => {
    const out = await kubectl('get', 'events.events.k8s.io', '-n', 'default');
    assert.match(out, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(out, /Normal\s+Pulling\s+pod\/web\s+Pulling image "nginx"/);
    const json = JSON.parse(
      await kubectl('get', 'events.events.k8s.io', 'modern', '-n', 'default', '-o', 'json'),
    ) as Record<string, unknown>;
    assert.deepEqual(
      [json['apiVersion'], json['note'], json['reportingController']],
      ['events.k8s.io/v1', 'Pulling image "nginx"', 'kubelet'],
    );
  },
);

test('kubectl get events -w and kubectl events -w follow a new event', { skip }, async () => {
  let n = 0;
  const post = async (): Promise<void> => {
    n += 1;
    const r = await api.request('POST', '/api/v1/namespaces/default/events', {
      body: eventBody(`followed-${n}`, 'default', { reason: `Followed${n}` }),
    });
    assert.equal(r.status, 201);
  };
  const got = await follow(['get', 'events', '-n', 'default', '-w'], post, /Followed1/);
  assert.match(got, /Normal\s+Followed1\s+pod\/p\s+started container/);
  const viaEvents = await follow(['events', '-n', 'default', '-w'], post, /Followed2/);
  assert.match(viaEvents, /Normal\s+Followed2\s+Pod\/p\s+started container/);
});
