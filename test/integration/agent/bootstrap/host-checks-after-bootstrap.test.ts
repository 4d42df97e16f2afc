// The host checks start once the client certificate is settled, or once bootstrap has waited on
// the API server for a while (as the reference checks the host only after bootstrap): they do
// not compete with bootstrap for the one thread; the agent's parts wait for them, and a refusal
// stops a bootstrap still waiting. Real plat-apiserver, the agent in this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent } from '../../../../src/agent/start/agent.js';
import { HostCheckError } from '../../../../src/agent/cli/host-checks.js';
import { startBootstrapEnv, listCsrs, type BootstrapEnv } from '../../../helpers/bootstrap-env.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { killProcessPods } from '../pods/runtimes.js';
import { tempDir, testConfig, testFlags, waitFor } from '../pods/agent-harness.js';

type TestContext = { after(fn: () => Promise<void>): void };

/**
 * An agent in this process bootstrapping against `env`, its host checks settled by `hostChecked`
 * (`started` says when the agent asked for them); stopped after the test, before the API server.
 */
async function startGatedAgent(
  t: TestContext,
  env: BootstrapEnv,
  name: string,
  hostChecked: Promise<void>,
): Promise<{ log: ReturnType<typeof recordingLogger>; run: Promise<number>; started: boolean[] }> {
  /** One entry per call of the host checks: was the client certificate on disk then. */
  const started: boolean[] = [];
  const root = await tempDir(`hc-${name}-`);
  const log = recordingLogger();
  const ac = new AbortController();
  const run = runAgent({
    config: testConfig(root.path, { containerRuntimeEndpoint: 'process://' }),
    flags: testFlags(root.path, {
      bootstrapPlatconfig: env.bootstrapConf,
      platconfig: env.platconfig,
      certDir: env.certDir,
      hostnameOverride: name,
    }),
    logger: log,
    signal: ac.signal,
    checkHost: () => {
      started.push(existsSync(join(env.certDir, 'nodeagent-client-current.pem')));
      return hostChecked;
    },
  });
  // when an assertion fails, the agent may still run: stop it, and the API server last
  t.after(async () => {
    ac.abort();
    await run.catch(() => 1);
    await killProcessPods(root.path);
    await root.cleanup();
    await env.stop();
  });
  return { log, run, started };
}

test(
  'the host checks start once the certificate is on disk; the parts load only once they passed',
  { timeout: 90_000 },
  async (t) => {
    const env = await startBootstrapEnv();
    let passed = (): void => undefined;
    const hostChecked = new Promise<void>((resolve) => (passed = resolve));
    const { log, started } = await startGatedAgent(t, env, 'hc-node', hostChecked);
    await waitFor('the host checks to start', () => started.length > 0, 30_000, 20);
    assert.deepEqual(started, [true], 'asked for once, with the certificate already on disk');
    assert.ok(
      log.lines.some((l) => l.msg === 'client certificate issued and platconfig written'),
      'the certificate and platconfig were written before the host checks started',
    );
    // without the gate the parts would start loading within milliseconds; a bounded look shows
    // they do not (what is checked is that something does not happen)
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(
      !log.lines.some((l) => l.msg === 'building the agent parts'),
      'the parts loaded before the host checks passed',
    );
    passed();
    await waitFor(
      'the parts to load',
      () => log.lines.some((l) => l.msg === 'building the agent parts'),
      30_000,
      20,
    );
  },
);

test(
  'a host refused while bootstrap waits for approval (the checks start after a second of waiting) stops bootstrap with the refusal; no certificate',
  { timeout: 90_000 },
  async (t) => {
    // csrsigning only: nobody approves, so bootstrap waits
    const env = await startBootstrapEnv({ args: ['--controllers=csrsigning'] });
    let refuse = (_err: Error): void => undefined;
    const hostChecked = new Promise<void>((_resolve, reject) => (refuse = reject));
    const { log, run, started } = await startGatedAgent(t, env, 'hc-refused', hostChecked);
    // the request is made: bootstrap waits for an approval that does not come
    await waitFor(
      'the certificate signing request',
      () =>
        log.lines.some((l) => /^certificate signing request node-csr-\S+ submitted;/.test(l.msg)),
      30_000,
      20,
    );
    const refusal = new HostCheckError(
      'this host uses cgroup v1 (/sys/fs/cgroup is not a cgroup2 file system) and failCgroupV1 (--fail-cgroupv1) is true: move the host to cgroup v2, or set --fail-cgroupv1=false to start anyway',
    );
    await waitFor(
      'the host checks to start while bootstrap waits',
      () => started.length > 0,
      30_000,
      20,
    );
    const t0 = Date.now();
    refuse(refusal);
    await assert.rejects(run, (err: unknown) => err === refusal);
    assert.ok(Date.now() - t0 < 5000, `bootstrap took ${Date.now() - t0} ms to stop`);
    assert.equal(existsSync(join(env.certDir, 'nodeagent-client-current.pem')), false);
    assert.equal(existsSync(env.platconfig), false);
    assert.ok(!log.lines.some((l) => l.msg === 'building the agent parts'));
    // the request was made (and stays for an approver); nothing else followed it
    assert.equal((await listCsrs(env.api)).length, 1);
  },
);
