// gRPC probes against a real grpc-js server on 127.0.0.1, with the reference prober's messages
// (pkg/probe/grpc/grpc.go) and User-Agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  grpcHealthProbe,
} from '../../../../src/agent/worker/grpc-probe.js';

/** The request as an object: grpc-js takes a falsy request ('' for the default service) for none. */
function decodeService(buf: Buffer): { service: string } {
  // one length-delimited field 1 (short names: a one-byte length)
  return { service: buf.subarray(2, 2 + (buf[1] ?? 0)).toString('utf8') };
}

async function healthServer(
  statuses: Record<string, number>,
  agents: string[],
): Promise<{ port: number; close: () => void }> {
  const server = new grpc.Server();
  server.addService(
    {
      Check: {
        path: '/grpc.health.v1.Health/Check',
        requestStream: false,
        responseStream: false,
        requestSerialize: (r: { service: string }) => encodeHealthCheckRequest(r.service),
        requestDeserialize: decodeService,
        responseSerialize: (n: number) => Buffer.from([0x08, n]),
        responseDeserialize: decodeHealthCheckResponse,
      },
    },
    {
      Check: (
        call: grpc.ServerUnaryCall<{ service: string }, number>,
        cb: grpc.sendUnaryData<number>,
      ) => {
        agents.push(String(call.metadata.get('user-agent')[0] ?? ''));
        const st = statuses[call.request.service];
        if (st === undefined) cb({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else cb(null, st);
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port, close: () => server.forceShutdown() };
}

test('gRPC probe: SERVING passes ("service healthy"), NOT_SERVING fails with the reference message, user agent kube-probe/1.32', async (t) => {
  const agents: string[] = [];
  const s = await healthServer({ '': 1, sick: 2 }, agents);
  t.after(s.close);
  assert.deepEqual(await grpcHealthProbe('127.0.0.1', s.port, '', 5000, Date.now()), {
    ok: true,
    output: 'service healthy',
  });
  assert.deepEqual(await grpcHealthProbe('127.0.0.1', s.port, 'sick', 5000, Date.now()), {
    ok: false,
    output: 'service unhealthy (responded with "NOT_SERVING")',
  });
  assert.match(agents[0] ?? '', /^kube-probe\/1\.32/);
});

test('gRPC probe: a server without the health service, and nothing listening', async (t) => {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  t.after(() => server.forceShutdown());
  const r = await grpcHealthProbe('127.0.0.1', port, '', 5000, Date.now());
  assert.equal(r.ok, false);
  assert.match(
    r.output,
    /^error: this server does not implement the grpc health protocol \(grpc\.health\.v1\.Health\): /,
  );
  server.forceShutdown();
  const closed = await grpcHealthProbe('127.0.0.1', port, '', 1000, Date.now());
  assert.equal(closed.ok, false);
  assert.match(
    closed.output,
    new RegExp(`^timeout: failed to connect service "127\\.0\\.0\\.1:${port}" within 1s: `),
  );
});
