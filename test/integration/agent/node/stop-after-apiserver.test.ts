// The control plane away, then the node agent asked to stop (systemd stopping the unit while
// plat-apiserver is gone): the agent stops promptly and cleanly, as the reference kubelet does.
// The parts that talk to the API server (lease, node status, pod status and mirror pods, watches,
// events) give up on the stop signal instead of waiting for a server that is not there. Two ways
// of being away: the server stopped on this host (connections refused), and its address not
// answering (a control-plane host that is down: connections are never completed), where a
// request waiting for its connection used to hold the stop for undici's 10 s connect timeout.
// Real plat-apiserver, the agent in this process (joined with the admin platconfig), process://.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { runAgent } from '../../../../src/agent/start/agent.js';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { recordingLogger, type LogLine } from '../../../helpers/recording-logger.js';
import { killProcessPods } from '../pods/runtimes.js';
import { tempDir, testConfig, testFlags, waitFor } from '../pods/agent-harness.js';

const NODE = 'stop-after-api';
/** How soon the agent must have stopped after the stop signal. */
const STOP_BOUND_MS = 3000;

const podYaml = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, command: [sleep, "60"]}]}\n`;

/** `p`'s outcome, or 'pending' when it did not settle within `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((r) => (timer = setTimeout(() => r('pending'), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Holds `port` on 127.0.0.1 with a listener that takes connections and never answers. */
async function unanswered(t: TestContext, port: number): Promise<void> {
  const sockets: Socket[] = [];
  const hole = createServer((s) => {
    sockets.push(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    hole.once('error', reject);
    hole.listen(port, '127.0.0.1', () => resolve());
  });
  t.after(() => {
    for (const s of sockets) s.destroy();
    hole.close();
  });
}

async function phaseOf(api: StartedApiServer, name: string): Promise<string | undefined> {
  const r = await api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
  return r.status === 200 ? (r.json?.status as { phase?: string } | undefined)?.phase : undefined;
}

for (const away of ['stopped', 'not answering'] as const) {
  test(
    `the API server ${away}, then the agent's stop: it stops within ${STOP_BOUND_MS} ms with status 0`,
    { timeout: 90_000 },
    async (t) => {
      // process:// cannot mount the projected service-account token ServiceAccount adds
      const api = await startApiServer({ args: ['--disable-admission-plugins=ServiceAccount'] });
      const root = await tempDir('stop-after-api-');
      const manifests = await tempDir('stop-after-api-m-');
      const log = recordingLogger();
      const ac = new AbortController();
      await writeFile(join(manifests.path, 'static.yaml'), podYaml('stat'));
      const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'bound' },
          spec: {
            nodeName: NODE,
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'c', image: 'none', command: ['sleep', '60'] }],
          },
        },
      });
      assert.equal(created.status, 201, created.text);
      const run = runAgent({
        config: testConfig(root.path, {
          containerRuntimeEndpoint: 'process://',
          staticPodPath: manifests.path,
        }),
        flags: testFlags(root.path, { hostnameOverride: NODE, platconfig: api.adminPlatconfig }),
        logger: log,
        signal: ac.signal,
      });
      let apiStopped = false;
      t.after(async () => {
        ac.abort();
        await run.catch(() => 1);
        await killProcessPods(root.path);
        if (!apiStopped) await api.stop();
        await root.cleanup();
        await manifests.cleanup();
      });
      // joined: its pods run and their status (a mirror pod for the static one) is on the server
      await waitFor(
        'the bound pod to report Running',
        async () => (await phaseOf(api, 'bound')) === 'Running',
        30_000,
      );
      await waitFor(
        'the mirror pod to report Running',
        async () => (await phaseOf(api, `stat-${NODE}`)) === 'Running',
        30_000,
      );
      await api.stop();
      apiStopped = true;
      if (away === 'not answering') await unanswered(t, Number(new URL(api.url).port));
      const awayFrom = log.lines.length;
      // a second static pod while the server is away: its mirror pod needs the Node's uid, a read the
      // client retries; the stop signal comes while that read (and the events about the pod) retry
      await writeFile(join(manifests.path, 'second.yaml'), podYaml('second'));
      const retrying = (l: LogLine): boolean =>
        l.msg === 'retrying API call' && l.fields['path'] === `/api/v1/nodes/${NODE}`;
      await waitFor(
        'a read of the Node to be retried',
        () => log.lines.slice(awayFrom).some(retrying),
        30_000,
        10,
      );
      const stopFrom = log.lines.length;
      const t0 = Date.now();
      ac.abort();
      const outcome = await within(run, 15_000);
      const took = Date.now() - t0;
      const after = log.lines
        .slice(stopFrom)
        .map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.fields)}`)
        .join('\n');
      assert.notEqual(
        outcome,
        'pending',
        `the agent did not stop within 15 s of the stop signal; it logged after it:\n${after}`,
      );
      assert.equal(outcome, 0);
      assert.ok(
        took < STOP_BOUND_MS,
        `the agent took ${took} ms to stop; it logged after the stop signal:\n${after}`,
      );
      assert.ok(
        log.lines.slice(stopFrom).some((l) => l.msg === 'node agent stopping; pods keep running'),
      );
      // the writes the stop ended are not reported as failures to retry
      assert.deepEqual(
        log.lines
          .slice(stopFrom)
          .filter((l) => l.msg === 'could not report pod status to the API server; retrying'),
        [],
      );
    },
  );
}
