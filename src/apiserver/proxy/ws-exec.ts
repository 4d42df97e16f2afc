// The reference's StreamTranslatorHandler: a WebSocket client speaking v5.channel.k8s.io (what
// kubectl 1.32 uses for exec and attach) is served here, and the command runs on the agent over
// SPDY (v4.channel.k8s.io), the protocol the agent offers. Each WebSocket message is a channel
// byte (0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; 255 closes the channel named by the next
// byte) and its data. When the command ends the status goes on channel 3 and the WebSocket closes;
// a client that goes away tears the SPDY session down, which ends the command on the agent.
// As the reference's translator (spdy.RoundTripperConfig{PingPeriod: 5 * time.Second}) the SPDY
// session to the agent is pinged every 5 s, so that idle-connection reapers on the way (and the
// agent's --streaming-connection-idle-timeout) see traffic while a command is quiet; the
// WebSocket side gets no pings (the reference's wsstream.Conn sends none).

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../../common/log/types.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import { runEvery } from '../../common/util/every.js';
import { userMessage } from '../../common/util/errors.js';
import { SpdySession } from '../../common/spdy/session.js';
import type { SpdyStream } from '../../common/spdy/stream.js';
import { goQuote } from '../../common/util/go-quote.js';
import {
  AgentDialError,
  agentUrl,
  dialAgent,
  readBody,
  type AgentTarget,
  type AgentTls,
} from './agent-dial.js';
import {
  internalErrorStatus,
  statusFromRefusal,
  statusFromV4,
  type ExecStatus,
} from './exec-status.js';

export const WS_V5 = 'v5.channel.k8s.io';
const SPDY_EXEC_PROTOCOLS = [
  'v4.channel.k8s.io',
  'v3.channel.k8s.io',
  'v2.channel.k8s.io',
  'channel.k8s.io',
];
const CH = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;
/** The reference's translator's SPDY PingPeriod. */
export const SPDY_PING_PERIOD_MS = 5000;

export interface StreamFlags {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface TranslateOptions {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  readonly target: AgentTarget;
  readonly tls: AgentTls;
  readonly flags: StreamFlags;
  readonly logger: Logger;
  /** Times the pings (default: the system clock). */
  readonly clock?: Clock;
  /** Sessions in flight (tests count them). */
  readonly live?: Set<unknown>;
}

/**
 * The translator serves v5 only (the reference's StreamTranslatorHandler); the caller checked it is
 * offered.
 */
function accept(o: TranslateOptions): Promise<WebSocket> {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 1 << 20,
    handleProtocols: (offered) => (offered.has(WS_V5) ? WS_V5 : false),
  });
  if (o.socket.destroyed) return Promise.reject(new Error('the client went away'));
  (o.socket as Partial<Socket>).setNoDelay?.(true);
  return new Promise((resolve, reject) => {
    // A bad handshake is answered 400 by ws, which then closes the socket without a callback.
    const onClose = (): void => reject(new Error('the WebSocket handshake was refused'));
    o.socket.once('close', onClose);
    wss.handleUpgrade(o.req, o.socket, o.head, (ws) => {
      o.socket.off('close', onClose);
      resolve(ws);
    });
  });
}

function channelMessage(channel: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([channel]), data]);
}

/** Opens the SPDY session to the agent, or gives the status that says why not. */
async function agentSession(o: TranslateOptions): Promise<SpdySession | ExecStatus> {
  let answer;
  try {
    answer = await dialAgent({
      target: o.target,
      tls: o.tls,
      method: 'POST',
      headers: {
        connection: 'Upgrade',
        upgrade: 'SPDY/3.1',
        'x-stream-protocol-version': SPDY_EXEC_PROTOCOLS,
      },
    });
  } catch (err) {
    // The reference's SPDY executor: spdy.Negotiate wraps the client's *url.Error.
    if (err instanceof AgentDialError)
      return internalErrorStatus(
        `error sending request: Post ${goQuote(agentUrl(o.target))}: ${err.message}`,
      );
    return internalErrorStatus(userMessage(err));
  }
  if (answer.kind === 'response')
    return statusFromRefusal((await readBody(answer.response, 1024)).toString('utf8'));
  return new SpdySession({ socket: answer.socket, role: 'client', head: answer.head });
}

/**
 * Pings the agent's session until it closes; a ping that cannot be sent is only logged (as
 * spdystream).
 */
function pingEvery(session: SpdySession, o: TranslateOptions): void {
  const stop = new AbortController();
  session.once('close', () => stop.abort());
  void runEvery({
    clock: o.clock ?? systemClock,
    ms: SPDY_PING_PERIOD_MS,
    signal: stop.signal,
    run: () => {
      if (!session.isClosed()) session.ping();
      return Promise.resolve();
    },
    onError: (err) => o.logger.debug({ err: userMessage(err) }, 'SPDY ping to the agent failed'),
  });
}

