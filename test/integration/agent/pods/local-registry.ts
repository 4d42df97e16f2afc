// A private registry for the image pull tests: Debian's docker-registry on 127.0.0.1 (a port of
// its own; the engine treats 127.0.0.0/8 as insecure, so plain HTTP) with htpasswd basic auth,
// and busybox:local pushed into it through the Docker engine and then removed from the engine, so
// that a pod must pull it. .ci/run installs docker-registry and apache2-utils (htpasswd).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { freePort } from '../../../helpers/processes.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';

const run = promisify(execFile);

export async function registrySkipReason(what: string): Promise<string | undefined> {
  const docker = await dockerSkipReason();
  if (docker !== undefined) return docker;
  const missing: string[] = [];
  for (const bin of ['docker-registry', 'htpasswd']) {
    await run('sh', ['-c', `command -v ${bin}`]).catch(() => missing.push(bin));
  }
  if (missing.length === 0) return undefined;
  const reason = `${missing.join(', ')} not installed (apt-get install -y docker-registry apache2-utils)`;
  return skipOutsideCi(`a local registry for ${what}`, reason);
}

export interface Registry {
  host: string;
  child: ChildProcess;
}

export interface RegistryUser {
  user: string;
  password: string;
}

/** The registry in `dir`, answering 401 on /v2/ once it is up; the caller stops `child`. */
export async function startRegistry(dir: string, who: RegistryUser): Promise<Registry> {
  const port = await freePort();
  const { stdout } = await run('htpasswd', ['-Bbn', who.user, who.password]);
  await writeFile(join(dir, 'htpasswd'), stdout, { mode: 0o600 });
  await writeFile(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: {level: warn}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
      `http: {addr: "127.0.0.1:${port}"}`,
      `auth: {htpasswd: {realm: test, path: ${join(dir, 'htpasswd')}}}`,
      '',
    ].join('\n'),
  );
  const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const host = `127.0.0.1:${port}`;
  await waitFor(
    `the registry on ${host} (${stderr.slice(-300)})`,
    async () => {
      const r = await fetch(`http://${host}/v2/`).catch(() => undefined);
      return r?.status === 401;
    },
    20_000,
    100,
  );
  return { host, child };
}

/** busybox:local as `<host>/<repo>:local` in the registry only; answers that image. */
export async function pushBusybox(reg: Registry, repo: string, who: RegistryUser): Promise<string> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 60_000);
  const image = `${reg.host}/${repo}`;
  await d.getImage('busybox:local').tag({ repo: image, tag: 'local' });
  const stream = (await d.getImage(`${image}:local`).push({
    authconfig: { username: who.user, password: who.password, serveraddress: reg.host },
  } as object)) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) =>
    d.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const failed = out?.find((o) => o.error !== undefined);
      if (err !== null) reject(err);
      else if (failed !== undefined) reject(new Error(failed.error));
      else resolve();
    }),
  );
  // the engine must fetch it from the registry: only busybox:local stays
  await d.getImage(`${image}:local`).remove();
  return `${image}:local`;
}

/** Removes the pulled image from the engine (the test's clean-up). */
export async function removeImage(image: string): Promise<void> {
  await dockerFromEndpoint(DOCKER_ENDPOINT, 30_000)
    .getImage(image)
    .remove({ force: true })
    .catch(() => undefined);
}
