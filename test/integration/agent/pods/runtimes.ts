// The runtimes the contract suite and e2e tests run against. Docker tests skip, with the reason
// printed, when no engine answers, except under CI=true, where a missing engine fails them.
import { systemClock } from '../../../../src/common/util/clock.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { DockerRuntime, dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import type { ContainerRuntime, ImageService } from '../../../../src/agent/runtime/types.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';
import { isSameProcessAlive } from '../../../../src/agent/runtime/process/proc.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import { CriRuntime } from '../../../../src/agent/runtime/cri/runtime.js';
import { parseCriEndpoint } from '../../../../src/agent/runtime/cri/endpoint.js';
import type { Containerd } from '../../../helpers/containerd.js';

export const DOCKER_ENDPOINT =
  process.env.NODEAGENT_TEST_DOCKER_ENDPOINT ?? 'unix:///var/run/docker.sock';

export interface RuntimeUnderTest {
  name: 'process' | 'docker' | 'containerd';
  endpoint: (rootDir: string) => string;
  make: (rootDir: string) => ContainerRuntime & ImageService;
  /** A runtime that only looks at what an agent on `rootDir` runs, never changing it. */
  observe?: (rootDir: string) => ContainerRuntime & ImageService;
}

export const processRuntime: RuntimeUnderTest = {
  name: 'process',
  endpoint: () => 'process://',
  make: (rootDir) =>
    new ProcessRuntime({
      rootDir,
      logger: silentLogger(),
      clock: systemClock,
      pollIntervalMs: 200,
    }),
  observe: (rootDir) =>
    new ProcessRuntime({
      rootDir,
      logger: silentLogger(),
      clock: systemClock,
      pollIntervalMs: 200,
      readOnly: true,
    }),
};

export const dockerRuntime: RuntimeUnderTest = {
  name: 'docker',
  endpoint: () => DOCKER_ENDPOINT,
  make: (rootDir) =>
    new DockerRuntime({
      endpoint: DOCKER_ENDPOINT,
      requestTimeoutMs: 60_000,
      serializeImagePulls: true,
      registryPullQPS: 5,
      registryBurst: 10,
      rootDir,
      logger: silentLogger(),
      clock: systemClock,
    }),
};

/** undefined when Docker can be used; otherwise why not (and under CI=true, an error). */
export async function dockerSkipReason(): Promise<string | undefined> {
  try {
    const d = dockerFromEndpoint(DOCKER_ENDPOINT, 3000);
    await d.ping();
    await d.getImage('busybox:local').inspect();
    return undefined;
  } catch (err) {
    const reason = `no Docker engine with image busybox:local at ${DOCKER_ENDPOINT} (${String((err as Error).message ?? err)}); start one with scripts/docker-engine.sh start`;
    return skipOutsideCi('a Docker engine', reason);
  }
}