async function openStreams(session: SpdySession, f: StreamFlags): Promise<Map<string, SpdyStream>> {
  const types = ['error'];
  if (f.stdin) types.push('stdin');
  if (f.stdout) types.push('stdout');
  if (f.stderr && !f.tty) types.push('stderr');
  if (f.tty) types.push('resize');
  const out = new Map<string, SpdyStream>();
  for (const t of types) out.set(t, await session.openStream(new Map([['streamtype', [t]]])));
  return out;
}

function drain(s: SpdyStream | undefined, onData: (b: Buffer) => void): Promise<void> {
  if (s === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    s.on('data', onData);
    s.once('end', () => resolve());
    s.once('close', () => resolve());
    s.once('error', () => resolve());
  });
}

/**
 * Takes the client's messages from the moment the WebSocket is open (kubectl sends stdin at
 * once) and holds them until the agent's streams exist; `wire` then delivers what was held.
 */
class ClientInput {
  private held: Buffer[] = [];
  private streams: Map<string, SpdyStream> | undefined;
  private heldBytes = 0;

  constructor(ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary || data.length === 0) return;
      if (this.streams !== undefined) {
        this.deliver(this.streams, data);
        return;
      }
      this.heldBytes += data.length;
      // Bounded: a client that sends more than 4 MiB before the command starts is cut off.
      if (this.heldBytes > 4 << 20) ws.terminate();
      else this.held.push(data);
    });
  }

  wire(streams: Map<string, SpdyStream>): void {
    this.streams = streams;
    for (const m of this.held) this.deliver(streams, m);
    this.held = [];
  }

  private deliver(streams: Map<string, SpdyStream>, data: Buffer): void {
    const channel = data[0];
    const body = data.subarray(1);
    if (channel === CH.stdin) streams.get('stdin')?.write(body);
    else if (channel === CH.resize) streams.get('resize')?.write(body);
    else if (channel === CH.close && body[0] === CH.stdin) streams.get('stdin')?.end();
  }
}

export async function translateExec(o: TranslateOptions): Promise<void> {
  let ws: WebSocket;
  try {
    ws = await accept(o);
  } catch {
    return;
  }
  // A protocol error of the client (a message over 1 MiB, a bad frame) closes its WebSocket (ws
  // sends the close code); the 'close' below tears the session down.
  ws.on('error', (err) =>
    o.logger.debug({ err: err.message }, 'exec WebSocket closed on a protocol error'),
  );
  o.live?.add(ws);
  const input = new ClientInput(ws);
  const first = o.flags.stdout ? CH.stdout : o.flags.stderr ? CH.stderr : CH.error;
  ws.send(Buffer.from([first]));
  let session: SpdySession | undefined;
  const gone = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  void gone.then(() => session?.destroy());
  try {
    const s = await agentSession(o);
    if (!(s instanceof SpdySession)) {
      finish(ws, s);
      return;
    }
    session = s;
    if (ws.readyState !== ws.OPEN) return;
    pingEvery(s, o);
    const status = await runSession(ws, s, o.flags, input);
    finish(ws, status);
  } catch (err) {
    o.logger.debug({ err: userMessage(err) }, 'exec translation failed');
    finish(ws, internalErrorStatus(userMessage(err)));
  } finally {
    await gone;
    session?.destroy();
    o.live?.delete(ws);
  }
}

async function runSession(
  ws: WebSocket,
  session: SpdySession,
  flags: StreamFlags,
  input: ClientInput,
): Promise<ExecStatus> {
  const streams = await openStreams(session, flags);
  input.wire(streams);
  const errorText: Buffer[] = [];
  const send =
    (channel: number) =>
    (b: Buffer): void => {
      if (ws.readyState === ws.OPEN) ws.send(channelMessage(channel, b));
    };
  await Promise.all([
    drain(streams.get('stdout'), send(CH.stdout)),
    drain(streams.get('stderr'), send(CH.stderr)),
    drain(streams.get('error'), (b) => errorText.push(b)),
  ]);
  if (session.isClosed() && errorText.length === 0 && ws.readyState !== ws.OPEN)
    return internalErrorStatus('the client went away');
  return statusFromV4(Buffer.concat(errorText).toString('utf8'));
}

function finish(ws: WebSocket, status: ExecStatus): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(channelMessage(CH.error, Buffer.from(JSON.stringify(status))));
  ws.close(1000);
}
