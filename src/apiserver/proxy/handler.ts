// plat-apiserver's streaming subresources, as the reference serves them: pods/log, pods/exec,
// pods/attach, pods/portforward and nodes/proxy (`/api/v1/nodes/{name}/proxy/...`), proxied to
// the node's agent (node-connection.ts) with the kubelet-client certificate. Exec and attach over
// WebSocket v5 are translated to SPDY (ws-exec.ts); port-forward over WebSocket is tunnelled
// (ws-tunnel.ts); SPDY and anything else is passed through (passthrough.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { forbiddenMessage, requestAttributes } from '../authz/attributes.js';
import type { Authorizer } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { ResourceDef } from '../registry/types.js';
import { badRequest, forbidden, methodNotAllowed } from '../status.js';
import { AgentDialError, type AgentTarget, type AgentTls } from './agent-dial.js';
import { UnknownStatusError } from './errors.js';
import { agentLogQuery, parsePodLogOptions } from './log-options.js';
import { streamLog } from './log.js';
import { nodeConnection } from './node-connection.js';
import { passThrough } from './passthrough.js';
import { nodeNameOf, resolveContainer } from './pod-target.js';
import { translateExec, WS_V5, type StreamFlags } from './ws-exec.js';
import { isTunnelingRequest, tunnelPortForward } from './ws-tunnel.js';

type Obj = Record<string, unknown>;

export interface ProxyOptions {
  readonly registry: { get(def: ResourceDef, namespace: string, name: string): Promise<Obj> };
  readonly podDef: ResourceDef;
  readonly nodeDef: ResourceDef;
  readonly tls: AgentTls;
  readonly preferredAddressTypes: readonly string[];
  readonly authorizer: Authorizer;
  readonly logger: Logger;
  /** Times the translator's pings (default: the system clock). */
  readonly clock?: Clock;
  /** Streams in flight (tests count them to prove nothing leaks). */
  readonly live?: Set<unknown>;
}

export interface ProxyCall {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly upgrade: { readonly socket: Duplex; readonly head: Buffer } | undefined;
  /** The decoded path. */
  readonly path: string;
  readonly search: URLSearchParams;
  readonly user: UserInfo;
  readonly signal: AbortSignal;
}

type PodSub = 'log' | 'exec' | 'attach' | 'portforward';
type Match =
  | { kind: 'pod'; namespace: string; name: string; sub: PodSub }
  | { kind: 'node'; name: string; rest: string };
const POD_SUBS: ReadonlySet<string> = new Set<PodSub>(['log', 'exec', 'attach', 'portforward']);

function isPodSub(s: string | undefined): s is PodSub {
  return s !== undefined && POD_SUBS.has(s);
}

function nonEmpty(s: string | undefined): s is string {
  return s !== undefined && s !== '';
}

export function matchProxyPath(path: string): Match | undefined {
  const p = path.split('/');
  // ['', 'api', 'v1', 'namespaces', ns, 'pods', name, sub]
  const [, api, version, namespaces, ns, pods, name, sub] = p;
  if (
    p.length === 8 &&
    api === 'api' &&
    version === 'v1' &&
    namespaces === 'namespaces' &&
    pods === 'pods' &&
    isPodSub(sub) &&
    nonEmpty(ns) &&
    nonEmpty(name)
  ) {
    return { kind: 'pod', namespace: ns, name, sub };
  }
  // ['', 'api', 'v1', 'nodes', node, 'proxy', ...rest]
  const [, , , nodes, node, proxy] = p;
  if (
    p.length >= 6 &&
    api === 'api' &&
    version === 'v1' &&
    nodes === 'nodes' &&
    nonEmpty(node) &&
    proxy === 'proxy'
  ) {
    return { kind: 'node', name: node, rest: `/${p.slice(6).join('/')}` };
  }
  return undefined;
}

function isWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

function offersV5(req: IncomingMessage): boolean {
  return (req.headersDistinct['sec-websocket-protocol'] ?? [])
    .flatMap((v) => v.split(','))
    .some((v) => v.trim() === WS_V5);
}

function goBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && !(v === '0' || v.toLowerCase() === 'false');
}

