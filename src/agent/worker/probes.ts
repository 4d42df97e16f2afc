// Liveness, readiness and startup probes: one loop per probe of a running container. Results
// are read by the pod sync (liveness/startup failure → restart) and the status (readiness). Each
// failed attempt is the reference's `Warning Unhealthy` event on the container ("Readiness probe
// failed: <output>"; "... probe errored: <error>" when the probe could not run).
import { connect } from 'node:net';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Container, Pod, Probe } from '../pod/types.js';
import { runtimeWords, type ContainerRuntime } from '../runtime/types.js';
import { containerFieldPath } from './container-kill.js';
import { httpGetRequest, joinHostPort, resolveActionPort } from './http-get-request.js';
import type { PodEvent } from './status-manager.js';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

export interface ProbeManagerOptions {
  runtime: ContainerRuntime;
  clock: Clock;
  logger: Logger;
  /** Called when a result flips, so the pod gets synced. */
  onChange: (podUid: string) => void;
  /** Writes a pod event (the failed attempts' Unhealthy). */
  recordEvent?: (e: PodEvent) => void;
}

const PROBE_WORD: Readonly<Record<ProbeKind, string>> = {
  liveness: 'Liveness',
  readiness: 'Readiness',
  startup: 'Startup',
};

interface ProbeState {
  abort: AbortController;
  podUid: string;
  result: boolean | undefined;
  successes: number;
  failures: number;
}

/** A probe's number, or the reference's default when it is left out or 0 (unset to the API). */
function setOr(value: number | undefined, fallback: number): number {
  return value === undefined || value === 0 ? fallback : value;
}

interface ProbeContext {
  runtime: ContainerRuntime;
  containerId: string;
  container: Container;
  host: string;
  /** Now, for the gRPC call's deadline. */
  nowMs: number;
}

interface ProbeResult {
  ok: boolean;
  output: string;
  /** The probe could not run (the reference's "probe errored"). */
  errored?: boolean;
  /** A success with a warning (a redirect to another host, not followed). */
  warning?: boolean;
}

/** What the reference's kubelet sends as User-Agent of an HTTP probe (kube-probe/<major>.<minor>). */
export const PROBE_USER_AGENT = 'kube-probe/1.32';

/** The most of an answer's body a probe reads (the reference's 10 KiB). */
const MAX_PROBE_BODY = 10 * 1024;

/** A socket error as Go's net package words it, which the reference's probe output carries. */
export function goDialError(err: unknown, hostPort: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return `dial tcp ${hostPort}: connect: connection refused`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${hostPort}: connect: no route to host`;
  if (code === 'ENETUNREACH') return `dial tcp ${hostPort}: connect: network is unreachable`;
  if (code === 'ECONNRESET') return `read tcp ${hostPort}: read: connection reset by peer`;
  if (code === 'ENOTFOUND')
    return `dial tcp: lookup ${hostPort.replace(/:\d+$/, '')}: no such host`;
  return userMessage(err);
}

async function bodyText(body: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    chunks.push(b);
    size += b.length;
    if (size >= MAX_PROBE_BODY) break;
  }
  return Buffer.concat(chunks).subarray(0, MAX_PROBE_BODY).toString('utf8');
}

/** The most redirects an HTTP probe follows (Go's client's). */
const MAX_REDIRECTS = 10;

/**
 * An HTTP GET, as the reference's: a redirect to the same host is followed (10 at most), one to
 * another host is not and is a success with a warning; 200 to 399 succeeds with the body as
 * output, another status fails with "HTTP probe failed with statuscode: <code>", no answer fails
 * with Go's words (`Get "<url>": dial tcp ...`).
 */
async function httpProbe(
  g: NonNullable<Probe['httpGet']>,
  ctx: ProbeContext,
  timeoutMs: number,
): Promise<ProbeResult> {
  const { url, headers } = httpGetRequest(g, ctx.container, ctx.host, PROBE_USER_AGENT);
  // The HTTP client loads with the first HTTP probe: an agent without one never loads it.
  const { request } = await import('../client/undici-core.js');
  const signal = AbortSignal.timeout(timeoutMs);
  let at = url;
  try {
    for (let hops = 0; ; hops++) {
      const res = await request(at, {
        method: 'GET',
        headers,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
      const body = await bodyText(res.body);
      const location = res.headers['location'];
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        const next = new URL(location, at);
        if (next.hostname === new URL(url).hostname) {
          if (hops + 1 >= MAX_REDIRECTS)
            return {
              ok: false,
              output: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects`,
            };
          at = next.href;
          continue;
        }
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, output: body };
      if (res.statusCode >= 300 && res.statusCode < 400)
        return {
          ok: true,
          warning: true,
          output: `Probe terminated redirects, Response body: ${body}`,
        };
      return { ok: false, output: `HTTP probe failed with statuscode: ${res.statusCode}` };
    }
  } catch (err) {
    const timedOut = (err as { name?: unknown } | null)?.name === 'TimeoutError';
    const why = timedOut
      ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
      : goDialError(err, new URL(at).host);
    return { ok: false, output: `Get "${at}": ${why}` };
  }
}

