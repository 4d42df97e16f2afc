// Builds the agent's servers in-process for the server tests: test certificates, a client CA
// file, fake pods/stats/logs/commands, and scripted TokenReview / SubjectAccessReview answers.
import type { ProfilingHandlers } from '../../src/agent/server/handlers/profiling.js';
import type { RequestSpans } from '../../src/agent/server/server.js';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { silentLogger, type Logger } from '../../src/common/log/types.js';
import { systemClock, type Clock } from '../../src/common/util/clock.js';
import { NodeAgentMetrics } from '../../src/agent/server/metrics.js';
import {
  NodeServers,
  type AuthorizationSettings,
  type NodeServersAddresses,
} from '../../src/agent/server/node-servers.js';
import {
  ContainerNotFoundError,
  type ContainerLogOptions,
  type ContainerRef,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
  type SubjectAccessReviewer,
  type TokenReviewStatus,
  type TokenReviewer,
  type ServingTlsMaterial,
} from '../../src/agent/server/types.js';
import type { StreamingRuntime } from '../../src/agent/server/streaming/types.js';
import type { LiveConnection } from '../../src/agent/server/streaming/session-start.js';
import { makeCa, makeLeaf, makeServing, type TestCa, type TestLeaf } from './server-tls-certs.js';

export interface ServerCerts {
  ca: TestCa;
  otherCa: TestCa;
  serving: TestLeaf;
  alice: TestLeaf; // CN=alice O=devs, client usage
  bob: TestLeaf; // CN=bob, client usage
  expired: TestLeaf;
  unknown: TestLeaf; // signed by otherCa
  serverOnly: TestLeaf; // serverAuth usage only
  otherAlice: TestLeaf; // CN=carol signed by otherCa (for rotation)
}

export async function makeServerCerts(): Promise<ServerCerts> {
  const ca = await makeCa('client-ca');
  const otherCa = await makeCa('other-ca');
  return {
    ca,
    otherCa,
    serving: await makeServing(ca),
    alice: await makeLeaf(ca, { subject: 'CN=alice, O=devs', usage: 'client' }),
    bob: await makeLeaf(ca, { subject: 'CN=bob', usage: 'client' }),
    expired: await makeLeaf(ca, {
      subject: 'CN=old',
      usage: 'client',
      notBefore: new Date(Date.now() - 48 * 3600_000),
      notAfter: new Date(Date.now() - 3600_000),
    }),
    unknown: await makeLeaf(otherCa, { subject: 'CN=mallory', usage: 'client' }),
    serverOnly: await makeLeaf(ca, { subject: 'CN=srv', usage: 'server' }),
    otherAlice: await makeLeaf(otherCa, { subject: 'CN=carol', usage: 'client' }),
  };
}

/** Scripted TokenReview: known tokens map to users; `down` makes every call fail. */
export class FakeTokenReviewer implements TokenReviewer {
  calls = 0;
  down = false;
  readonly users = new Map<string, { username: string; groups: string[] }>();
  review(token: string): Promise<TokenReviewStatus> {
    this.calls++;
    if (this.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    const user = this.users.get(token);
    return Promise.resolve(
      user === undefined
        ? { authenticated: false, error: 'token not found' }
        : { authenticated: true, user },
    );
  }
}

/** Scripted SubjectAccessReview: `allow(spec)` decides; `down` makes every call fail. */
export class FakeSarReviewer implements SubjectAccessReviewer {
  calls = 0;
  down = false;
  readonly specs: SubjectAccessReviewSpec[] = [];
  constructor(public allow: (spec: SubjectAccessReviewSpec) => boolean) {}
  review(spec: SubjectAccessReviewSpec): Promise<SubjectAccessReviewStatus> {
    this.calls++;
    this.specs.push(spec);
    if (this.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    return Promise.resolve(
      this.allow(spec)
        ? { allowed: true, reason: 'test allows' }
        : { allowed: false, reason: 'test denies' },
    );
  }
}

export const FAKE_POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'c', image: 'x' }] },
};

