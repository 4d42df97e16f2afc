// The exec translator (WebSocket v5 from the client, SPDY to the agent) pings the agent's SPDY
// session every 5 s on the Clock, as the reference's StreamTranslatorHandler
// (spdy.RoundTripperConfig{PingPeriod: 5 * time.Second}), and stops when the session ends.
// The agent here is a TLS server that upgrades to SPDY and counts the PINGs it gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { SpdySession } from '../../../../src/common/spdy/session.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { SPDY_PING_PERIOD_MS, translateExec } from '../../../../src/apiserver/proxy/ws-exec.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { makeCa, makeServing } from '../../../helpers/server-tls-certs.js';

function listen(server: {
  listen(port: number, host: string, cb: () => void): unknown;
  address(): AddressInfo | string | null;
}): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

test("the exec translator pings the agent every 5 s (the reference's PingPeriod), on the Clock, until the session ends", async (t) => {
  assert.equal(SPDY_PING_PERIOD_MS, 5000);
  const ca = await makeCa('agent-ca');
  const serving = await makeServing(ca);
  const pings: number[] = [];
  let agentSession: SpdySession | undefined;
  const sessionOpen = new Promise<void>((resolve) => {
    const agent = createHttpsServer({ cert: serving.certPem, key: serving.keyPem });
    agent.on('upgrade', (_req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n',
      );
      agentSession = new SpdySession({ socket, role: 'server', head });
      agentSession.on('ping', (id) => pings.push(id));
      agentSession.on('stream', () => resolve());
    });
    t.after(() => new Promise<void>((r) => agent.close(() => r())));
    void listen(agent).then((port) => startFront(port));
  });
  const clock = new ManualClock();
  const front = createHttpServer();
  t.after(() => new Promise<void>((r) => front.close(() => r())));
  let frontPort = 0;
  const started = new Promise<void>((resolve) => {
    front.once('listening', () => {
      frontPort = (front.address() as AddressInfo).port;
      resolve();
    });
  });
  function startFront(agentPort: number): void {
    front.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void translateExec({
        req,
        socket,
        head,
        target: {
          host: '127.0.0.1',
          port: agentPort,
          path: '/exec/default/p/c?command=sleep&output=1',
        },
        tls: { certPem: serving.certPem, keyPem: serving.keyPem, caPem: ca.certPem },
        flags: { stdin: false, stdout: true, stderr: false, tty: false },
        logger: silentLogger(),
        clock,
      });
    });
    front.listen(0, '127.0.0.1');
  }
  await started;
  const ws = new WebSocket(`ws://127.0.0.1:${frontPort}/`, ['v5.channel.k8s.io']);
  ws.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  await sessionOpen;
  await clock.waitForSleepers(1);
  assert.deepEqual(pings, [], 'no ping before the first period');
  clock.advance(SPDY_PING_PERIOD_MS - 1);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pings, [], 'no ping before 5 s');
  clock.advance(1);
  await waitFor(() => pings.length === 1, 'the first ping');
  await clock.waitForSleepers(1);
  clock.advance(SPDY_PING_PERIOD_MS);
  await waitFor(() => pings.length === 2, 'the second ping');
  // Client-started pings have odd ids (SPDY/3: the initiator's parity).
  assert.ok(
    pings.every((id) => id % 2 === 1),
    `ping ids ${pings.join(',')}`,
  );
  // The session ends: the loop stops (no sleeper left), no more pings.
  agentSession!.destroy();
  await closed;
  await waitFor(() => clock.pendingSleepers === 0, 'the ping loop to stop');
  clock.advance(3 * SPDY_PING_PERIOD_MS);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(pings.length, 2);
});
