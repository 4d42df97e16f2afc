// The process:// runtime: every container is a host process (no isolation, no image). A small
// sh wrapper records the exit status in a file, so an agent that restarts can still learn how
// a process it did not spawn ended. State lives under <rootDir>/process-runtime so a restarted
// agent re-adopts running processes (pid + start time guard against pid reuse).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import {
  openSync,
  closeSync,
  constants as fsConstants,
  fchmodSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { chmod, mkdir, readFile, readdir, stat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { connect } from 'node:net';
import { PassThrough, type Duplex } from 'node:stream';
import { afterMs, everyMs, type Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { RuntimeError, userMessage } from '../../../common/util/errors.js';
import type {
  AttachOptions,
  ContainerConfig,
  ContainerEventListener,
  ContainerRuntime,
  ContainerStats,
  ExecResult,
  ExecSession,
  ImageInfo,
  EnsuredImage,
  ImageService,
  RuntimeContainer,
  RuntimeVersion,
  SandboxConfig,
  TimedLogLine,
} from '../types.js';
import { checkRuntimeHandler, PROCESS_HANDLERS } from '../runtime-handler.js';
import { writeFileAtomic } from '../../../common/util/atomic-file.js';
import {
  checkWritableUnder,
  joinUnder,
  mkdirUnder,
  pathForWrite,
  pathSegmentProblem,
  rmUnder,
} from '../../../common/util/safe-path.js';
import { plainEnvironment } from '../../pod/expand.js';
import type { PodRuntimeSettings } from '../settings/container-settings.js';
import { RESOLV_CONF_ENV } from '../settings/pod-dns-file.js';
import { isSameProcessAlive, processStartTicks, processTree, treeUsage } from './proc.js';
import { spawnOnPty } from './pty-exec.js';
import type { Container, Pod } from '../../pod/types.js';
import { readHostUsers } from '../security/host-users.js';
import {
  processIdentity,
  withIdentity,
  type ProcessIdentity,
} from '../security/process-identity.js';
import { attachToProcess } from './attach.js';
import { LogTimes, timedLines } from './log-times.js';

export interface ProcessRuntimeOptions {
  rootDir: string;
  logger: Logger;
  clock: Clock;
  /** How often processes the agent did not spawn itself are checked for exit. Default 1000 ms. */
  pollIntervalMs?: number;
  /**
   * Observe another agent's state without ever writing it (tests, tools). A second writer on the
   * same state dir could write back a record the agent has just removed.
   */
  readOnly?: boolean;
  /**
   * The pod's resolv.conf (its path goes into NODEAGENT_RESOLV_CONF); other settings need isolation
   * process:// lacks.
   */
  podSettings?: PodRuntimeSettings;
}

interface ProcessRecord extends RuntimeContainer {
  command: string[];
  /** The pod cgroup the process joins (--cgroups-per-qos). */
  cgroup?: string;
  /**
   * runAsUser, runAsGroup, the pod's groups, no_new_privs (setpriv; the agent must be root to
   * switch).
   */
  identity?: ProcessIdentity;
  env: Record<string, string>;
  workingDir?: string;
  logFile: string;
  /** Byte range of this instance's output in the (shared, appended) log file. */
  logStart?: number;
  logEnd?: number;
  pid?: number;
  startTicks?: string;
  /** spec stdin / stdinOnce: the process gets a stdin pipe this agent holds (for attach). */
  stdin?: boolean;
  stdinOnce?: boolean;
}

// $1: exit file; the rest: the command. SIGTERM is forwarded; the status is written atomically.
// The command gets the wrapper's stdin through fd 3: sh gives a background command /dev/null.
const WRAPPER =
  'f=$1; shift; exec 3<&0; "$@" <&3 3<&- & c=$!; exec 3<&-; trap \'kill -TERM $c ' +
  "2>/dev/null' TERM; wait $c; s=$?; " +
  'while kill -0 $c 2>/dev/null; do wait $c; s=$?; done; echo $s > "$f.tmp" && mv "$f.tmp" "$f"';

const STATE_DIR = ['process-runtime', 'containers'] as const;

/** kill(2) on a process (pid) or a process group (-pgid) that may already be gone. */
function signalProcess(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // already gone
  }
}

// Modes, whatever the umask: state files hold pod data (env values), so they and their dirs are
// private; the root and pod dirs as the reference's MkdirAll(..., 0750); container logs 0640.
const STATE_FILE_MODE = 0o600;
const STATE_DIR_MODE = 0o700;
const POD_DIR_MODE = 0o750;
const LOG_FILE_MODE = 0o640;

/**
 * What listContainers hands out of a record: the RuntimeContainer fields only, in one fixed shape
 * (an object rest copy of the record builds each copy property by property: housekeeping, GC and
 * eviction list every container several times a minute).
 */
function publicView(r: ProcessRecord): RuntimeContainer {
  const v: RuntimeContainer = {
    id: r.id,
    podUid: r.podUid,
    podName: r.podName,
    podNamespace: r.podNamespace,
    name: r.name,
    kind: r.kind,
    attempt: r.attempt,
    specHash: r.specHash,
    image: r.image,
    imageId: r.imageId,
    state: r.state,
    createdAtMs: r.createdAtMs,
  };
  if (r.exitCode !== undefined) v.exitCode = r.exitCode;
  if (r.reason !== undefined) v.reason = r.reason;
  if (r.startedAtMs !== undefined) v.startedAtMs = r.startedAtMs;
  if (r.finishedAtMs !== undefined) v.finishedAtMs = r.finishedAtMs;
  if (r.sandboxId !== undefined) v.sandboxId = r.sandboxId;
  if (r.ip !== undefined) v.ip = r.ip;
  if (r.terminationMessageFile !== undefined) v.terminationMessageFile = r.terminationMessageFile;
  return v;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The env var naming the host file a process:// container writes its termination message to
 * (what terminationMessagePath is in a container: a host process cannot have /dev/termination-log).
 */
export const TERMINATION_MESSAGE_ENV = 'NODEAGENT_TERMINATION_MESSAGE_PATH';

/** The env var holding the standalone pod CIDR (--pod-cidr) for process:// containers. */
export const POD_CIDR_ENV = 'NODEAGENT_POD_CIDR';

/**
 * `base` and then the container's variables, as own entries: no name, not even __proto__, reaches a
 * setter.
 */
function withVariables(
  base: Record<string, string>,
  vars: readonly { name: string; value: string }[],
): Record<string, string> {
  const entries: [string, string][] = [
    ...Object.entries(base),
    ...vars.map((e): [string, string] => [e.name, e.value]),
  ];
  return Object.fromEntries(entries);
}

export class ProcessRuntime implements ContainerRuntime, ImageService {
  readonly type = 'process' as const;
  private podCIDR: string | undefined;
  private readonly opts: ProcessRuntimeOptions;
  private readonly records = new Map<string, ProcessRecord>();
  private readonly listeners: ContainerEventListener[] = [];
  private readonly spawned = new Set<string>();
  /** When each container's log bytes appeared (sinceSeconds, sinceTime, timestamps). */
  private readonly logTimes = new Map<string, LogTimes>();
  private saidAdoptedTimes = false;
  private readonly exitWaiters = new Map<string, (() => void)[]>();
  private readonly writes = new Map<string, Promise<void>>();
  /** Stdin pipes of running containers with spec stdin (lost when the agent restarts). */
  private readonly stdins = new Map<string, NodeJS.WritableStream>();
  private stopPoll: (() => void) | undefined;
  private loaded: Promise<void> | undefined;
  private closed = false;

  constructor(opts: ProcessRuntimeOptions) {
    this.opts = opts;
  }

  /** `<rootDir>/process-runtime/containers/<id>.<ext>`; throws UnsafePathError for a bad id. */
  private stateFile(id: string, ext: 'json' | 'exit'): string {
    return joinUnder(this.opts.rootDir, ...STATE_DIR, `${id}.${ext}`);
  }

  private logFileOf(podUid: string, container: string): string {
    return joinUnder(this.opts.rootDir, 'pods', podUid, `${container}.log`);
  }

  /** Why a state file's record cannot be trusted, or undefined (it names only its own paths). */
  private recordProblem(
    rec: Readonly<Partial<Record<keyof ProcessRecord, unknown>>> | null,
    file: string,
  ): string | undefined {
    if (
      typeof rec !== 'object' ||
      rec === null ||
      typeof rec.id !== 'string' ||
      `${rec.id}.json` !== file
    )
      return 'its id does not match the file name';
    const uidProblem =
      typeof rec.podUid === 'string' ? pathSegmentProblem(rec.podUid) : 'is missing';
    if (uidProblem !== undefined) return `pod UID ${uidProblem}`;
    if (rec.kind === 'sandbox') return rec.logFile === '' ? undefined : 'a sandbox has no log file';
    const nameProblem =
      typeof rec.name === 'string' ? pathSegmentProblem(`${rec.name}.log`) : 'is missing';
    if (nameProblem !== undefined) return `container name ${nameProblem}`;
    // podUid and name are strings here (checked above); said again so the types follow
    if (
      typeof rec.logFile !== 'string' ||
      typeof rec.podUid !== 'string' ||
      typeof rec.name !== 'string' ||
      resolve(rec.logFile) !== this.logFileOf(rec.podUid, rec.name)
    )
      return `log file ${JSON.stringify(rec.logFile)} is not the container's own`;
    return undefined;
  }

  /**
   * The root dir and the pods dir as the reference makes them (0750), the runtime's state dirs
   * private (0700, also when they exist with a wider mode): modes set here, whatever the umask.
   */
  private async makeDirs(): Promise<string> {
    await mkdir(this.opts.rootDir, { recursive: true, mode: POD_DIR_MODE });
    await mkdirUnder(this.opts.rootDir, ['pods'], POD_DIR_MODE);
    const stateDir = await mkdirUnder(this.opts.rootDir, STATE_DIR, STATE_DIR_MODE);
    if (!this.opts.readOnly) {
      await chmod(joinUnder(this.opts.rootDir, STATE_DIR[0]), STATE_DIR_MODE);
      await chmod(stateDir, STATE_DIR_MODE);
    }
    return stateDir;
  }

  /** Loads persisted state once (adopting running processes) and starts the exit poller. */
  private ensureLoaded(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  private async load(): Promise<void> {
    const stateDir = await this.makeDirs();
    for (const f of await readdir(stateDir)) {
      if (!f.endsWith('.json')) continue;
      try {
        // state files hold pod data (env values): private, also when an older version wrote them
        if (!this.opts.readOnly) await chmod(joinUnder(stateDir, f), STATE_FILE_MODE);
        const rec = JSON.parse(await readFile(joinUnder(stateDir, f), 'utf8')) as ProcessRecord;
        const problem = this.recordProblem(rec, f);
        if (problem !== undefined)
          throw new RuntimeError(`state file ${f}: ${problem}; not adopted`);
        if (rec.kind !== 'sandbox') rec.logFile = this.logFileOf(rec.podUid, rec.name);
        this.records.set(rec.id, rec);
        if (rec.state === 'running' && rec.kind !== 'sandbox' && !this.checkExited(rec))
          this.watchLogTimes(rec);
      } catch (err) {
        this.opts.logger.warn(
          { file: f, err: userMessage(err) },
          'process runtime: unreadable state file skipped',
        );
      }
    }
    const adopted = [...this.records.values()].filter(
      (r) => r.state === 'running' && r.kind !== 'sandbox',
    ).length;
    if (adopted > 0)
      this.opts.logger.info(
        { adopted },
        'process runtime: adopted running processes from a previous agent',
      );
    this.stopPoll = everyMs(
      this.opts.clock,
      this.opts.pollIntervalMs ?? 1000,
      () => this.pollAdopted(),
      { unref: true },
    );
  }

  private pollAdopted(): void {
    for (const rec of this.records.values()) {
      if (rec.state === 'running' && rec.kind !== 'sandbox' && !this.spawned.has(rec.id))
        this.checkExited(rec);
    }
  }

  /** Marks the record exited if its process is gone; returns true when it is. */
  private checkExited(rec: ProcessRecord, fallbackExit?: number): boolean {
    if (
      rec.pid !== undefined &&
      rec.startTicks !== undefined &&
      isSameProcessAlive(rec.pid, rec.startTicks)
    )
      return false;
    let exitCode = fallbackExit ?? 255;
    try {
      exitCode = Number(readFileSync(this.stateFile(rec.id, 'exit'), 'utf8').trim());
    } catch {
      // killed with the wrapper (SIGKILL) or the machine rebooted: no status file
    }
    rec.state = 'exited';
    rec.exitCode = exitCode;
    rec.reason = exitCode === 0 ? 'Completed' : 'Error';
    rec.finishedAtMs = this.opts.clock.nowMs();
    rec.logEnd = fileSize(rec.logFile);
    this.logTimes.get(rec.id)?.mark(rec.logEnd, rec.finishedAtMs);
    this.logTimes.get(rec.id)?.stop();
    delete rec.pid;
    void this.persist(rec);
    for (const w of this.exitWaiters.get(rec.id) ?? []) w();
    this.exitWaiters.delete(rec.id);
    for (const l of this.listeners) l({ podUid: rec.podUid, containerId: rec.id, type: 'exited' });
    return true;
  }

  /** Writes of one record are chained, so a late write never resurrects a removed record. */
  private persist(rec: ProcessRecord): Promise<void> {
    if (this.opts.readOnly) return Promise.resolve();
    const prev = this.writes.get(rec.id) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        if (this.records.get(rec.id) !== rec || this.closed) return;
        await writeFileAtomic(this.stateFile(rec.id, 'json'), JSON.stringify(rec), {
          mode: STATE_FILE_MODE,
        });
      })
      .catch((err: unknown) =>
        this.opts.logger.error(
          { id: rec.id, err: userMessage(err) },
          'process runtime: could not persist container state',
        ),
      );
    this.writes.set(rec.id, next);
    void next.finally(() => {
      if (this.writes.get(rec.id) === next) this.writes.delete(rec.id);
    });
    return next;
  }

  private async unpersist(id: string): Promise<void> {
    await this.writes.get(id);
    await unlink(this.stateFile(id, 'json')).catch(() => undefined);
    await unlink(this.stateFile(id, 'exit')).catch(() => undefined);
  }

  private get(id: string): ProcessRecord {
    const rec = this.records.get(id);
    if (!rec) throw new RuntimeError(`process runtime: no container ${id}`);
    return rec;
  }

  async version(): Promise<RuntimeVersion> {
    await this.ensureLoaded();
    return { runtimeName: 'process', runtimeVersion: process.version, runtimeApiVersion: 'v1' };
  }

  async runPodSandbox(cfg: SandboxConfig): Promise<string> {
    checkRuntimeHandler(cfg.runtimeHandler, PROCESS_HANDLERS);
    await this.ensureLoaded();
    const pod = cfg.pod;
    await mkdirUnder(this.opts.rootDir, ['pods', pod.metadata.uid], POD_DIR_MODE);
    await this.opts.podSettings?.dns?.write(pod);
    const id = `sb-${randomBytes(8).toString('hex')}`;
    const now = this.opts.clock.nowMs();
    const rec: ProcessRecord = {
      id,
      podUid: pod.metadata.uid,
      podName: pod.metadata.name,
      podNamespace: pod.metadata.namespace,
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
      env: {},
      logFile: '',
    };
    this.records.set(id, rec);
    await this.persist(rec);
    return id;
  }

  async stopPodSandbox(id: string): Promise<void> {
    await this.ensureLoaded();
    const rec = this.records.get(id);
    if (!rec || rec.state === 'exited') return;
    rec.state = 'exited';
    rec.exitCode = 0;
    rec.finishedAtMs = this.opts.clock.nowMs();
    void this.persist(rec);
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.ensureLoaded();
    const rec = this.records.get(id);
    if (!rec) return;
    this.records.delete(id);
    await this.unpersist(id);
    const others = [...this.records.values()].some((r) => r.podUid === rec.podUid);
    if (!others) await rmUnder(this.opts.rootDir, ['pods', rec.podUid]);
  }

  /**
   * Standalone --pod-cidr: process:// pods share the host's network, so the subnet cannot be
   * given to them as addresses; each process gets it in NODEAGENT_POD_CIDR.
   */
  updatePodCIDR(podCIDR: string): void {
    this.podCIDR = podCIDR;
  }

  /** Who the container runs as; throws ContainerConfigError (runAsNonRoot, a non-root agent). */
  private identityOf(pod: Pod, c: Container): ProcessIdentity {
    return processIdentity(pod, c, {
      agentUid: process.getuid?.() ?? 0,
      agentGid: process.getgid?.() ?? 0,
      users: readHostUsers(),
    });
  }

  async createContainer(cfg: ContainerConfig): Promise<string> {
    await this.ensureLoaded();
    const c = cfg.container;
    const expanded = cfg.environment ?? plainEnvironment(c);
    const command = [...(expanded.command ?? []), ...(expanded.args ?? [])];
    if (command.length === 0)
      throw new RuntimeError(`container "${c.name}": the process:// runtime needs a command`);
    const env: Record<string, string> = {};
    for (const k of ['PATH', 'HOME', 'LANG', 'TZ']) {
      const v = process.env[k];
      if (v !== undefined) env[k] = v;
    }
    env.HOSTNAME = cfg.pod.metadata.name;
    const dns = this.opts.podSettings?.dns;
    if (dns !== undefined) env[RESOLV_CONF_ENV] = dns.pathOf(cfg.pod);
    if (this.podCIDR !== undefined) env[POD_CIDR_ENV] = this.podCIDR;
    if (cfg.terminationMessageFile !== undefined)
      env[TERMINATION_MESSAGE_ENV] = cfg.terminationMessageFile;
    const withContainer = withVariables(env, expanded.env);
    await mkdirUnder(this.opts.rootDir, ['pods', cfg.pod.metadata.uid], POD_DIR_MODE);
    const logFile = await pathForWrite(
      this.opts.rootDir,
      'pods',
      cfg.pod.metadata.uid,
      `${c.name}.log`,
    );
    const id = randomBytes(16).toString('hex');
    const rec: ProcessRecord = {
      id,
      podUid: cfg.pod.metadata.uid,
      podName: cfg.pod.metadata.name,
      podNamespace: cfg.pod.metadata.namespace,
      name: c.name,
      kind: cfg.kind,
      attempt: cfg.attempt,
      specHash: cfg.specHash,
      image: c.image ?? '',
      imageId: '',
      state: 'created',
      createdAtMs: this.opts.clock.nowMs(),
      command,
      env: withContainer,
      logFile,
      sandboxId: cfg.sandboxId,
      ...(cfg.terminationMessageFile !== undefined
        ? { terminationMessageFile: cfg.terminationMessageFile }
        : {}),
      identity: this.identityOf(cfg.pod, c),
      ...(c.workingDir !== undefined ? { workingDir: c.workingDir } : {}),
      ...(c.stdin === true ? { stdin: true, stdinOnce: c.stdinOnce === true } : {}),
      ...this.podCgroupOf(cfg.pod),
    };
    this.records.set(id, rec);
    await this.persist(rec);
    return id;
  }

  async startContainer(id: string): Promise<void> {
    await this.ensureLoaded();
    const rec = this.get(id);
    if (rec.state !== 'created')
      throw new RuntimeError(`process runtime: container ${id} is ${rec.state}, not created`);
    await this.checkWorkingDir(rec);
    const exitFile = this.stateFile(id, 'exit');
    await unlink(exitFile).catch(() => undefined);
    await checkWritableUnder(this.opts.rootDir, rec.logFile);
    rec.logStart = fileSize(rec.logFile);
    // O_NOFOLLOW: a log file replaced by a symbolic link is refused, never written through
    const fd = openSync(
      rec.logFile,
      fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW,
      LOG_FILE_MODE,
    );
    if (!this.opts.readOnly) fchmodSync(fd, LOG_FILE_MODE);
    let child;
    try {
      const command = withIdentity(rec.identity, rec.command);
      child = spawn('/bin/sh', ['-c', WRAPPER, 'nodeagent-process', exitFile, ...command], {
        detached: true,
        stdio: [rec.stdin === true ? 'pipe' : 'ignore', fd, fd],
        env: rec.env,
        ...(rec.workingDir !== undefined ? { cwd: rec.workingDir } : {}),
      });
    } catch (err) {
      this.markFailedToStart(rec, userMessage(err));
      throw new RuntimeError(`container "${rec.name}": could not start: ${userMessage(err)}`, {
        cause: err,
      });
    } finally {
      closeSync(fd);
    }
    const pid = child.pid;
    if (pid === undefined) {
      this.markFailedToStart(rec, 'spawn failed');
      throw new RuntimeError(`container "${rec.name}": could not start /bin/sh`);
    }
    this.track(rec, child);
    await this.joinPodCgroup(rec, pid);
    rec.pid = pid;
    rec.startTicks = processStartTicks(pid) ?? '';
    rec.state = 'running';
    rec.startedAtMs = this.opts.clock.nowMs();
    this.watchLogTimes(rec);
    await this.persist(rec);
    for (const l of this.listeners) l({ podUid: rec.podUid, containerId: id, type: 'started' });
  }

  /** A workingDir that is not a directory fails the start, as the reference's runtime does. */
  private async checkWorkingDir(rec: ProcessRecord): Promise<void> {
    if (rec.workingDir === undefined) return;
    const st = await stat(rec.workingDir).catch(() => undefined);
    if (st?.isDirectory() === true) return;
    this.markFailedToStart(rec, `workingDir ${rec.workingDir} is not a directory`);
    throw new RuntimeError(
      `container "${rec.name}": workingDir ${rec.workingDir} is not a directory`,
    );
  }

  /** Keeps the started child's stdin and learns of its exit. */
  private track(rec: ProcessRecord, child: ChildProcess): void {
    const id = rec.id;
    this.spawned.add(id);
    child.on('error', () => undefined);
    if (child.stdin !== null) {
      child.stdin.on('error', () => undefined); // EPIPE once the process is gone
      this.stdins.set(id, child.stdin);
    }
    child.on('exit', (code) => {
      this.spawned.delete(id);
      this.stdins.get(id)?.end();
      this.stdins.delete(id);
      if (rec.state === 'running') this.checkExited(rec, code ?? 137);
    });
    child.unref();
  }

  private podCgroupOf(pod: Pod): { cgroup?: string } {
    const cgroup = this.opts.podSettings?.cgroups?.processCgroup(pod);
    return cgroup !== undefined ? { cgroup } : {};
  }

  /**
   * Moves the wrapper and whatever it forked already into the pod cgroup; later forks inherit it.
   */
  private async joinPodCgroup(rec: ProcessRecord, pid: number): Promise<void> {
    const placement = this.opts.podSettings?.cgroups;
    if (placement === undefined || rec.cgroup === undefined) return;
    try {
      // a child forked between the listing and the wrapper's move stays behind: list again until
      // no new process shows up (what forks after the move inherits the pod cgroup)
      const moved = new Set<number>();
      for (let round = 0; round < 5; round += 1) {
        const fresh = processTree(pid).filter((p) => !moved.has(p));
        if (fresh.length === 0) break;
        for (const p of fresh) {
          await placement.addProcess(rec.cgroup, p);
          moved.add(p);
        }
      }
    } catch (err) {
      this.opts.logger.warn(
        {
          container: rec.name,
          pod: `${rec.podNamespace}/${rec.podName}`,
          cgroup: rec.cgroup,
          err: userMessage(err),
        },
        "could not move the container's processes into the pod cgroup; they run in the " +
          "agent's cgroup without the pod's limits",
      );
    }
  }

  private markFailedToStart(rec: ProcessRecord, message: string): void {
    rec.state = 'exited';
    rec.exitCode = 128;
    rec.reason = 'StartError';
    rec.startedAtMs = this.opts.clock.nowMs();
    rec.finishedAtMs = rec.startedAtMs;
    this.opts.logger.warn({ container: rec.name, pod: rec.podName }, `process runtime: ${message}`);
    void this.persist(rec);
  }

  private waitExit(id: string, ms: number): Promise<boolean> {
    const rec = this.records.get(id);
    if (rec?.state !== 'running') return Promise.resolve(true);
    return new Promise((resolve) => {
      const cancelDeadline = afterMs(this.opts.clock, ms, () => {
        stopPoll();
        resolve(false);
      });
      const stopPoll = everyMs(this.opts.clock, 50, () => {
        if (!this.spawned.has(id)) this.checkExited(rec);
      });
      const list = this.exitWaiters.get(id) ?? [];
      list.push(() => {
        cancelDeadline();
        stopPoll();
        resolve(true);
      });
      this.exitWaiters.set(id, list);
    });
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    await this.ensureLoaded();
    const rec = this.records.get(id);
    if (rec?.state !== 'running' || rec.pid === undefined) {
      if (rec?.state === 'created') {
        rec.state = 'exited';
        rec.exitCode = 0;
        void this.persist(rec);
      }
      return;
    }
    const pgid = rec.pid;
    // The stop signal goes to the wrapper alone, which hands it once to the command, as a runtime
    // signals a container's first process; what is left of the group then goes with SIGKILL, as
    // a container's processes end with its first one.
    signalProcess(pgid, 'SIGTERM');
    if (await this.waitExit(id, Math.max(0, graceSeconds) * 1000)) {
      signalProcess(-pgid, 'SIGKILL');
      return;
    }
    this.opts.logger.info(
      { container: rec.name, pod: rec.podName, graceSeconds },
      'process runtime: grace period over; sending SIGKILL',
    );
    signalProcess(-pgid, 'SIGKILL');
    if (!(await this.waitExit(id, 5000))) {
      throw new RuntimeError(`container "${rec.name}" (pid ${pgid}) did not exit after SIGKILL`);
    }
  }

  async removeContainer(id: string): Promise<void> {
    await this.ensureLoaded();
    const rec = this.records.get(id);
    if (!rec) return;
    if (rec.state === 'running') await this.stopContainer(id, 0);
    this.records.delete(id);
    this.logTimes.get(id)?.stop();
    this.logTimes.delete(id);
    await this.unpersist(id);
  }

  async listContainers(filter?: { podUid?: string }): Promise<RuntimeContainer[]> {
    await this.ensureLoaded();
    const out: RuntimeContainer[] = [];
    for (const r of this.records.values()) {
      if (filter?.podUid !== undefined && r.podUid !== filter.podUid) continue;
      out.push(publicView(r));
    }
    return out;
  }

  logPath(id: string): string | undefined {
    return this.records.get(id)?.logFile;
  }

  hostLogFile(id: string): Promise<string | undefined> {
    return Promise.resolve(this.logPath(id));
  }

  async logs(id: string, opts?: { tailLines?: number }): Promise<string> {
    await this.ensureLoaded();
    const rec = this.get(id);
    const all = await readFile(rec.logFile).catch(() => Buffer.alloc(0));
    // this instance's part of the file; after a rotation the offsets no longer apply
    const start = rec.logStart !== undefined && rec.logStart <= all.length ? rec.logStart : 0;
    const end =
      rec.logEnd !== undefined && rec.logEnd >= start && rec.logEnd <= all.length
        ? rec.logEnd
        : all.length;
    const text = all.subarray(start, end).toString('utf8');
    if (opts?.tailLines === undefined) return text;
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-opts.tailLines).join('\n') + (lines.length > 0 ? '\n' : '');
  }

  /**
   * The lines of this instance's log with the times the agent saw them appear (log-times.ts):
   * the tail, then those before `sinceMs` dropped, as the reference's ReadLogs.
   */
  async timedLogs(
    id: string,
    opts?: { tailLines?: number; sinceMs?: number },
  ): Promise<TimedLogLine[]> {
    await this.ensureLoaded();
    const rec = this.get(id);
    const all = await readFile(rec.logFile).catch(() => Buffer.alloc(0));
    const start = rec.logStart !== undefined && rec.logStart <= all.length ? rec.logStart : 0;
    const end =
      rec.logEnd !== undefined && rec.logEnd >= start && rec.logEnd <= all.length
        ? rec.logEnd
        : all.length;
    const times = this.logTimes.get(id);
    // What a running container wrote since the last watch event is in the file now.
    if (rec.state === 'running') times?.mark(end, this.opts.clock.nowMs());
    const fallbackMs =
      rec.state === 'running'
        ? this.opts.clock.nowMs()
        : (rec.finishedAtMs ?? this.opts.clock.nowMs());
    return timedLines({ bytes: all.subarray(start, end), start, times, fallbackMs, ...opts });
  }

  private watchLogTimes(rec: ProcessRecord): void {
    if (this.logTimes.has(rec.id)) return;
    const times = new LogTimes({ path: rec.logFile, clock: this.opts.clock });
    this.logTimes.set(rec.id, times);
    const prior = fileSize(rec.logFile) - (rec.logStart ?? 0);
    if (prior > 0 && !this.saidAdoptedTimes) {
      this.saidAdoptedTimes = true;
      this.opts.logger.info(
        { container: rec.name, pod: rec.podName },
        "process runtime: log lines written while no agent watched carry the log file's " +
          'modification time (sinceSeconds, sinceTime, timestamps)',
      );
    }
    void times.watch(prior);
  }

  async exec(id: string, command: readonly string[], timeoutMs: number): Promise<ExecResult> {
    await this.ensureLoaded();
    const rec = this.get(id);
    if (command.length === 0) throw new RuntimeError('exec: empty command');
    const [file = '', ...args] = withIdentity(rec.identity, command);
    return new Promise((resolve) => {
      execFile(
        file,
        args,
        {
          timeout: timeoutMs,
          env: rec.env,
          maxBuffer: 1024 * 1024,
          ...(rec.workingDir !== undefined ? { cwd: rec.workingDir } : {}),
        },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ exitCode: code, output: `${stdout}${stderr}` });
        },
      );
    });
  }

  /** Plain pipes, or a pseudo-terminal (node-pty) when `tty` is asked. */
  async execStream(
    id: string,
    command: readonly string[],
    opts: { tty: boolean } = { tty: false },
  ): Promise<ExecSession> {
    await this.ensureLoaded();
    const rec = this.get(id);
    if (command.length === 0) throw new RuntimeError('exec: empty command');
    const [file = '', ...args] = withIdentity(rec.identity, command);
    if (opts.tty)
      return spawnOnPty({
        file,
        args,
        env: rec.env,
        ...(rec.workingDir !== undefined ? { cwd: rec.workingDir } : {}),
      });
    // Its own process group, so kill() ends what the command started too.
    const child = spawn(file, args, {
      env: rec.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(rec.workingDir !== undefined ? { cwd: rec.workingDir } : {}),
    });
    const exited = new Promise<number>((resolve) => {
      child.once('error', () => resolve(126));
      child.once('close', (code, signal) =>
        resolve(code ?? 128 + (signal === null ? 0 : osConstants.signals[signal])),
      );
    });
    child.stdin.on('error', () => undefined); // EPIPE when the process exits before reading stdin
    // Piped at once: Node discards the output of a child's unread pipes when it exits.
    const stdout = child.stdout.pipe(new PassThrough());
    const stderr = child.stderr.pipe(new PassThrough());
    const kill = (): void => {
      try {
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    return { stdin: child.stdin, stdout, stderr, exited, kill };
  }

  /**
   * The container's output from now on and its stdin (spec stdin); no terminal (tty is refused).
   */
  async attachStream(id: string, opts: AttachOptions): Promise<ExecSession> {
    await this.ensureLoaded();
    const rec = this.get(id);
    if (opts.tty)
      throw new RuntimeError(
        `attach: container "${rec.name}" runs without a terminal under process://; ` +
          `attach without tty`,
      );
    const exited = new Promise<void>((resolve) => {
      if (rec.state !== 'running') {
        resolve();
        return;
      }
      const list = this.exitWaiters.get(id) ?? [];
      list.push(resolve);
      this.exitWaiters.set(id, list);
    });
    return attachToProcess(
      {
        name: rec.name,
        logFile: rec.logFile,
        stdin: this.stdins.get(id),
        stdinOnce: rec.stdinOnce === true,
        exited,
        logger: this.opts.logger,
      },
      opts,
    );
  }

  /** process:// pods share the host's network: their ports are on 127.0.0.1. */
  connectPort(_podUid: string, port: number): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      const conn = connect({ host: '127.0.0.1', port });
      conn.once('connect', () => {
        conn.off('error', reject);
        resolve(conn);
      });
      conn.once('error', reject);
    });
  }

  async stats(id: string): Promise<ContainerStats | undefined> {
    await this.ensureLoaded();
    const rec = this.records.get(id);
    if (rec?.state !== 'running' || rec.pid === undefined) return undefined;
    const u = treeUsage(rec.pid);
    return {
      cpuUsageCoreNanoSeconds: u.cpuNs,
      memoryWorkingSetBytes: u.rssBytes,
      memoryRssBytes: u.rssBytes,
    };
  }

  onEvent(listener: ContainerEventListener): void {
    this.listeners.push(listener);
  }

  /** Stops watching processes; pending state writes finish, later ones are skipped. */
  async close(): Promise<void> {
    this.stopPoll?.();
    for (const t of this.logTimes.values()) t.stop();
    await this.loaded;
    await Promise.all([...this.writes.values()]);
    this.closed = true;
  }

  // ---- image service: processes have no images ----
  ensureImage(): Promise<EnsuredImage> {
    return Promise.resolve({ id: '' });
  }
  listImages(): Promise<ImageInfo[]> {
    return Promise.resolve([]);
  }
  removeImage(): Promise<void> {
    return Promise.resolve();
  }
  imageFsInfo(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}