export interface ServerFixtureOptions {
  certs: ServerCerts;
  anonymous: boolean;
  clientCa?: boolean;
  tokens?: FakeTokenReviewer;
  authorization: AuthorizationSettings;
  enableDebuggingHandlers?: boolean;
  readOnly?: boolean;
  healthz?: boolean;
  clock?: Clock;
  tlsMinVersion?: string;
  serving?: () => ServingTlsMaterial;
  streamingIdleTimeoutMs?: number;
  maxConnectionAgeMs?: number;
  /** OpenSSL names. */
  tlsCipherSuites?: string[];
  logger?: Logger;
  /** Interactive exec and port-forward (absent: those paths answer 404). */
  streaming?: StreamingRuntime;
  liveStreamingSessions?: Set<LiveConnection>;
  /** enableSystemLogHandler (default: served). */
  systemLogHandler?: boolean;
  /** enableProfilingHandler: /debug/pprof/ (default: not served). */
  profiling?: ProfilingHandlers;
  /** tracing: spans of the secure server's requests. */
  tracer?: RequestSpans;
  /** enableSystemLogQuery: /logs/?query=... with this journalctl (default: files only). */
  systemLogQuery?: { journalctl: string };
  /** enableDebugFlagsHandler: /debug/flags/v (default: disabled, 405). */
  debugFlags?: { setVerbosity(verbosity: number): void };
}

export interface ServerFixture {
  dir: string;
  caFile: string;
  base: string;
  readOnlyBase?: string;
  healthzBase?: string;
  addresses: NodeServersAddresses;
  registry: Registry;
  stop(): Promise<void>;
}

