// --hairpin-mode on a real Docker engine: with hairpin-veth (and the default promiscuous-bridge,
// which falls back to it) the host end of the sandbox's veth on docker0 gets hairpin_mode 1; with
// none it keeps the engine's setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRuntime } from '../../../../src/agent/runtime/factory.js';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { interfaceByIndex } from '../../../../src/agent/runtime/docker/hairpin.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { tempDir } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason, removeDockerPods } from './runtimes.js';

const skip = await dockerSkipReason();

/** The hairpin_mode of the bridge port at the host end of the sandbox's eth0. */
async function hairpinOf(sandboxId: string): Promise<string> {
  const pid = (await dockerFromEndpoint(DOCKER_ENDPOINT, 30_000).getContainer(sandboxId).inspect())
    .State.Pid;
  const peer = Number(
    (await readFile(`/proc/${pid}/root/sys/class/net/eth0/iflink`, 'utf8')).trim(),
  );
  const veth = await interfaceByIndex('/sys/class/net', peer);
  assert.ok(veth !== undefined, `a host interface with index ${peer}`);
  return (await readFile(join('/sys/class/net', veth, 'brport/hairpin_mode'), 'utf8')).trim();
}

test(
  '--hairpin-mode on Docker: hairpin-veth and promiscuous-bridge turn hairpin on for the sandbox veth; none leaves it off',
  { skip, timeout: 60_000 },
  async (t) => {
    const root = await tempDir('na-hairpin-');
    const node = `hairpin-${randomBytes(3).toString('hex')}`;
    const uids: string[] = [];
    t.after(async () => {
      await removeDockerPods(uids);
      await root.cleanup();
    });
    const modes = ['hairpin-veth', 'promiscuous-bridge', 'none'] as const;
    const got: string[] = [];
    for (const hairpinMode of modes) {
      const log = recordingLogger();
      const bundle = await createRuntime({
        endpoint: DOCKER_ENDPOINT,
        imageEndpoint: '',
        rootDir: root.path,
        requestTimeoutMs: 60_000,
        serializeImagePulls: true,
        registryPullQPS: 0,
        registryBurst: 0,
        nodeName: node,
        hairpinMode,
        logger: log,
        clock: systemClock,
      });
      const uid = `${node}-${hairpinMode}`;
      uids.push(uid);
      const id = await bundle.runtime.runPodSandbox({
        pod: { metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [] } },
        attempt: 0,
      });
      got.push(await hairpinOf(id));
      assert.deepEqual(
        log.lines.filter((l) => l.level === 'warn'),
        [],
        hairpinMode,
      );
      await bundle.close();
    }
    assert.deepEqual(got, ['1', '1', '0']);
  },
);
