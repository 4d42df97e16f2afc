// Termination messages as the reference's kubelet makes them: before each container instance a
// fresh empty file (mode 0666, so any uid in the container may write it) under
// <root>/pods/<uid>/containers/<name>/<8 hex>, mounted at terminationMessagePath; after the
// container exits, the last 4096 bytes of that file, or, with FallbackToLogsOnError when the file
// is empty and the container failed, the last 80 lines of its log cut to their last 2048 bytes.
// In the pod's status each message is cut to the pod's share of 12 KiB (12288 bytes over all its
// containers, init and ephemeral ones included), as the reference's status manager does.
import { randomBytes } from 'node:crypto';
import { constants, chmod, open } from 'node:fs/promises';
import { errnoCode } from '../../common/util/errno.js';
import { userMessage } from '../../common/util/errors.js';
import { mkdirUnder, pathForWrite } from '../../common/util/safe-path.js';
import {
  terminationMessagePathOf,
  type Container,
  type ContainerState,
  type Pod,
  type PodStatus,
} from '../pod/types.js';
import type { RuntimeContainer } from '../runtime/types.js';

/** The reference's MaxContainerTerminationMessageLength. */
export const MAX_TERMINATION_MESSAGE_BYTES = 4096;
/** The reference's MaxContainerTerminationMessageLogLines and ...LogLength. */
export const MAX_TERMINATION_LOG_LINES = 80;
export const MAX_TERMINATION_LOG_BYTES = 2048;
/** The reference's MaxPodTerminationMessageLogLength: the pod's messages together. */
export const MAX_POD_TERMINATION_MESSAGE_BYTES = 12 * 1024;

/**
 * The first `max` bytes of a message (a character cut in two becomes U+FFFD, as Go's JSON writes
 * it).
 */
function firstBytes(s: string, max: number): string {
  const b = Buffer.from(s, 'utf8');
  return b.length <= max ? s : b.subarray(0, max).toString('utf8');
}

function cutState(state: ContainerState, max: number): ContainerState {
  const t = state.terminated;
  if (t?.message === undefined) return state;
  return { ...state, terminated: { ...t, message: firstBytes(t.message, max) } };
}

/**
 * The reference's normalizeStatus: each terminated message (state and lastState, of every
 * container status list) cut to 12288 bytes divided by the pod's number of containers.
 */
export function limitTerminationMessages(pod: Pod, status: PodStatus): PodStatus {
  const n =
    pod.spec.containers.length +
    (pod.spec.initContainers ?? []).length +
    (pod.spec.ephemeralContainers ?? []).length;
  const max = Math.floor(MAX_POD_TERMINATION_MESSAGE_BYTES / Math.max(1, n));
  const cut = (list: PodStatus['containerStatuses'] | undefined) =>
    list?.map((c) => ({
      ...c,
      state: cutState(c.state, max),
      lastState: cutState(c.lastState, max),
    }));
  const init = cut(status.initContainerStatuses);
  const ephemeral = cut(status.ephemeralContainerStatuses);
  return {
    ...status,
    containerStatuses: cut(status.containerStatuses) ?? [],
    ...(init !== undefined ? { initContainerStatuses: init } : {}),
    ...(ephemeral !== undefined ? { ephemeralContainerStatuses: ephemeral } : {}),
  };
}

/** A new empty file for one container instance; undefined when the container has no path. */
export async function prepareTerminationMessageFile(
  rootDir: string,
  pod: Pod,
  c: Container,
): Promise<string | undefined> {
  if (terminationMessagePathOf(c) === '') return undefined;
  const segments = ['pods', pod.metadata.uid, 'containers', c.name];
  await mkdirUnder(rootDir, segments, 0o750);
  const path = await pathForWrite(rootDir, ...segments, randomBytes(4).toString('hex'));
  const fh = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o666);
  await fh.close();
  // the umask narrowed the mode open gave it
  await chmod(path, 0o666);
  return path;
}

/** The last `max` bytes of a file; undefined when it does not exist. */
async function readTail(path: string, max: number): Promise<Buffer | undefined> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    const length = Math.min(size, max);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, size - length);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The last 80 lines of a log, cut to their last 2048 bytes (the reference's circular buffer). */
export function logTailMessage(log: string): string {
  const lines = log.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const tail = lines.slice(-MAX_TERMINATION_LOG_LINES).map((l) => `${l}\n`);
  let text = Buffer.from(tail.join(''));
  // a log without a final newline ends without one here too
  if (!log.endsWith('\n') && text.length > 0) text = text.subarray(0, text.length - 1);
  return text.subarray(Math.max(0, text.length - MAX_TERMINATION_LOG_BYTES)).toString('utf8');
}

export interface TerminationMessageInput {
  container: Container;
  instance: RuntimeContainer;
  /** The container's log (tail lines given), for FallbackToLogsOnError. */
  logs: (tailLines: number) => Promise<string>;
}

/**
 * The message of an exited container: its file's text, or its log's tail when the policy says so.
 */
export async function terminationMessage(inp: TerminationMessageInput): Promise<string> {
  const { container: c, instance } = inp;
  const fallback =
    c.terminationMessagePolicy === 'FallbackToLogsOnError' &&
    (instance.exitCode ?? 0) !== 0 &&
    instance.reason !== 'ContainerCannotRun';
  let fromFile = '';
  const file = instance.terminationMessageFile;
  if (file !== undefined && terminationMessagePathOf(c) !== '') {
    try {
      fromFile = (await readTail(file, MAX_TERMINATION_MESSAGE_BYTES))?.toString('utf8') ?? '';
    } catch (err) {
      return `Error on reading termination log ${file}: ${userMessage(err)}`;
    }
  }
  if (fromFile !== '' || !fallback) return fromFile;
  try {
    return logTailMessage(await inp.logs(MAX_TERMINATION_LOG_LINES));
  } catch (err) {
    return `Error on reading termination message from logs: ${userMessage(err)}`;
  }
}

/**
 * The messages of a pod's exited containers, read once per container instance (an exited
 * container does not change) and kept until the instance or the pod is gone.
 */
export class TerminationMessages {
  private readonly byPod = new Map<string, Map<string, string>>();

  /** The containers with `message` set as the reference's status has it (the runtime's first). */
  async fill(
    pod: Pod,
    containers: RuntimeContainer[],
    logs: (id: string, tailLines: number) => Promise<string>,
  ): Promise<RuntimeContainer[]> {
    const cache = this.byPod.get(pod.metadata.uid) ?? new Map<string, string>();
    this.byPod.set(pod.metadata.uid, cache);
    const specs = [
      ...(pod.spec.initContainers ?? []),
      ...pod.spec.containers,
      ...(pod.spec.ephemeralContainers ?? []),
    ];
    const out: RuntimeContainer[] = [];
    for (const c of containers) {
      const spec = specs.find((s) => s.name === c.name);
      if (c.kind === 'sandbox' || c.state !== 'exited' || spec === undefined) {
        out.push(c);
        continue;
      }
      let msg = cache.get(c.id);
      if (msg === undefined) {
        msg = await terminationMessage({
          container: spec,
          instance: c,
          logs: (n) => logs(c.id, n),
        });
        cache.set(c.id, msg);
      }
      const joined = [c.message, msg].filter((m) => m !== undefined && m !== '').join(': ');
      out.push(joined === '' ? c : { ...c, message: joined });
    }
    const live = new Set(containers.map((c) => c.id));
    for (const id of cache.keys()) if (!live.has(id)) cache.delete(id);
    return out;
  }

  forget(uid: string): void {
    this.byPod.delete(uid);
  }
}
