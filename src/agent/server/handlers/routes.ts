// The endpoint table of the agent's servers. The same handlers back the secure server (after
// authentication and authorization, with or without the debugging handlers) and the read-only
// server (no debugging handlers at all).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import type { NodeAgentMetrics } from '../metrics.js';
import type {
  CommandRunner,
  ContainerLogs,
  PodsProvider,
  RunningPodsProvider,
  StatsProvider,
  SyncLoopMonitor,
} from '../types.js';
import { configzDocument } from './configz.js';
import { serveCommand, serveContainerLogs } from './containers.js';
import { pingCheck, serveHealthz, syncLoopCheck, type HealthCheck } from './healthz.js';
import { DEBUG_FLAGS_V_PATH, serveDebugFlagV } from './debug-flags.js';
import { serveLogDir } from './logs.js';
import { serveNodeLogQuery } from './node-log-query/serve.js';
import type { ProfilingHandlers } from './profiling.js';
import { httpError, notFound, sendJson, sendText } from './respond.js';
import { serveStreaming, type UpgradeSocket } from '../streaming/serve.js';
import type { StreamingRuntime } from '../streaming/types.js';
import type { LiveConnection } from '../streaming/session-start.js';

export interface NodeHandlersOptions {
  clock: Clock;
  logger: Logger;
  metrics: NodeAgentMetrics;
  pods: PodsProvider;
  runningPods?: RunningPodsProvider;
  stats?: StatsProvider;
  containerLogs?: ContainerLogs;
  commands?: CommandRunner;
  syncLoop?: SyncLoopMonitor;
  /** The effective configuration (already redacted by the config part; masked again here). */
  configz?: () => unknown;
  /** Directory served under /logs/; default /var/log. */
  logDir?: string;
  /** enableSystemLogHandler: false leaves /logs/ unregistered (404), as the reference. */
  systemLogHandler?: boolean;
  /** enableProfilingHandler: /debug/pprof/ (absent: not served). */
  profiling?: ProfilingHandlers;
  /**
   * enableSystemLogQuery with NodeLogQuery: /logs/?query=... (absent: /logs/ serves files only).
   */
  systemLogQuery?: { journalctl: string };
  /** enableDebugFlagsHandler: /debug/flags/v changes the verbosity (absent: 405, disabled). */
  debugFlags?: { setVerbosity(verbosity: number): void };
  /** 0 means none. */
  streamingIdleTimeoutMs: number;
  /** Interactive exec and port-forward (upgrade requests); absent: those answer 404. */
  streaming?: StreamingRuntime;
  /** Streaming connections in flight, SPDY and WebSocket (tests count them). */
  liveStreamingSessions?: Set<LiveConnection>;
}

/** What a server serves: the secure one with or without debugging handlers, or read-only. */
export type HandlerMode = 'debug' | 'debug-disabled' | 'read-only';

const DEBUG_PREFIXES = [
  '/run/',
  '/exec/',
  '/attach/',
  '/portForward/',
  '/containerLogs/',
  '/runningpods/',
  '/logs/',
  '/configz',
  '/debug/',
  '/cri/',
];

export function isDebugPath(path: string): boolean {
  return DEBUG_PREFIXES.some(
    (p) => path === p || path.startsWith(p) || (p.endsWith('/') && path === p.slice(0, -1)),
  );
}

function isStreamingPath(path: string): boolean {
  return (
    path.startsWith('/exec/') || path.startsWith('/attach/') || path.startsWith('/portForward/')
  );
}

function isReadPath(path: string): boolean {
  return (
    path === '/configz' ||
    path === '/runningpods/' ||
    path === '/runningpods' ||
    path.startsWith('/containerLogs/')
  );
}

function isProfilingPath(path: string): boolean {
  return path === '/debug/pprof' || path.startsWith('/debug/pprof/');
}

export class NodeHandlers {
  readonly healthChecks: readonly HealthCheck[];

  constructor(private readonly options: NodeHandlersOptions) {
    // Without a monitor (before the workers are wired) the sync-loop check has nothing to fault.
    this.healthChecks = [
      pingCheck,
      syncLoopCheck(options.syncLoop ?? { lastIterationMs: () => undefined }, options.clock),
    ];
  }