/** A TCP connection: it succeeds when the connection opens (Go's words when it does not). */
function tcpProbe(
  t: NonNullable<Probe['tcpSocket']>,
  ctx: ProbeContext,
  timeoutMs: number,
): Promise<ProbeResult> {
  const port = resolveActionPort(t.port, ctx.container);
  const host = t.host !== undefined && t.host !== '' ? t.host : ctx.host;
  const hostPort = joinHostPort(host, port);
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => {
      s.destroy();
      resolve({ ok: true, output: '' });
    });
    s.once('timeout', () => {
      s.destroy();
      resolve({ ok: false, output: `dial tcp ${hostPort}: i/o timeout` });
    });
    s.once('error', (err) => resolve({ ok: false, output: goDialError(err, hostPort) }));
  });
}

export async function runProbe(probe: Probe, ctx: ProbeContext): Promise<ProbeResult> {
  const timeoutMs = setOr(probe.timeoutSeconds, 1) * 1000;
  if (probe.grpc) {
    const { grpcHealthProbe } = await import('./grpc-probe.js');
    return grpcHealthProbe(
      ctx.host,
      probe.grpc.port,
      probe.grpc.service ?? '',
      timeoutMs,
      ctx.nowMs,
    );
  }
  if (probe.exec) {
    const r = await ctx.runtime.exec(ctx.containerId, probe.exec.command ?? [], timeoutMs);
    return { ok: r.exitCode === 0, output: r.output };
  }
  if (probe.httpGet) return httpProbe(probe.httpGet, ctx, timeoutMs);
  if (probe.tcpSocket) return tcpProbe(probe.tcpSocket, ctx, timeoutMs);
  return { ok: true, output: '' };
}

export class ProbeManager {
  private readonly opts: ProbeManagerOptions;
  private readonly states = new Map<string, ProbeState>();

  constructor(opts: ProbeManagerOptions) {
    this.opts = opts;
  }

  private key(containerId: string, kind: ProbeKind): string {
    return `${containerId}/${kind}`;
  }

  /** Starts the probe loops of a running container (idempotent). */
  ensure(pod: Pod, container: Container, containerId: string, host: string): void {
    const probes: [ProbeKind, Probe | undefined][] = [
      ['startup', container.startupProbe],
      ['liveness', container.livenessProbe],
      ['readiness', container.readinessProbe],
    ];
    for (const [kind, probe] of probes) {
      if (!probe) continue;
      const key = this.key(containerId, kind);
      if (this.states.has(key)) continue;
      const st: ProbeState = {
        abort: new AbortController(),
        podUid: pod.metadata.uid,
        result: undefined,
        successes: 0,
        failures: 0,
      };
      this.states.set(key, st);
      const initContainer = (pod.spec.initContainers ?? []).some((i) => i.name === container.name);
      this.loop(kind, probe, st, { containerId, container, host, pod, initContainer }).catch(
        (err: unknown) =>
          this.opts.logger.error(
            { err: userMessage(err), container: container.name },
            'probe loop failed',
          ),
      );
    }
  }

  private async loop(
    kind: ProbeKind,
    probe: Probe,
    st: ProbeState,
    ctx: {
      containerId: string;
      container: Container;
      host: string;
      pod: Pod;
      initContainer: boolean;
    },
  ): Promise<void> {
    const { clock } = this.opts;
    const signal = st.abort.signal;
    try {
      await clock.sleep((probe.initialDelaySeconds ?? 0) * 1000, signal);
      while (!signal.aborted) {
        // liveness and readiness wait for the startup probe to succeed
        if (
          kind !== 'startup' &&
          this.states.has(this.key(ctx.containerId, 'startup')) &&
          this.startupPassed(ctx.containerId) !== true
        ) {
          await clock.sleep(200, signal);
          continue;
        }
        let r: ProbeResult;
        try {
          r = await runProbe(probe, {
            runtime: this.opts.runtime,
            containerId: ctx.containerId,
            container: ctx.container,
            host: ctx.host,
            nowMs: clock.nowMs(),
          });
        } catch (err) {
          r = { ok: false, output: runtimeWords(err), errored: true };
        }
        // The probe may be stopped while it runs.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) break;
        if (!r.ok || r.warning === true) this.unhealthy(kind, r, ctx);
        this.record(kind, probe, st, r, ctx);
        if (kind === 'startup' && st.result === true) break;
        await clock.sleep(setOr(probe.periodSeconds, 10) * 1000, signal);
      }
    } catch {
      // aborted
    }
  }

