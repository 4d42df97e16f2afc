// A unix socket of no known name is asked which it is with the HTTP/2 preface: an HTTP/1.1
// server (a Docker engine) answers with a status line, a gRPC server (a CRI runtime) with HTTP/2;
// an absent socket says nothing (the agent then takes it for Docker and retries).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { probeUnixSocket } from '../../../../../src/agent/runtime/cri/detect.js';
import { systemClock } from '../../../../../src/common/util/clock.js';

const dir = await mkdtemp(join(tmpdir(), 'na-cri-detect-'));
after(() => rm(dir, { recursive: true, force: true }));

test('an HTTP/1.1 server is Docker, a gRPC server is CRI, no socket is absent; no request is made', async () => {
  const requests: string[] = [];
  const http = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end('OK');
  });
  const httpSock = join(dir, 'engine.sock');
  await new Promise<void>((r) => http.listen(httpSock, r));
  const server = new grpc.Server();
  const grpcSock = join(dir, 'runtime.sock');
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${grpcSock}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  try {
    assert.equal(await probeUnixSocket(httpSock, systemClock), 'docker');
    assert.equal(await probeUnixSocket(grpcSock, systemClock), 'cri');
    assert.equal(await probeUnixSocket(join(dir, 'none.sock'), systemClock), 'absent');
    assert.deepEqual(requests, []);
  } finally {
    server.forceShutdown();
    await new Promise((r) => http.close(r));
  }
});
