// Pod and container specs to Docker Engine API create bodies (API 1.41).
import type { ContainerCreateOptions } from 'dockerode';
import { terminationMessagePathOf, type Container, type Pod } from '../../pod/types.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';
import { LABELS, type ContainerConfig } from '../types.js';
import { agentPodLabels } from '../pod-labels.js';
import { plainEnvironment } from '../../pod/expand.js';
import {
  dockerContainerSettings,
  defaultContainerSettings,
  type ContainerSettings,
} from '../settings/container-settings.js';
import { podSysctls, sysctlNamespace } from '../settings/sysctls.js';
import { dockerMemorySwap } from '../settings/swap.js';
import { seccompProfileOf } from '../settings/seccomp.js';
import { dockerSecurity, type DockerSecurityInput } from '../security/docker-security.js';

/** The pod's sysctls for the sandbox (all) or for a container (those of its own IPC namespace). */
export function dockerSysctls(
  pod: Pod,
  which: 'sandbox' | 'container',
): Record<string, string> | undefined {
  const list = podSysctls(pod).filter(
    (s) => which === 'sandbox' || sysctlNamespace(s.name) === 'ipc',
  );
  return list.length > 0 ? Object.fromEntries(list.map((s) => [s.name, s.value])) : undefined;
}

function dockerName(parts: string[]): string {
  return parts.join('_').replace(/[^a-zA-Z0-9_.-]/g, '-');
}

export function sandboxCreateOptions(
  pod: Pod,
  attempt: number,
  image: string,
  logOpts: Record<string, string>,
  nodeName?: string,
  hostname?: string,
): ContainerCreateOptions {
  const sysctls = dockerSysctls(pod, 'sandbox');
  const exposed: Record<string, object> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  if (!pod.spec.hostNetwork) {
    for (const c of pod.spec.containers) {
      for (const p of c.ports ?? []) {
        if (p.hostPort === undefined) continue;
        const key = `${p.containerPort}/${(p.protocol ?? 'TCP').toLowerCase()}`;
        exposed[key] = {};
        // publish on loopback unless the manifest names a host address
        (bindings[key] ??= []).push({
          HostIp: p.hostIP ?? '127.0.0.1',
          HostPort: String(p.hostPort),
        });
      }
    }
  }
  return {
    name: dockerName([
      'nodeagent',
      'POD',
      pod.metadata.name,
      pod.metadata.namespace,
      pod.metadata.uid.slice(0, 12),
      String(attempt),
    ]),
    Image: image,
    Cmd: ['sleep', '2147483647'],
    Hostname: pod.spec.hostNetwork ? undefined : (hostname ?? pod.metadata.name.slice(0, 63)),
    Labels: {
      ...agentPodLabels(pod, nodeName),
      [LABELS.kind]: 'sandbox',
      [LABELS.attempt]: String(attempt),
      [LABELS.containerName]: '',
    },
    ExposedPorts: exposed,
    HostConfig: {
      Init: true,
      NetworkMode: pod.spec.hostNetwork ? 'host' : 'bridge',
      ...(pod.spec.hostPID === true ? { PidMode: 'host' } : {}),
      ...(pod.spec.hostIPC === true ? { IpcMode: 'host' } : {}),
      PortBindings: bindings,
      ...(sysctls !== undefined ? { Sysctls: sysctls } : {}),
      LogConfig: { Type: 'json-file', Config: logOpts },
    },
  };
}

function bytesOf(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return Math.round(parseQuantity(q).value);
}

/** The runtime's ContainerConfig plus what the Docker engine is told besides. */
export interface ContainerCreateInput extends ContainerConfig {
  logOpts: Record<string, string>;
  nodeName?: string;
  settings?: ContainerSettings;
  /** The pod's resolv.conf on the host, bind-mounted at /etc/resolv.conf. */
  resolvConfPath?: string;
  /** The pod's agent-managed hosts file, bind-mounted at /etc/hosts. */
  hostsPath?: string;
  /** What prepareDockerSecurity read (the image's user, a Localhost seccomp profile). */
  security?: DockerSecurityInput;
}

/**
 * The volume mounts as `src:dest[:ro][,propagation]` binds, plus the pod's resolv.conf unless a
 * mount covers it.
 */
function containerBinds(opts: ContainerCreateInput): string[] {
  const c = opts.container;
  const binds =
    opts.mounts?.map((m) => {
      // the engine's default propagation is rprivate, so only the others are written
      const flags = [
        ...(m.readOnly ? ['ro'] : []),
        ...(m.propagation !== 'rprivate' ? [m.propagation] : []),
      ];
      return `${m.hostPath}:${m.containerPath}${flags.length > 0 ? `:${flags.join(',')}` : ''}`;
    }) ??
    (c.volumeMounts ?? []).map((m) => {
      const host = opts.volumePaths[m.name] ?? '';
      const src = m.subPath ? `${host}/${m.subPath}` : host;
      return `${src}:${m.mountPath}${m.readOnly ? ':ro' : ''}`;
    });
  if (opts.hostsPath !== undefined) binds.push(`${opts.hostsPath}:/etc/hosts`);
  if (opts.terminationMessageFile !== undefined)
    binds.push(`${opts.terminationMessageFile}:${terminationMessagePathOf(c)}`);
  if (
    opts.resolvConfPath !== undefined &&
    !(c.volumeMounts ?? []).some((m) => m.mountPath === '/etc/resolv.conf')
  ) {
    binds.push(`${opts.resolvConfPath}:/etc/resolv.conf:ro`);
  }
  return binds;
}