  /** The reference's event of a failed attempt (Unhealthy) or a warned success (ProbeWarning). */
  private unhealthy(
    kind: ProbeKind,
    r: ProbeResult,
    ctx: { container: Container; pod: Pod; initContainer?: boolean },
  ): void {
    const warning = r.ok && r.warning === true;
    const what = warning ? 'warning' : r.errored === true ? 'errored' : 'failed';
    this.opts.recordEvent?.({
      pod: ctx.pod,
      fieldPath: containerFieldPath(
        ctx.container.name,
        ctx.initContainer === true ? 'init' : 'app',
      ),
      type: 'Warning',
      reason: warning ? 'ProbeWarning' : 'Unhealthy',
      message: `${PROBE_WORD[kind]} probe ${what}: ${r.output}`,
    });
  }

  private record(
    kind: ProbeKind,
    probe: Probe,
    st: ProbeState,
    r: { ok: boolean; output: string },
    ctx: { container: Container; pod: Pod },
  ): void {
    const before = st.result;
    if (r.ok) {
      st.failures = 0;
      st.successes++;
      if (st.successes >= (kind === 'readiness' ? setOr(probe.successThreshold, 1) : 1))
        st.result = true;
    } else {
      st.successes = 0;
      st.failures++;
      if (st.failures >= setOr(probe.failureThreshold, 3)) st.result = false;
      else if (st.result === undefined && kind === 'readiness') st.result = false;
    }
    if (before !== st.result) {
      const log =
        st.result === false && kind !== 'readiness' ? this.opts.logger.warn : this.opts.logger.info;
      log.call(
        this.opts.logger,
        {
          pod: ctx.pod.metadata.name,
          container: ctx.container.name,
          probe: kind,
          output: r.output.slice(0, 200),
        },
        `${kind} probe ${st.result ? 'succeeded' : 'failed'}`,
      );
      this.opts.onChange(st.podUid);
    }
  }

  private startupPassed(containerId: string): boolean | undefined {
    return this.states.get(this.key(containerId, 'startup'))?.result;
  }

  /** True when the liveness or startup probe has failed past its threshold: restart it. */
  shouldRestart(containerId: string): ProbeKind | undefined {
    if (this.states.get(this.key(containerId, 'startup'))?.result === false) return 'startup';
    if (this.states.get(this.key(containerId, 'liveness'))?.result === false) return 'liveness';
    return undefined;
  }

  /** Started: no startup probe, or it has succeeded (the container status's `started`). */
  started(containerId: string): boolean {
    const startup = this.states.get(this.key(containerId, 'startup'));
    return startup === undefined || startup.result === true;
  }

  /** Ready: no readiness probe, or it has succeeded (and startup has passed). */
  ready(containerId: string): boolean {
    const startup = this.states.get(this.key(containerId, 'startup'));
    if (startup && startup.result !== true) return false;
    const r = this.states.get(this.key(containerId, 'readiness'));
    return r === undefined ? true : r.result === true;
  }

  /** Whether this container has probe loops (started by `ensure`). */
  has(containerId: string): boolean {
    return ['startup', 'liveness', 'readiness'].some((k) => this.states.has(`${containerId}/${k}`));
  }

  stopContainer(containerId: string): void {
    for (const kind of ['startup', 'liveness', 'readiness'] as const) {
      const k = this.key(containerId, kind);
      this.states.get(k)?.abort.abort();
      this.states.delete(k);
    }
  }

  stopPod(podUid: string): void {
    for (const [k, st] of [...this.states.entries()]) {
      if (st.podUid === podUid) {
        st.abort.abort();
        this.states.delete(k);
      }
    }
  }

  stopAll(): void {
    for (const st of this.states.values()) st.abort.abort();
    this.states.clear();
  }
}