export async function startServerFixture(o: ServerFixtureOptions): Promise<ServerFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-server-'));
  const caFile = join(dir, 'client-ca.pem');
  await writeFile(caFile, o.certs.ca.certPem);
  const logDir = join(dir, 'log');
  await mkdir(logDir);
  await writeFile(join(logDir, 'syslog'), 'hello from the node log\n');
  const registry = new Registry();
  const metrics = new NodeAgentMetrics({ registry, servingCertificateTtlSeconds: () => 3600 });
  const abort = new AbortController();
  const servingMaterial: ServingTlsMaterial = {
    cert: o.certs.serving.certPem,
    key: o.certs.serving.keyPem,
  };
  const servers = new NodeServers({
    nodeName: 'node-a',
    clock: o.clock ?? systemClock,
    logger: o.logger ?? silentLogger(),
    metrics,
    pods: { pods: () => [FAKE_POD] },
    runningPods: { runningPods: () => Promise.resolve([FAKE_POD]) },
    stats: {
      summary: () =>
        Promise.resolve({
          node: { nodeName: 'node-a', cpu: { usageNanoCores: 1 }, memory: { workingSetBytes: 2 } },
          pods: [],
        }),
    },
    containerLogs: {
      writeLogs(
        ref: ContainerRef,
        opts: ContainerLogOptions,
        out: Writable,
        signal: AbortSignal,
      ): Promise<void> {
        if (ref.pod !== 'web' || ref.container !== 'c')
          return Promise.reject(
            new ContainerNotFoundError(
              `container "${ref.container}" in pod "${ref.pod}" not found`,
            ),
          );
        let lines = ['one', 'two', 'three'].map((l, i) =>
          opts.timestamps ? `2026-01-01T00:00:0${i}Z ${l}` : l,
        );
        if (opts.tailLines !== undefined)
          lines = lines.slice(Math.max(0, lines.length - opts.tailLines));
        out.write(lines.map((l) => `${l}\n`).join(''));
        // Following: nothing more is logged; the stream stays open until the client goes away.
        if (opts.follow)
          return new Promise((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          );
        return Promise.resolve();
      },
    },
    commands: {
      run(ref, command) {
        if (ref.pod !== 'web') return Promise.reject(new ContainerNotFoundError('pod not found'));
        return Promise.resolve({
          stdout: Buffer.from(`${command.join(' ')}\n`),
          stderr: Buffer.alloc(0),
          exitCode: 0,
        });
      },
    },
    configz: () => ({
      kind: 'NodeAgentConfiguration',
      staticPodURLHeader: { Authorization: ['Bearer s3cret'] },
      readOnlyPort: 0,
    }),
    logDir,
    ...(o.systemLogHandler !== undefined ? { systemLogHandler: o.systemLogHandler } : {}),
    ...(o.profiling !== undefined ? { profiling: o.profiling } : {}),
    ...(o.debugFlags !== undefined ? { debugFlags: o.debugFlags } : {}),
    ...(o.systemLogQuery !== undefined ? { systemLogQuery: o.systemLogQuery } : {}),
    syncLoop: { lastIterationMs: () => Date.now() },
    streamingIdleTimeoutMs: o.streamingIdleTimeoutMs ?? 60_000,
    ...(o.streaming !== undefined ? { streaming: o.streaming } : {}),
    ...(o.liveStreamingSessions !== undefined
      ? { liveStreamingSessions: o.liveStreamingSessions }
      : {}),
    secure: {
      address: '127.0.0.1',
      port: 0,
      tls: { current: o.serving ?? (() => servingMaterial) },
      ...(o.tracer !== undefined ? { tracer: o.tracer } : {}),
      ...(o.tlsMinVersion !== undefined ? { tlsMinVersion: o.tlsMinVersion } : {}),
      ...(o.tlsCipherSuites !== undefined ? { tlsCipherSuites: o.tlsCipherSuites } : {}),
      enableDebuggingHandlers: o.enableDebuggingHandlers ?? true,
      ...(o.clientCa !== false ? { clientCaFile: caFile } : {}),
      anonymous: o.anonymous,
      ...(o.tokens !== undefined
        ? { tokenWebhook: { reviewer: o.tokens, cacheTtlMs: 120_000 } }
        : {}),
      authorization: o.authorization,
      ...(o.maxConnectionAgeMs !== undefined ? { maxConnectionAgeMs: o.maxConnectionAgeMs } : {}),
    },
    ...(o.readOnly === true ? { readOnly: { address: '127.0.0.1', port: 0 } } : {}),
    ...(o.healthz === true ? { healthz: { address: '127.0.0.1', port: 0 } } : {}),
  });
  const addresses = await servers.start(abort.signal);
  return {
    dir,
    caFile,
    base: `https://127.0.0.1:${addresses.secure?.port}`,
    ...(addresses.readOnly ? { readOnlyBase: `http://127.0.0.1:${addresses.readOnly.port}` } : {}),
    ...(addresses.healthz ? { healthzBase: `http://127.0.0.1:${addresses.healthz.port}` } : {}),
    addresses,
    registry,
    async stop() {
      abort.abort();
      await servers.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every endpoint with the method it takes and the subresource it is authorized as. */
export const ENDPOINTS: readonly {
  path: string;
  method: string;
  subresource: string;
  debug: boolean;
}[] = [
  { path: '/healthz', method: 'GET', subresource: 'proxy', debug: false },
  { path: '/healthz/ping', method: 'GET', subresource: 'proxy', debug: false },
  { path: '/healthz/syncloop', method: 'GET', subresource: 'proxy', debug: false },
  { path: '/pods', method: 'GET', subresource: 'proxy', debug: false },
  { path: '/metrics', method: 'GET', subresource: 'metrics', debug: false },
  { path: '/stats/summary', method: 'GET', subresource: 'stats', debug: false },
  { path: '/configz', method: 'GET', subresource: 'proxy', debug: true },
  { path: '/runningpods/', method: 'GET', subresource: 'proxy', debug: true },
  {
    path: '/containerLogs/default/web/c?tailLines=2',
    method: 'GET',
    subresource: 'proxy',
    debug: true,
  },
  { path: '/logs/', method: 'GET', subresource: 'log', debug: true },
  { path: '/run/default/web/c?cmd=echo%20hi', method: 'POST', subresource: 'proxy', debug: true },
  {
    path: '/exec/default/web/c?command=echo&command=hi',
    method: 'POST',
    subresource: 'proxy',
    debug: true,
  },
];