function encodePath(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

export class SubresourceProxy {
  constructor(private readonly o: ProxyOptions) {}

  /** false when the path is not one of these subresources. */
  async handle(c: ProxyCall): Promise<boolean> {
    const m = matchProxyPath(c.path);
    if (m === undefined) return false;
    if (m.kind === 'node') await this.nodeProxy(c, m.name, m.rest);
    else if (m.sub === 'log') await this.log(c, m.namespace, m.name);
    else await this.stream(c, m.namespace, m.name, m.sub);
    return true;
  }

  private async agentFor(nodeName: string): Promise<{ host: string; port: number }> {
    const node = await this.o.registry.get(this.o.nodeDef, '', nodeName);
    return nodeConnection(node, this.o.preferredAddressTypes);
  }

  private async log(c: ProxyCall, namespace: string, name: string): Promise<void> {
    const method = c.req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method);
    const opts = parsePodLogOptions(c.search, name);
    const pod = await this.o.registry.get(this.o.podDef, namespace, name);
    const container = resolveContainer(pod, name, opts.container);
    const nodeName = nodeNameOf(pod);
    if (nodeName === '') {
      // The reference's LogLocation has no location for an unscheduled pod: an empty log.
      c.res.writeHead(200, { 'content-type': 'text/plain' }).end();
      return;
    }
    const at = await this.agentFor(nodeName);
    const target: AgentTarget = {
      ...at,
      path: `/containerLogs${encodePath(namespace, name, container)}${agentLogQuery(opts)}`,
    };
    await streamLog({
      res: c.res,
      target,
      tls: this.o.tls,
      insecure: opts.insecureSkipTLSVerifyBackend,
      podName: name,
      signal: c.signal,
    });
  }

  /** AuthorizePodWebsocketUpgradeCreatePermission: a WebSocket GET also needs `create`. */
  private async checkCreate(c: ProxyCall): Promise<void> {
    if (c.req.method !== 'GET' || c.upgrade === undefined || !isWebSocket(c.req)) return;
    const attrs = requestAttributes('POST', c.path, c.search, c.user);
    const d = await this.o.authorizer.authorize(attrs);
    if (d.decision !== 'allow')
      throw forbidden(forbiddenMessage(attrs, d.reason), {
        name: attrs.name,
        group: attrs.apiGroup,
        kind: attrs.resource,
      });
  }

  private async stream(
    c: ProxyCall,
    namespace: string,
    name: string,
    sub: 'exec' | 'attach' | 'portforward',
  ): Promise<void> {
    const method = c.req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') throw methodNotAllowed(method);
    await this.checkCreate(c);
    const pod = await this.o.registry.get(this.o.podDef, namespace, name);
    const flags: StreamFlags = {
      stdin: goBool(c.search, 'stdin'),
      stdout: goBool(c.search, 'stdout'),
      stderr: goBool(c.search, 'stderr'),
      tty: goBool(c.search, 'tty'),
    };
    const path =
      sub === 'portforward'
        ? `/portForward${encodePath(namespace, name)}${portQuery(c.search)}`
        : this.commandPath(c, pod, namespace, name, sub, flags);
    const nodeName = nodeNameOf(pod);
    if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
    const target: AgentTarget = { ...(await this.agentFor(nodeName)), path };
    await this.relay(c, sub, target, flags);
  }

  /**
   * Carries the upgraded stream to the agent: a v5 WebSocket exec/attach through the translator,
   * a WebSocket port-forward through the tunnel, anything else (SPDY) passed through.
   */
  private async relay(
    c: ProxyCall,
    sub: 'exec' | 'attach' | 'portforward',
    target: AgentTarget,
    flags: StreamFlags,
  ): Promise<void> {
    if (c.upgrade === undefined) throw badRequest('Upgrade request required');
    const { socket, head } = c.upgrade;
    const live = this.o.live !== undefined ? { live: this.o.live } : {};
    try {
      if (sub !== 'portforward' && isWebSocket(c.req) && offersV5(c.req)) {
        await translateExec({
          req: c.req,
          socket,
          head,
          target,
          tls: this.o.tls,
          flags,
          logger: this.o.logger,
          ...(this.o.clock !== undefined ? { clock: this.o.clock } : {}),
          ...live,
        });
      } else if (sub === 'portforward' && isTunnelingRequest(c.req)) {
        await tunnelPortForward({
          req: c.req,
          res: c.res,
          socket,
          head,
          target,
          tls: this.o.tls,
          ...live,
        });
      } else {
        await passThrough({
          req: c.req,
          res: c.res,
          upgrade: c.upgrade,
          target,
          tls: this.o.tls,
          signal: c.signal,
        });
      }
    } catch (err) {
      if (err instanceof AgentDialError)
        throw new UnknownStatusError(`error dialing backend: ${err.message}`);
      throw err;
    }
  }

  private commandPath(
    c: ProxyCall,
    pod: Obj,
    namespace: string,
    name: string,
    sub: 'exec' | 'attach',
    f: StreamFlags,
  ): string {
    const container = resolveContainer(pod, name, c.search.get('container') ?? '');
    // The reference's streamParams, in url.Values.Encode order (keys sorted).
    const q = new URLSearchParams();
    if (sub === 'exec') for (const a of c.search.getAll('command')) q.append('command', a);
    if (f.stderr) q.set('error', '1');
    if (f.stdin) q.set('input', '1');
    if (f.stdout) q.set('output', '1');
    if (f.tty) q.set('tty', '1');
    const s = q.toString();
    return `/${sub}${encodePath(namespace, name, container)}${s === '' ? '' : `?${s}`}`;
  }

  private async nodeProxy(c: ProxyCall, nodeName: string, rest: string): Promise<void> {
    const at = await this.agentFor(nodeName);
    const search = c.search.toString();
    const path = `${rest
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/')}${search === '' ? '' : `?${search}`}`;
    try {
      await passThrough({
        req: c.req,
        res: c.res,
        upgrade: c.upgrade,
        target: { ...at, path },
        tls: this.o.tls,
        signal: c.signal,
      });
    } catch (err) {
      if (err instanceof AgentDialError)
        throw new UnknownStatusError(
          c.upgrade !== undefined ? `error dialing backend: ${err.message}` : err.message,
        );
      throw err;
    }
  }
}

/** PodPortForwardOptions.ports as the kubelet gets them (`port=a,b`); each an int32 port. */
function portQuery(search: URLSearchParams): string {
  const ports = search.getAll('ports');
  if (ports.length === 0) return '';
  for (const p of ports) {
    if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535)
      throw badRequest(`invalid port "${p.slice(0, 32)}": accepted: an integer from 1 to 65535`);
  }
  return `?port=${ports.join(',')}`;
}
