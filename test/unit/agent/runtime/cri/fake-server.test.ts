// The CRI client against gRPC servers that are not good runtimes (a real gRPC server of
// @grpc/grpc-js on a unix socket, speaking the generated messages): no runtime.v1 at all, another
// CRI version, an answer over the reference's 16 MiB limit, an answer that never comes (the
// --runtime-request-timeout deadline), a stream URL that does not answer, and no socket at all.
// Each is a RuntimeError that says what, where and why; nothing hangs or crashes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  decodeCri,
  encodeCri,
  type CriMessageName,
} from '../../../../../src/agent/runtime/cri/codec.js';
import { CRI_METHODS } from '../../../../../src/agent/runtime/cri/types.generated.js';
import { parseCriEndpoint } from '../../../../../src/agent/runtime/cri/endpoint.js';
import { CriRuntime } from '../../../../../src/agent/runtime/cri/runtime.js';
import { runtimeWords } from '../../../../../src/agent/runtime/types.js';
import { systemClock } from '../../../../../src/common/util/clock.js';
import { silentLogger } from '../../../../../src/common/log/types.js';
import { recordingLogger } from '../../../../helpers/recording-logger.js';

const dir = await mkdtemp(join(tmpdir(), 'na-cri-fake-'));
const servers: grpc.Server[] = [];
after(async () => {
  for (const s of servers) s.forceShutdown();
  await rm(dir, { recursive: true, force: true });
});

type Handler = (req: unknown) => unknown;

