// postStart and preStop handlers (exec, httpGet, sleep) as the reference's handler runner runs
// them: an exec hook fails on a non-zero exit, an httpGet hook only when no answer comes (any
// status code passes), a sleep hook when the container goes before it ends. A failure carries
// the reference's message, which goes into the container's waiting state (postStart) or the
// log, never into the event (it may hold secrets).
import type { Clock } from '../../common/util/clock.js';
import { userMessage } from '../../common/util/errors.js';
import type { Container, LifecycleHandler, Pod } from '../pod/types.js';
import type { ContainerRuntime } from '../runtime/types.js';
import { httpGetRequest } from './http-get-request.js';

/**
 * What the reference's kubelet sends as User-Agent of a lifecycle hook
 * (kube-<purpose>/<major>.<minor>).
 */
export const LIFECYCLE_USER_AGENT = 'kube-lifecycle/1.32';

/** The most of an answer's body read before the connection is let go (the reference's 10 KiB). */
const MAX_BODY_BYTES = 10 * 1024;

export interface HookContext {
  runtime: Pick<ContainerRuntime, 'exec'>;
  clock: Clock;
  pod: Pod;
  container: Container;
  containerId: string;
  /** The pod's IP: where an httpGet without a host goes. */
  podIP: string | undefined;
  /** Ends the hook early: the container is being stopped, or the pod's work is abandoned. */
  signal: AbortSignal;
  /** How long an exec hook may run (ms); the reference sets no limit of its own. */
  execTimeoutMs: number;
  /** Warnings the hook raises besides its result (LifecycleHTTPFallback). */
  warn?: (reason: string, message: string) => void;
}

/** `undefined` when the hook succeeded; otherwise the reference's message. */
export type HookOutcome = string | undefined;

/** The reference's format.Pod: name_namespace(uid). */
export function podDescription(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

/** Go's %v of a []string: the words between brackets, separated by spaces. */
function goList(words: readonly string[]): string {
  return `[${words.join(' ')}]`;
}

async function runExecHook(command: string[], ctx: HookContext): Promise<HookOutcome> {
  let result: { exitCode: number; output: string };
  let err: string;
  try {
    result = await ctx.runtime.exec(ctx.containerId, command, ctx.execTimeoutMs);
    if (result.exitCode === 0) return undefined;
    err = `command '${command.join(' ')}' exited with ${result.exitCode}: ${result.output}`;
  } catch (e) {
    result = { exitCode: -1, output: '' };
    err = userMessage(e);
  }
  return (
    `Exec lifecycle hook (${goList(command)}) for Container "${ctx.container.name}" in ` +
    `Pod "${podDescription(ctx.pod)}" failed - error: ${err}, message: ` +
    JSON.stringify(result.output)
  );
}

/**
 * The URL and headers of an httpGet hook, as the reference's NewRequestForHTTPGetAction builds
 * them.
 */
export function hookRequest(
  get: NonNullable<LifecycleHandler['httpGet']>,
  container: Container,
  podIP: string,
): { url: string; headers: Record<string, string> } {
  return httpGetRequest(get, container, podIP, LIFECYCLE_USER_AGENT);
}

async function getOnce(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  // The HTTP client loads with the first httpGet hook or probe.
  const { request } = await import('../client/undici-core.js');
  const res = await request(url, { method: 'GET', headers, signal });
  let read = 0;
  for await (const chunk of res.body) {
    read += (chunk as Buffer).length;
    if (read > MAX_BODY_BYTES) break;
  }
  res.body.destroy();
}

/** An HTTPS hook answered in plain HTTP is tried again over HTTP, without Authorization. */
function isPlainHttpAnswer(err: unknown): boolean {
  const text = userMessage(err);
  return /wrong version number|packet length too long|http response to https/i.test(text);
}

async function runHttpHook(
  get: NonNullable<LifecycleHandler['httpGet']>,
  ctx: HookContext,
): Promise<HookOutcome> {
  const fail = (err: string): string =>
    `HTTP lifecycle hook (${get.path ?? ''}) for Container "${ctx.container.name}" in ` +
    `Pod "${podDescription(ctx.pod)}" failed - error: ${err}`;
  if ((get.host === undefined || get.host === '') && ctx.podIP === undefined)
    return fail('failed to find networking container: the pod has no IP address');
  let req: { url: string; headers: Record<string, string> };
  try {
    req = hookRequest(get, ctx.container, ctx.podIP ?? '');
  } catch (err) {
    return fail(userMessage(err));
  }
  try {
    await getOnce(req.url, req.headers, ctx.signal);
    return undefined;
  } catch (err) {
    if (!req.url.startsWith('https:') || !isPlainHttpAnswer(err)) return fail(userMessage(err));
    const plain = req.url.replace(/^https:/, 'http:');
    const headers = { ...req.headers };
    delete headers.authorization;
    try {
      await getOnce(plain, headers, ctx.signal);
    } catch {
      return fail(userMessage(err));
    }
    ctx.warn?.(
      'LifecycleHTTPFallback',
      `request to HTTPS lifecycle hook ${new URL(plain).host} got HTTP response, retry ` +
        `with HTTP succeeded`,
    );
    return undefined;
  }
}

async function runSleepHook(seconds: number, ctx: HookContext): Promise<HookOutcome> {
  try {
    await ctx.clock.sleep(seconds * 1000, ctx.signal);
    return undefined;
  } catch {
    return (
      `Sleep lifecycle hook (${seconds}) for Container "${ctx.container.name}" in Pod "` +
      `${podDescription(ctx.pod)}" failed - error: container terminated before sleep hook ` +
      `finished`
    );
  }
}

/** Runs one handler; the reference's message when it failed. */
export async function runLifecycleHook(
  handler: LifecycleHandler,
  ctx: HookContext,
): Promise<HookOutcome> {
  if (handler.exec) return runExecHook(handler.exec.command ?? [], ctx);
  if (handler.httpGet) return runHttpHook(handler.httpGet, ctx);
  if (handler.sleep) return runSleepHook(handler.sleep.seconds, ctx);
  // tcpSocket is accepted by the API for old objects but never run, as in the reference
  return `Cannot run handler: invalid handler: ${JSON.stringify(handler)}`;
}
