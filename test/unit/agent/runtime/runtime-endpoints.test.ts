// --container-runtime-endpoint chooses the runtime; --image-service-endpoint, --registry-qps and
// --registry-burst shape the image pulls: checked against fake Docker engines on unix sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createRuntime,
  type RuntimeFactoryOptions,
} from '../../../../src/agent/runtime/factory.js';
import { ConfigError } from '../../../../src/common/util/errors.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

interface FakeEngine {
  /** "METHOD /path" of every request, in order. */
  calls: string[];
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A Docker engine that knows image inspect and pull (POST /images/create), nothing else. */
async function fakeEngine(socketPath: string): Promise<FakeEngine> {
  const calls: string[] = [];
  const pulled = new Set<string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://engine');
    calls.push(`${req.method ?? ''} ${url.pathname}`);
    const inspect = /^\/v[\d.]+\/images\/(.+)\/json$/.exec(url.pathname);
    if (inspect !== null) {
      const name = decodeURIComponent(inspect[1] ?? '');
      if (pulled.has(name)) json(res, 200, { Id: `sha256:${name}`, Size: 4_261_550 });
      else json(res, 404, { message: `No such image: ${name}` });
    } else if (/^\/v[\d.]+\/images\/create$/.test(url.pathname)) {
      pulled.add(
        `${url.searchParams.get('fromImage') ?? ''}:${url.searchParams.get('tag') ?? 'latest'}`,
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"Pull complete"}\n');
    } else {
      json(res, 404, { message: 'page not found' });
    }
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  return { calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function options(over: Partial<RuntimeFactoryOptions>): RuntimeFactoryOptions {
  return {
    endpoint: 'process://',
    imageEndpoint: '',
    rootDir: '/nonexistent',
    requestTimeoutMs: 0,
    serializeImagePulls: false,
    registryPullQPS: 0,
    registryBurst: 0,
    logger: silentLogger(),
    clock: new ManualClock(),
    ...over,
  };
}

test("--container-runtime-endpoint: process:// runs host processes, a docker.sock and tcp:// a Docker engine, a CRI runtime's socket CRI; anything else is refused naming the flag", async () => {
  const proc = await createRuntime(options({ endpoint: 'process://' }));
  assert.equal(proc.runtime.type, 'process');
  await proc.close();
  for (const endpoint of ['unix:///run/docker.sock', 'tcp://127.0.0.1:2375']) {
    const docker = await createRuntime(options({ endpoint }));
    assert.equal(docker.runtime.type, 'docker', endpoint);
    await docker.close();
  }
  for (const [endpoint, name] of [
    ['unix:///run/containerd/containerd.sock', 'containerd'],
    ['unix:///var/run/crio/crio.sock', 'cri-o'],
  ] as const) {
    const cri = await createRuntime(options({ endpoint }));
    assert.equal(cri.runtime.type, name, endpoint);
    await cri.close();
  }
  await assert.rejects(
    createRuntime(options({ endpoint: 'unix-abstract:containerd' })),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(
        err.message,
        'invalid configuration: containerRuntimeEndpoint (--container-runtime-endpoint) "unix-abstract:containerd": accepted are unix:///path/to/docker.sock, tcp://host:port (a Docker engine), unix:///path/to/containerd.sock or crio.sock (a CRI runtime) or process:// (host processes)',
      );
      return true;
    },
  );
});

test('--image-service-endpoint takes the image calls to its own engine; --registry-qps and --registry-burst pace the pulls (the burst at once, then one each 1/qps s)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-endpoints-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const runtimeEngine = await fakeEngine(join(dir, 'runtime.sock'));
  const imageEngine = await fakeEngine(join(dir, 'image.sock'));
  t.after(() => Promise.all([runtimeEngine.close(), imageEngine.close()]));
  const clock = new ManualClock();
  const bundle = await createRuntime(
    options({
      endpoint: `unix://${join(dir, 'runtime.sock')}`,
      imageEndpoint: `unix://${join(dir, 'image.sock')}`,
      registryPullQPS: 1,
      registryBurst: 2,
      clock,
    }),
  );
  t.after(() => bundle.close());
  const pulls = ['a:1', 'b:1', 'c:1'].map((image) =>
    bundle.images.ensureImage(image, 'IfNotPresent'),
  );
  const creates = (): number =>
    imageEngine.calls.filter((c) => c.endsWith('/images/create')).length;
  await clock.waitForSleepers(1);
  const [a, b] = await Promise.all([pulls[0], pulls[1]]);
  assert.deepEqual([a?.id, b?.id], ['sha256:a:1', 'sha256:b:1']);
  assert.equal(a?.pulled?.sizeBytes, 4_261_550, "a pull reports the image's size from inspect");
  assert.equal(creates(), 2, 'the burst of 2 pulls at once');
  assert.equal(clock.sleeps.at(-1), 1000, 'the third waits 1 s (1 pull per second)');
  clock.advance(1000);
  assert.equal((await pulls[2])?.id, 'sha256:c:1');
  const again = await bundle.images.ensureImage('a:1', 'IfNotPresent');
  assert.deepEqual(again, { id: 'sha256:a:1' }, 'a present image: no pull reported');
  assert.equal(creates(), 3);
  assert.deepEqual(runtimeEngine.calls, [], 'no image call reaches the runtime endpoint');
});