  /** Serves one request; `path` is the decoded-free pathname of req.url. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    mode: HandlerMode,
    upgrade?: UpgradeSocket,
  ): Promise<void> {
    const path = url.pathname;
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      serveHealthz(req, res, path, this.healthChecks);
      return;
    }
    if (path === '/pods' || path === '/pods/') {
      if (!this.methodIs(req, res, 'GET')) return;
      sendJson(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: {},
        items: this.options.pods.pods(),
      });
      return;
    }
    if (path === '/metrics') {
      if (!this.methodIs(req, res, 'GET')) return;
      const reg = this.options.metrics.registry;
      sendText(res, 200, await reg.metrics(), reg.contentType);
      return;
    }
    if (path === '/stats/summary' || path === '/stats' || path === '/stats/') {
      if (!this.methodIs(req, res, 'GET')) return;
      if (this.options.stats === undefined) {
        httpError(res, 503, 'stats are not available yet');
        return;
      }
      sendJson(res, 200, await this.options.stats.summary());
      return;
    }
    if (!isDebugPath(path)) {
      notFound(res);
      return;
    }
    if (mode === 'read-only') {
      notFound(res);
      return;
    }
    if (mode === 'debug-disabled') {
      httpError(res, 405, 'Debug endpoints are disabled.');
      return;
    }
    await this.handleDebug(req, res, url, path, upgrade);
  }

  private async handleDebug(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: string,
    upgrade?: UpgradeSocket,
  ): Promise<void> {
    const o = this.options;
    if (upgrade !== undefined && isStreamingPath(path))
      await this.serveStreamingUpgrade(req, res, url, upgrade);
    else if (isReadPath(path)) {
      if (this.methodIs(req, res, 'GET')) await this.serveRead(req, res, url, path);
    } else if (path === '/logs' || path.startsWith('/logs/'))
      await this.serveSystemLogs(req, res, url, path);
    else if (isProfilingPath(path) && o.profiling !== undefined) {
      if (this.methodIs(req, res, 'GET')) await o.profiling.handle(req, res, url, path);
    } else if (path === DEBUG_FLAGS_V_PATH) {
      await serveDebugFlagV(
        req,
        res,
        o.debugFlags === undefined ? undefined : (v) => o.debugFlags?.setVerbosity(v),
      );
    } else if (path.startsWith('/run/')) {
      await serveCommand(req, res, path, url, o.commands, 'run');
    } else if (path.startsWith('/exec/')) {
      await serveCommand(req, res, path, url, o.commands, 'exec');
    } else {
      // /attach, /portForward, /debug/, /cri/: interactive streaming is not offered.
      notFound(res);
    }
  }

  /** exec, attach and portForward over an upgraded connection (SPDY or WebSocket). */
  private async serveStreamingUpgrade(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    upgrade: UpgradeSocket,
  ): Promise<void> {
    const o = this.options;
    if (o.streaming === undefined) {
      notFound(res);
      return;
    }
    const live = o.liveStreamingSessions;
    await serveStreaming(req, res, url, upgrade, {
      runtime: o.streaming,
      logger: o.logger,
      clock: o.clock,
      idleTimeoutMs: o.streamingIdleTimeoutMs,
      ...(live !== undefined ? { live } : {}),
    });
  }

  /** The GET-only debug reads: /configz, /runningpods and /containerLogs. */
  private async serveRead(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: string,
  ): Promise<void> {
    const o = this.options;
    if (path === '/configz') sendJson(res, 200, configzDocument(o.configz?.() ?? {}));
    else if (path.startsWith('/containerLogs/'))
      await serveContainerLogs(req, res, path, url, o.containerLogs, {
        streamingIdleTimeoutMs: o.streamingIdleTimeoutMs,
        clock: o.clock,
      });
    else {
      const items = o.runningPods === undefined ? [] : await o.runningPods.runningPods();
      sendJson(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
    }
  }

  /** /logs/: the node's log directory, or a node log query (when the gate allows one). */
  private async serveSystemLogs(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: string,
  ): Promise<void> {
    const o = this.options;
    if (o.systemLogHandler === false) {
      notFound(res);
      return;
    }
    if (path === '/logs') {
      res.writeHead(301, { location: '/logs/' });
      res.end();
      return;
    }
    const logDir = o.logDir ?? '/var/log';
    const filePath =
      o.systemLogQuery !== undefined && url.search !== ''
        ? await serveNodeLogQuery(req, res, url, path, {
            journalctl: o.systemLogQuery.journalctl,
            logDir,
            clock: o.clock,
          })
        : path;
    if (filePath !== undefined) await serveLogDir(req, res, filePath, logDir);
  }

  private methodIs(req: IncomingMessage, res: ServerResponse, method: 'GET'): boolean {
    // HEAD is answered as GET
    if (req.method === method || req.method === 'HEAD') return true;
    httpError(res, 405, 'Method Not Allowed');
    return false;
  }
}
