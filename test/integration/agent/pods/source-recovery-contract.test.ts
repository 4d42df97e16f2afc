// One contract for every pod source (file, HTTP, API server): a source whose backend fails when
// it starts (the manifest dir absent, the URL answering 500, the API server not running) names
// the failure in the log, keeps going, and delivers the pods once the backend recovers. Time
// moves on an injected ManualClock, so retries and relists come when the test advances it.
import { namesFor } from '../../../../src/common/names.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiserverSource } from '../../../../src/agent/source/apiserver.js';
import { FileSource } from '../../../../src/agent/source/file.js';
import { HttpSource } from '../../../../src/agent/source/http.js';
import type { PodSnapshot, PodSource } from '../../../../src/agent/source/types.js';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { createPodClient } from '../../../../src/agent/client/typed-clients.js';
import { ApiObjectSchema } from '../../../../src/agent/client/api-schemas.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import type { Logger } from '../../../../src/common/log/types.js';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger, type LogLine } from '../../../helpers/recording-logger.js';

interface SourceDeps {
  onSnapshot: (s: PodSnapshot) => void;
  logger: Logger;
  clock: ManualClock;
}

interface RecoveryDriver {
  /** A source over a backend that is failing now. */
  source(deps: SourceDeps): Promise<PodSource>;
  /** Makes the backend healthy and serving one pod; returns the pod name the source reports. */
  recover(): Promise<string>;
  close(): Promise<void>;
}

const NODE = 'rc-node';
const manifest =
  'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: busybox, command: [sleep, "60"]}]}\n';
const common = {
  nodeName: NODE,
  names: namesFor('platform', 'platform.io'),
  validation: { requireImage: false, requireCommand: true },
};

async function fileDriver(): Promise<RecoveryDriver> {
  const parent = await mkdtemp(join(tmpdir(), 'na-recover-file-'));
  const dir = join(parent, 'manifests');
  return {
    source: async (deps) =>
      new FileSource({ ...common, ...deps, path: dir, checkFrequencyMs: 20_000 }),
    async recover() {
      await mkdir(dir);
      await writeFile(join(dir, 'web.yaml'), manifest);
      return `web-${NODE}`;
    },
    close: () => rm(parent, { recursive: true, force: true }),
  };
}

async function httpDriver(): Promise<RecoveryDriver> {
  let healthy = false;
  const server = createServer((_q, res) => {
    if (!healthy) {
      res.statusCode = 500;
      res.end('backend down');
    } else res.end(manifest);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
  return {
    source: async (deps) =>
      new HttpSource({ ...common, ...deps, url, headers: {}, checkFrequencyMs: 20_000 }),
    async recover() {
      healthy = true;
      return `web-${NODE}`;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function apiDriver(): Promise<RecoveryDriver> {
  // A first run makes the certificates and the admin platconfig (pointing at its port); then it
  // stops, so the source starts against an API server that is not there.
  const certDir = await mkdtemp(join(tmpdir(), 'na-recover-api-'));
  const first = await startApiServer({ certDir });
  const port = first.port;
  await first.stop();
  let api: StartedApiServer | undefined;
  let rest: RestClient | undefined;
  return {
    async source(deps) {
      rest = new RestClient({
        connection: await loadConnection(join(certDir, 'admin.platconfig')),
        clock: deps.clock,
        logger: deps.logger,
      });
      return new ApiserverSource({
        ...common,
        ...deps,
        pods: createPodClient({
          client: rest,
          schema: ApiObjectSchema,
          clock: deps.clock,
          logger: deps.logger,
        }),
      });
    },
    async recover() {
      api = await startApiServer({ certDir, args: [`--secure-port=${port}`] });
      const r = await api.request('POST', '/api/v1/namespaces/default/pods', {
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'bound' },
          spec: {
            nodeName: NODE,
            containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }],
          },
        },
      });
      assert.equal(r.status, 201, r.text);
      return 'bound';
    },
    async close() {
      await rest?.close();
      await api?.stop();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

/** Advances the clock (a minute at a time, whenever the source is parked in a sleep) until `done`. */
async function driveUntil(
  clock: ManualClock,
  done: () => boolean,
  what: string,
  realTimeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + realTimeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Promise.race([clock.waitForSleepers(1), new Promise((r) => setTimeout(r, 50))]);
    if (clock.pendingSleepers > 0) clock.advance(60_000);
    await new Promise((r) => setImmediate(r));
  }
}

const failureLine = (lines: LogLine[]): LogLine | undefined =>
  lines.find((l) => l.level === 'warn' || l.level === 'error');

for (const [name, make] of [
  ['file', fileDriver],
  ['http', httpDriver],
  ['api', apiDriver],
] as const) {
  describe(`pod source recovery contract: ${name}`, () => {
    test(
      'fails first, says so, keeps trying, and delivers the pods once its backend recovers',
      { timeout: 90_000 },
      async (t) => {
        const d = await make();
        const ac = new AbortController();
        const clock = new ManualClock();
        const logger = recordingLogger();
        const snaps: PodSnapshot[] = [];
        const src = await d.source({ onSnapshot: (s) => snaps.push(s), logger, clock });
        t.after(async () => {
          ac.abort();
          await src.closed();
          await d.close();
        });
        await src.start(ac.signal);
        await driveUntil(
          clock,
          () => failureLine(logger.lines) !== undefined,
          'the failure to be logged',
        );
        // several rounds of failure: the source is still there after them
        for (let i = 0; i < 3; i++) {
          await clock.waitForSleepers(1);
          clock.advance(60_000);
        }
        assert.ok(
          snaps.every((s) => s.pods.length === 0),
          'no pods while the backend fails',
        );
        const podName = await d.recover();
        const hasPod = (): boolean =>
          snaps.at(-1)?.pods.some((p) => p.metadata.name === podName) === true;
        await driveUntil(clock, hasPod, `pod ${podName} from the recovered ${name} source`);
        assert.equal(snaps.at(-1)?.source, name);
        assert.equal(logger.lines.filter((l) => /giving up/.test(l.msg)).length, 0);
      },
    );
  });
}