/** Removes every Docker container of the given pod UIDs (t.after clean-up by label). */
export async function removeDockerPods(uids: readonly string[]): Promise<void> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  for (const uid of uids) {
    const list = await d
      .listContainers({
        all: true,
        filters: JSON.stringify({ label: [`${LABELS.podUid}=${uid}`] }),
      })
      .catch(() => []);
    for (const c of list)
      await d
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/** Removes every Docker container whose pod name has this prefix (clean-up after agent runs). */
export async function removeDockerPodsNamed(prefix: string): Promise<void> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  const list = await d
    .listContainers({ all: true, filters: JSON.stringify({ label: [`${LABELS.managed}=true`] }) })
    .catch(() => []);
  for (const c of list) {
    if ((c.Labels[LABELS.podName] ?? '').startsWith(prefix))
      await d
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/** Kills every process a process:// root dir still runs (by the pids in its state files). */
export async function killProcessPods(rootDir: string): Promise<void> {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = `${rootDir}/process-runtime/containers`;
  const files = await readdir(dir).catch(() => [] as string[]);
  for (const f of files) {
    if (!f.endsWith('.json')) continue;
    try {
      const rec = JSON.parse(await readFile(`${dir}/${f}`, 'utf8')) as {
        pid?: number;
        state?: string;
        startTicks?: string;
      };
      // the pid must still be the process we started (pids are reused), checked by start time
      if (
        rec.pid !== undefined &&
        rec.startTicks !== undefined &&
        isSameProcessAlive(rec.pid, rec.startTicks)
      )
        process.kill(-rec.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

interface ProcessRecordView {
  name?: string;
  kind?: string;
  attempt?: number;
  state?: string;
  exitCode?: number;
  reason?: string;
  logFile?: string;
}

async function processRecords(rootDir: string): Promise<ProcessRecordView[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = `${rootDir}/process-runtime/containers`;
  const out: ProcessRecordView[] = [];
  for (const f of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!f.endsWith('.json')) continue;
    const text = await readFile(`${dir}/${f}`, 'utf8').catch(() => '');
    try {
      out.push(JSON.parse(text) as ProcessRecordView);
    } catch {
      // being rewritten: the next report has it
    }
  }
  return out;
}

/** Everything the process:// containers named `name` wrote to their log so far ('' before). */
export async function processContainerLog(rootDir: string, name: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const logs = new Set(
    (await processRecords(rootDir))
      .filter((r) => r.name === name && r.kind !== 'sandbox' && r.logFile !== undefined)
      .map((r) => r.logFile as string),
  );
  const texts = await Promise.all([...logs].map((f) => readFile(f, 'utf8').catch(() => '')));
  return texts.join('');
}

/**
 * Each container of a process:// root dir: attempt, state, exit code and reason, and the end of
 * its log (a dying container's stderr), so a failure message says why a container did not serve.
 */
export async function processContainersReport(rootDir: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const lines: string[] = [];
  for (const r of await processRecords(rootDir)) {
    if (r.kind === 'sandbox') continue;
    const log = r.logFile === undefined ? '' : await readFile(r.logFile, 'utf8').catch(() => '');
    lines.push(
      `container ${r.name ?? '?'} attempt ${String(r.attempt)}: ${r.state ?? '?'}` +
        (r.exitCode !== undefined ? `, exit code ${r.exitCode} (${r.reason ?? ''})` : '') +
        `; its log ends: ${JSON.stringify(log.slice(-1500))}`,
    );
  }
  return lines.length > 0 ? lines.join('\n') : `no process:// container under ${rootDir}`;
}

/** A CRI runtime on the test's own containerd (test/helpers/containerd.ts); logs under rootDir. */
export function criRuntimeOn(ctd: () => Containerd | undefined): RuntimeUnderTest {
  const endpoint = (): string => {
    const c = ctd();
    if (c === undefined) throw new Error('no containerd started');
    return c.endpoint;
  };
  return {
    name: 'containerd',
    endpoint,
    make: (rootDir) => {
      const ep = parseCriEndpoint(
        'containerRuntimeEndpoint',
        '--container-runtime-endpoint',
        endpoint(),
      );
      return new CriRuntime({
        runtime: ep,
        image: ep,
        guessedName: 'containerd',
        rootDir,
        requestTimeoutMs: 60_000,
        serializeImagePulls: true,
        registryPullQPS: 5,
        registryBurst: 10,
        podLogsDir: `${rootDir}/pod-logs`,
        logger: silentLogger(),
        clock: systemClock,
        relistMs: 200,
      });
    },
  };
}

/** Stops and removes every sandbox (with its containers) of the given pod UIDs through CRI. */
export async function removeCriPods(
  runtime: ContainerRuntime | undefined,
  uids: readonly string[],
): Promise<void> {
  if (runtime === undefined) return;
  for (const uid of uids) {
    const list = await runtime.listContainers({ podUid: uid }).catch(() => []);
    for (const c of list.filter((x) => x.kind !== 'sandbox'))
      await runtime.removeContainer(c.id).catch(() => undefined);
    for (const s of list.filter((x) => x.kind === 'sandbox')) {
      await runtime.stopPodSandbox(s.id, 0).catch(() => undefined);
      await runtime.removePodSandbox(s.id).catch(() => undefined);
    }
  }
}