/** A gRPC server on a unix socket implementing only `handlers` (method name to answer). */
async function serve(name: string, handlers: Record<string, Handler>): Promise<string> {
  const server = new grpc.Server();
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(handlers)) {
    const types = CRI_METHODS[method as keyof typeof CRI_METHODS];
    def[method] = {
      path: `/runtime.v1.${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (v: unknown) => encodeCri(types.request as CriMessageName, v as never),
      requestDeserialize: (b: Buffer) => decodeCri(types.request as CriMessageName, b),
      responseSerialize: (v: unknown) =>
        v === null
          ? Buffer.alloc(17 * 1024 * 1024, 1)
          : encodeCri(types.response as CriMessageName, v as never),
      responseDeserialize: (b: Buffer) => decodeCri(types.response as CriMessageName, b),
    };
    impl[method] = (
      call: grpc.ServerUnaryCall<unknown, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      const answer = handler(call.request);
      // an Error is answered as a gRPC status (its code and message)
      if (answer instanceof Error) cb(answer as grpc.ServiceError, null);
      else if (answer !== undefined) cb(null, answer);
    };
  }
  server.addService(def, impl);
  const socket = join(dir, `${name}.sock`);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  servers.push(server);
  return `unix://${socket}`;
}

function runtimeOn(endpoint: string, timeoutMs = 5000, logger = silentLogger()): CriRuntime {
  const ep = parseCriEndpoint('containerRuntimeEndpoint', '--container-runtime-endpoint', endpoint);
  return new CriRuntime({
    runtime: ep,
    image: ep,
    guessedName: 'containerd',
    rootDir: dir,
    requestTimeoutMs: timeoutMs,
    serializeImagePulls: true,
    registryPullQPS: 0,
    registryBurst: 0,
    podLogsDir: join(dir, 'logs'),
    logger,
    clock: systemClock,
  });
}

test('an endpoint without runtime.v1: Version says so, naming the socket', async () => {
  const ep = await serve('none', { 'ImageService/ListImages': () => ({}) });
  const rt = runtimeOn(ep);
  await assert.rejects(rt.version(), (err: Error) => {
    assert.match(
      err.message,
      /speaks no CRI runtime\.v1 \(RuntimeService\/Version is not implemented there\)/,
    );
    assert.ok(err.message.includes(ep.slice('unix://'.length)), err.message);
    return true;
  });
  await rt.close();
});

test("another CRI version is refused; runtime.v1's name becomes the containerID scheme", async () => {
  const old = await serve('old', {
    'RuntimeService/Version': () => ({ runtime_name: 'x', runtime_api_version: 'v1alpha2' }),
  });
  const rt = runtimeOn(old);
  await assert.rejects(rt.version(), /speaks CRI "v1alpha2", not runtime\.v1/);
  await rt.close();
  const good = await serve('good', {
    'RuntimeService/Version': () => ({
      runtime_name: 'cri-o',
      runtime_version: '1.32.0',
      runtime_api_version: 'v1',
    }),
  });
  const rt2 = runtimeOn(good);
  assert.equal(rt2.type, 'containerd');
  assert.deepEqual(await rt2.version(), {
    runtimeName: 'cri-o',
    runtimeVersion: '1.32.0',
    runtimeApiVersion: 'v1',
  });
  assert.equal(rt2.type, 'cri-o');
  await rt2.close();
});

test('an answer over 16 MiB is refused with a clear error; a silent runtime hits the deadline', async () => {
  const ep = await serve('absurd', {
    'RuntimeService/ListPodSandbox': () => null,
    'RuntimeService/ListContainers': () => ({}),
    'RuntimeService/Version': () => undefined,
  });
  const rt = runtimeOn(ep, 10_000);
  await assert.rejects(
    rt.listContainers(),
    /CRI RuntimeService\/ListPodSandbox on .*RESOURCE_EXHAUSTED/,
  );
  await rt.close();
  const silent = runtimeOn(ep, 300);
  await assert.rejects(silent.version(), (err: Error) => {
    assert.match(
      err.message,
      /CRI RuntimeService\/Version on .*: context deadline exceeded \(--runtime-request-timeout 0\.3s\)/,
    );
    // a pod's status and events get the runtime's words alone, as the reference's
    assert.equal(runtimeWords(err), 'context deadline exceeded');
    return true;
  });
  await silent.close();
});

test("a runtime's error: the log names the call and socket, a pod gets the runtime's words alone", async () => {
  const ep = await serve('refusing', {
    'RuntimeService/StartContainer': () =>
      Object.assign(new Error('failed to create containerd task: exec: "/no/such/binary"'), {
        code: grpc.status.UNKNOWN,
      }),
  });
  const rt = runtimeOn(ep);
  await assert.rejects(rt.startContainer('c1'), (err: Error) => {
    assert.match(
      err.message,
      /^CRI RuntimeService\/StartContainer on .*refusing.*: UNKNOWN: failed/,
    );
    assert.equal(runtimeWords(err), 'failed to create containerd task: exec: "/no/such/binary"');
    return true;
  });
  await rt.close();
});

test('no socket: UNAVAILABLE naming the socket', async () => {
  const rt = runtimeOn(`unix://${join(dir, 'absent.sock')}`, 2000);
  await assert.rejects(rt.version(), (err: Error) => {
    assert.match(err.message, /^CRI RuntimeService\/Version on .*absent\.sock: UNAVAILABLE/);
    return true;
  });
  await rt.close();
});

test('a stream URL that does not answer, or is not a URL, is a clear error', async () => {
  const ep = await serve('stream', {
    'RuntimeService/Exec': () => ({ url: 'http://127.0.0.1:1/exec/abc' }),
    'RuntimeService/Attach': () => ({ url: 'file:///etc/passwd' }),
  });
  const rt = runtimeOn(ep);
  await assert.rejects(
    rt.execStream('c1', ['sh'], { tty: false }),
    /the runtime's stream at http:\/\/127\.0\.0\.1:1\/exec\/abc: .*ECONNREFUSED/,
  );
  await assert.rejects(
    rt.attachStream('c1', { stdin: false, stdout: true, stderr: true, tty: false }),
    /the runtime answered no usable stream URL \("file:\/\/\/etc\/passwd"\)/,
  );
  await rt.close();
});

test("listStats: ListContainerStats by container id, ListPodSandboxStats by pod uid with the sandbox's network", async () => {
  const u64 = (value: number) => ({ value });
  const ep = await serve('stats', {
    'RuntimeService/ListContainerStats': () => ({
      stats: [
        {
          attributes: { id: 'c1' },
          cpu: { usage_nano_cores: u64(2_000_000), usage_core_nano_seconds: u64(9_000_000) },
          memory: { working_set_bytes: u64(4096), rss_bytes: u64(1024) },
        },
        { attributes: { id: '' }, cpu: { usage_nano_cores: u64(1) } },
      ],
    }),
    'RuntimeService/ListPodSandboxStats': () => ({
      stats: [
        {
          attributes: { id: 's1', metadata: { name: 'web', namespace: 'default', uid: 'u1' } },
          linux: {
            cpu: { usage_nano_cores: u64(3_000_000) },
            memory: { working_set_bytes: u64(8192) },
            network: {
              default_interface: { name: 'eth0', rx_bytes: u64(100), tx_bytes: u64(50) },
              interfaces: [{ name: 'eth0', rx_bytes: u64(100), tx_bytes: u64(50) }],
            },
          },
        },
        { attributes: { id: 's2', metadata: { uid: 'u2' } } },
      ],
    }),
  });
  const rt = runtimeOn(ep);
  const s = await rt.listStats();
  assert.deepEqual(
    [...s.containers.entries()],
    [
      [
        'c1',
        {
          cpuUsageNanoCores: 2_000_000,
          cpuUsageCoreNanoSeconds: 9_000_000,
          memoryWorkingSetBytes: 4096,
          memoryRssBytes: 1024,
        },
      ],
    ],
  );
  assert.deepEqual(
    [...s.pods.entries()],
    [
      [
        'u1',
        {
          cpuUsageNanoCores: 3_000_000,
          memoryWorkingSetBytes: 8192,
          network: {
            defaultInterface: { name: 'eth0', rxBytes: 100, txBytes: 50 },
            interfaces: [{ name: 'eth0', rxBytes: 100, txBytes: 50 }],
          },
        },
      ],
    ],
  );
  await rt.close();
});

test('listStats on a runtime without ListPodSandboxStats (containerd 1.6): no pod measures, said once in the log', async () => {
  const ep = await serve('stats-old', {
    'RuntimeService/ListContainerStats': () => ({
      stats: [{ attributes: { id: 'c1' }, memory: { working_set_bytes: { value: 10 } } }],
    }),
  });
  const log = recordingLogger();
  const rt = runtimeOn(ep, 5000, log);
  for (let i = 0; i < 3; i++) {
    const s = await rt.listStats();
    assert.deepEqual(s.containers.get('c1'), { memoryWorkingSetBytes: 10 });
    assert.equal(s.pods.size, 0);
  }
  const said = log.lines.filter((l) => l.msg.includes('does not implement ListPodSandboxStats'));
  assert.equal(said.length, 1, 'said once');
  assert.match(String(said[0]?.fields['err']), /UNIMPLEMENTED|does not implement it/);
  await rt.close();
});
