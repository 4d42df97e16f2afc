// An in-memory runtime for fast worker tests: containers "run" until the test ends them.
import type { Clock } from '../../../../src/common/util/clock.js';
import type {
  ContainerConfig,
  ContainerEventListener,
  ContainerRuntime,
  ExecResult,
  ImageInfo,
  ImageService,
  RuntimeContainer,
  SandboxConfig,
} from '../../../../src/agent/runtime/types.js';
import type { EnsuredImage } from '../../../../src/agent/runtime/types.js';
import { ensureImageWith } from '../../../../src/agent/runtime/ensure-image.js';

export class FakeRuntime implements ContainerRuntime, ImageService {
  type: 'process' | 'docker' = 'process';
  readonly containers = new Map<string, RuntimeContainer & { command: string[] }>();
  readonly listeners: ContainerEventListener[] = [];
  readonly stops: { id: string; grace: number }[] = [];
  readonly images = new Map<string, ImageInfo>();
  /** Exit code a started container exits with at once (by container name), if any. */
  readonly exitAtStart = new Map<string, number>();
  failPulls = false;
  private n = 0;
  constructor(private readonly clock: Clock) {}

  version() {
    return Promise.resolve({ runtimeName: 'fake', runtimeVersion: '1', runtimeApiVersion: '1' });
  }
  /** Every sandbox config run, in order. */
  readonly sandboxes: SandboxConfig[] = [];
  async runPodSandbox(cfg: SandboxConfig): Promise<string> {
    this.sandboxes.push(cfg);
    const id = `sb${++this.n}`;
    const now = this.clock.nowMs();
    this.containers.set(id, {
      id,
      podUid: cfg.pod.metadata.uid,
      podName: cfg.pod.metadata.name,
      podNamespace: cfg.pod.metadata.namespace,
      name: '',
      kind: 'sandbox',
      attempt: cfg.attempt,
      specHash: '',
      image: '',
      imageId: '',
      state: 'running',
      createdAtMs: now,
      startedAtMs: now,
      ip: '127.0.0.1',
      command: [],
    });
    return id;
  }
  async stopPodSandbox(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (c) c.state = 'exited';
  }
  async removePodSandbox(id: string): Promise<void> {
    this.containers.delete(id);
  }
  /** Every container config created, in order. */
  readonly created: ContainerConfig[] = [];
  async createContainer(cfg: ContainerConfig): Promise<string> {
    this.created.push(cfg);
    const id = `c${++this.n}`;
    this.containers.set(id, {
      ...(cfg.terminationMessageFile !== undefined
        ? { terminationMessageFile: cfg.terminationMessageFile }
        : {}),
      id,
      podUid: cfg.pod.metadata.uid,
      podName: cfg.pod.metadata.name,
      podNamespace: cfg.pod.metadata.namespace,
      name: cfg.container.name,
      kind: cfg.kind,
      attempt: cfg.attempt,
      specHash: cfg.specHash,
      image: cfg.container.image ?? '',
      imageId: '',
      state: 'created',
      createdAtMs: this.clock.nowMs(),
      sandboxId: cfg.sandboxId,
      command: cfg.container.command ?? [],
    });
    return id;
  }
  async startContainer(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (!c) throw new Error('no such container');
    c.state = 'running';
    c.startedAtMs = this.clock.nowMs();
    const code = this.exitAtStart.get(c.name);
    if (code !== undefined) this.exit(id, code);
  }
  async stopContainer(id: string, grace: number): Promise<void> {
    this.stops.push({ id, grace });
    const c = this.containers.get(id);
    if (c && c.state === 'running') {
      c.state = 'exited';
      c.exitCode = 137;
      c.finishedAtMs = this.clock.nowMs();
    }
  }
  async removeContainer(id: string): Promise<void> {
    this.containers.delete(id);
  }
  async listContainers(filter?: { podUid?: string }): Promise<RuntimeContainer[]> {
    return [...this.containers.values()]
      .filter((c) => filter?.podUid === undefined || c.podUid === filter.podUid)
      .map((c) => ({ ...c }));
  }
  /** Each container's output by container name (all lines). */
  readonly output = new Map<string, string>();
  async logs(id: string, opts?: { tailLines?: number }): Promise<string> {
    const text = this.output.get(this.containers.get(id)?.name ?? '') ?? '';
    if (opts?.tailLines === undefined) return text;
    const lines = text.split('\n');
    const last = lines.at(-1) === '' ? lines.slice(0, -1) : lines;
    return last.slice(-opts.tailLines).join('\n') + (text.endsWith('\n') ? '\n' : '');
  }
  /** Exit code of exec calls by the command's first word (default 0). */
  readonly execExit = new Map<string, number>();
  readonly execCalls: string[] = [];
  /** Every exec with its container and the container's state at that moment. */
  readonly execLog: { id: string; command: string[]; state: string | undefined }[] = [];
  /** Output of exec calls by the command's first word. */
  readonly execOutput = new Map<string, string>();
  async exec(id: string, command: readonly string[]): Promise<ExecResult> {
    const word = command[0] ?? '';
    this.execCalls.push(word);
    this.execLog.push({ id, command: [...command], state: this.containers.get(id)?.state });
    return { exitCode: this.execExit.get(word) ?? 0, output: this.execOutput.get(word) ?? '' };
  }
  onEvent(l: ContainerEventListener): void {
    this.listeners.push(l);
  }
  async close(): Promise<void> {}

  /** Ends a running container with an exit code, as if its process quit. */
  exit(id: string, code: number): void {
    const c = this.containers.get(id);
    if (!c || c.state !== 'running') return;
    c.state = 'exited';
    c.exitCode = code;
    c.reason = code === 0 ? 'Completed' : 'Error';
    c.finishedAtMs = this.clock.nowMs();
    for (const l of this.listeners) l({ podUid: c.podUid, containerId: id, type: 'exited' });
  }

  running(name: string): (RuntimeContainer & { command: string[] }) | undefined {
    return [...this.containers.values()].find((c) => c.name === name && c.state === 'running');
  }
  instances(name: string): RuntimeContainer[] {
    return [...this.containers.values()].filter((c) => c.name === name);
  }

  /** Images pulled so far (an image not here is pulled, as by a runtime that does not have it). */
  readonly pulled = new Set<string>();
  ensureImage(
    image: string,
    policy: 'Always' | 'IfNotPresent' | 'Never',
    _credentials?: unknown,
    onPulling?: () => void,
  ): Promise<EnsuredImage> {
    const store = {
      inspect: (i: string) =>
        Promise.resolve(this.pulled.has(i) ? { id: `sha256:${i}`, sizeBytes: 0 } : undefined),
      pull: (i: string) => {
        if (this.failPulls) return Promise.reject(new Error('no registry'));
        this.pulled.add(i);
        return Promise.resolve(0);
      },
    };
    return ensureImageWith(store, image, policy, [], onPulling);
  }
  async listImages(): Promise<ImageInfo[]> {
    return [...this.images.values()];
  }
  async removeImage(id: string): Promise<void> {
    this.images.delete(id);
  }
  fsInfo: { capacityBytes: number; usedBytes: number } | undefined;
  async imageFsInfo() {
    return this.fsInfo;
  }
}