/** What the process runs with: entrypoint, arguments, environment, directory, stdin, terminal. */
function processOptions(c: Container, cmd = plainEnvironment(c)): Partial<ContainerCreateOptions> {
  return {
    ...(cmd.command !== undefined ? { Entrypoint: cmd.command } : {}),
    ...(cmd.args !== undefined ? { Cmd: cmd.args } : {}),
    Env: cmd.env.map((e) => `${e.name}=${e.value}`),
    ...(c.workingDir !== undefined ? { WorkingDir: c.workingDir } : {}),
    // spec stdin/stdinOnce/tty, for attach (the engine holds stdin open and the terminal).
    ...(c.stdin === true
      ? { OpenStdin: true, StdinOnce: c.stdinOnce === true, AttachStdin: true }
      : {}),
    ...(c.tty === true ? { Tty: true } : {}),
  };
}

function containerLabels(opts: ContainerCreateInput): Record<string, string> {
  return {
    ...agentPodLabels(opts.pod, opts.nodeName),
    [LABELS.kind]: opts.kind,
    [LABELS.containerName]: opts.container.name,
    [LABELS.attempt]: String(opts.attempt),
    [LABELS.specHash]: opts.specHash,
    [LABELS.sandboxId]: opts.sandboxId,
    ...(opts.terminationMessageFile !== undefined
      ? { [LABELS.terminationMessageFile]: opts.terminationMessageFile }
      : {}),
  };
}

/**
 * hostPID and hostIPC: the host's namespaces; shareProcessNamespace: the sandbox's PID namespace
 * (its pause process is PID 1 and every container sees the others' processes); otherwise an
 * ephemeral container with a target joins the target's PID namespace (the CRI's TARGET mode).
 */
function namespaceModes(
  pod: Pod,
  sandboxId: string,
  targetId: string | undefined,
): { PidMode?: string; IpcMode?: string } {
  const pid =
    pod.spec.hostPID === true
      ? 'host'
      : pod.spec.shareProcessNamespace === true
        ? `container:${sandboxId}`
        : targetId !== undefined
          ? `container:${targetId}`
          : undefined;
  return {
    ...(pid !== undefined ? { PidMode: pid } : {}),
    ...(pod.spec.hostIPC === true ? { IpcMode: 'host' } : {}),
  };
}

/** The security input without I/O: a Localhost seccomp profile must have been read before. */
function securityInput(
  opts: ContainerCreateInput,
  settings: ContainerSettings,
): DockerSecurityInput {
  if (opts.security !== undefined) return opts.security;
  const seccomp = seccompProfileOf(
    opts.pod,
    opts.container,
    settings.seccompDefault,
    settings.seccompProfileRoot ?? '/var/lib/nodeagent/seccomp',
  );
  if (seccomp.type === 'Localhost')
    throw new Error('a Localhost seccomp profile is read before the create body is made');
  return { seccomp };
}

/**
 * The HostConfig: the sandbox's network, binds, memory and swap, the settings, sysctls, security,
 * logging.
 */
function containerHostConfig(
  opts: ContainerCreateInput,
  security: ReturnType<typeof dockerSecurity>['HostConfig'],
): NonNullable<ContainerCreateOptions['HostConfig']> {
  const { pod, container: c } = opts;
  const memory = bytesOf(c.resources?.limits?.memory);
  const settings = opts.settings ?? defaultContainerSettings();
  const extra = dockerContainerSettings(pod, c, settings);
  const memorySwap =
    settings.swap === undefined
      ? undefined
      : dockerMemorySwap(pod, c, memory, settings.memoryCapacity, settings.swap);
  const sysctls = dockerSysctls(pod, 'container');
  return {
    Init: true,
    NetworkMode: pod.spec.hostNetwork ? 'host' : `container:${opts.sandboxId}`,
    ...namespaceModes(pod, opts.sandboxId, opts.targetContainerId),
    Binds: containerBinds(opts),
    ...(memory !== undefined ? { Memory: memory } : {}),
    ...(memorySwap !== undefined ? { MemorySwap: memorySwap } : {}),
    ...extra,
    ...(sysctls !== undefined ? { Sysctls: sysctls } : {}),
    ...security,
    LogConfig: { Type: 'json-file', Config: opts.logOpts },
  };
}

export function containerCreateOptions(opts: ContainerCreateInput): ContainerCreateOptions {
  const { pod, container: c } = opts;
  const settings = opts.settings ?? defaultContainerSettings();
  const security = dockerSecurity(pod, c, settings, securityInput(opts, settings));
  return {
    name: dockerName([
      'nodeagent',
      c.name,
      pod.metadata.name,
      pod.metadata.namespace,
      pod.metadata.uid.slice(0, 12),
      String(opts.attempt),
    ]),
    Image: c.image ?? '',
    ...processOptions(c, opts.environment),
    ...(security.User !== undefined ? { User: security.User } : {}),
    Labels: containerLabels(opts),
    HostConfig: containerHostConfig(opts, security.HostConfig),
  };
}

/** Docker's stream framing for non-TTY logs and exec output: 8-byte headers before each chunk. */
export function demuxDockerStream(buf: Buffer): string {
  let out = '';
  let i = 0;
  while (i + 8 <= buf.length) {
    const type = buf[i];
    const size = buf.readUInt32BE(i + 4);
    if (type === undefined || type > 2 || buf[i + 1] !== 0) return buf.toString('utf8');
    out += buf.subarray(i + 8, i + 8 + size).toString('utf8');
    i += 8 + size;
  }
  return out;
}
