// imagePullSecrets end to end: a real registry (Debian's docker-registry) on 127.0.0.1 with
// htpasswd basic auth holds busybox:local; a real plat-apiserver holds the pull secrets, which the
// agent reads as its node. A pod naming a <domain>/dockerconfigjson secret (`auth`) or a
// <domain>/dockercfg one (username and password) pulls and runs; without a secret the pull
// is refused (ErrImagePull with the registry's answer); a secret that does not exist is the
// reference's FailedToRetrieveImagePullSecret warning, not a failure of its own, and the pull goes
// on without it (and is refused). Each pod gets the reference's image events for its own start
// (Pulling, Pulled with times and size, Failed), and a pod whose image is present only "already
// present on machine".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stopChild } from '../../../helpers/processes.js';
import { tempDir, waitFor } from './agent-harness.js';
import {
  pushBusybox,
  registrySkipReason,
  removeImage,
  startRegistry,
  type Registry,
} from './local-registry.js';
import { volumeScene, type VolumeScene } from './volume-scene.js';
import { namesFor } from '../../../../src/common/names.js';

const skip = await registrySkipReason('the image pull secret test');
const WHO = { user: 'puller', password: `pw-${randomBytes(8).toString('hex')}` };
const b64 = (s: string): string => Buffer.from(s).toString('base64');
// plat-apiserver's default (platform) profile: platform.io/dockerconfigjson and .../dockercfg
const TYPES = namesFor('platform').secretTypes;

type Json = Record<string, unknown>;

async function createSecret(s: VolumeScene, name: string, type: string, key: string, doc: Json) {
  const r = await s.api.request('POST', '/api/v1/namespaces/default/secrets', {
    body: { metadata: { name }, type, data: { [key]: b64(JSON.stringify(doc)) } },
  });
  assert.equal(r.status, 201, r.text);
}

function podOf(
  s: VolumeScene,
  name: string,
  image: string,
  secrets: string[],
  imagePullPolicy = 'Always',
): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      nodeName: s.node,
      terminationGracePeriodSeconds: 1,
      ...(secrets.length > 0 ? { imagePullSecrets: secrets.map((n) => ({ name: n })) } : {}),
      containers: [{ name: 'c', image, imagePullPolicy, command: ['sleep', '300'] }],
    },
  };
}

/**
 * The pod's refused pull, in either of the states it takes turns in: ErrImagePull (the pull's
 * message) and ImagePullBackOff (since 1.32 the reference's back-off message carries that pull's
 * reason and message). A timeout names the state the pod was last seen in.
 */
async function refusedOf(s: VolumeScene, name: string, image: string): Promise<string> {
  let last = 'no status';
  return waitFor(
    `pod ${name} refused its pull (ErrImagePull or ImagePullBackOff)`,
    async () => {
      const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
      const cs = ((r.json?.['status'] as Json | undefined)?.['containerStatuses'] ?? []) as Json[];
      const waiting = (cs[0]?.['state'] as Json | undefined)?.['waiting'] as Json | undefined;
      last = JSON.stringify(cs[0]?.['state'] ?? r.json?.['status'] ?? r.status);
      const message = String(waiting?.['message']);
      if (waiting?.['reason'] === 'ErrImagePull') return message;
      const prefix = `Back-off pulling image "${image}": ErrImagePull: `;
      if (waiting?.['reason'] === 'ImagePullBackOff' && message.startsWith(prefix))
        return message.slice(prefix.length);
      return undefined;
    },
    90_000,
    200,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; last seen: ${last}`);
  });
}

test(
  'imagePullSecrets on Docker: dockerconfigjson and dockercfg secrets pull from a private registry; without one ErrImagePull; a missing one is the reference FailedToRetrieveImagePullSecret warning',
  { skip, timeout: 240_000 },
  async (t) => {
    const regDir = await tempDir('na-pull-reg-');
    const started: { registry?: Registry; image?: string } = {};
    t.after(async () => {
      await stopChild(started.registry?.child);
      if (started.image !== undefined) await removeImage(started.image);
      await regDir.cleanup();
    });
    const s = await volumeScene(t, 'docker');
    const registry = await startRegistry(regDir.path, WHO);
    started.registry = registry;
    const image = await pushBusybox(registry, `ps-${randomBytes(3).toString('hex')}/busybox`, WHO);
    started.image = image;

    await createSecret(s, 'regcred', TYPES.dockerConfigJson, '.dockerconfigjson', {
      auths: { [`http://${registry.host}`]: { auth: b64(`${WHO.user}:${WHO.password}`) } },
    });
    await createSecret(s, 'oldcfg', TYPES.dockercfg, '.dockercfg', {
      [registry.host]: { username: WHO.user, password: WHO.password, email: 'a@b.c' },
    });
    const json = `${s.node}-json`;
    const cfg = `${s.node}-cfg`;
    const none = `${s.node}-none`;
    const missing = `${s.node}-missing`;
    await s.createPod(podOf(s, json, image, ['regcred']));
    await s.createPod(podOf(s, cfg, image, ['oldcfg']));
    await s.createPod(podOf(s, none, image, []));
    await s.createPod(podOf(s, missing, image, ['nope']));
    s.start();

    await s.phase(json, 'Running', 120_000);
    await s.phase(cfg, 'Running', 120_000);

    const refused = await refusedOf(s, none, image);
    // the engine's own words for the refusal, without the API client's HTTP status
    const refusal =
      /^(?!.*HTTP code).*(no basic auth credentials|unauthorized|authentication required)/;
    assert.match(refused, refusal);

    // a missing pull secret: the reference's warning, then the pull without it (refused)
    const warned = await waitFor(
      'the FailedToRetrieveImagePullSecret event',
      async () => {
        const m = await s.events(missing, 'FailedToRetrieveImagePullSecret');
        return m.length > 0 ? m : undefined;
      },
      60_000,
      200,
    );
    assert.equal(
      warned[0],
      'Unable to retrieve some image pull secrets (nope); attempting to pull the image may not succeed.',
    );
    assert.match(await refusedOf(s, missing, image), refusal);

    await pullEvents(s, image, { json, none });
  },
);

/** The first of the pod's events with this reason, once there is one. */
async function eventOf(s: VolumeScene, pod: string, reason: string, like: RegExp): Promise<string> {
  return waitFor(
    `a ${reason} event on ${pod} like ${String(like)}`,
    async () => (await s.events(pod, reason)).find((m) => like.test(m)),
    60_000,
    200,
  );
}

/**
 * The reference's image events, on each pod for its own container start: Pulling and Pulled with
 * the times and size for a pull, Failed for a refused one; a pod whose image is present
 * (IfNotPresent) gets only "already present on machine", none of the other pods' pulls.
 */
async function pullEvents(
  s: VolumeScene,
  image: string,
  pods: { json: string; none: string },
): Promise<void> {
  const img = image.replace(/[.]/g, '\\.');
  await eventOf(s, pods.json, 'Pulling', /./);
  assert.deepEqual(await s.events(pods.json, 'Pulling'), [`Pulling image "${image}"`]);
  await eventOf(
    s,
    pods.json,
    'Pulled',
    new RegExp(
      `^Successfully pulled image "${img}" in [\\dhm.]+s \\([\\dhm.]+s including waiting\\)\\. Image size: [1-9]\\d* bytes\\.$`,
    ),
  );
  await eventOf(s, pods.none, 'Failed', new RegExp(`^Failed to pull image "${img}": `));
  await eventOf(s, pods.none, 'Failed', /^Error: ErrImagePull$/);
  const present = `${s.node}-present`;
  await s.createPod(podOf(s, present, image, [], 'IfNotPresent'));
  await s.phase(present, 'Running', 60_000);
  await eventOf(s, present, 'Pulled', /already present/);
  assert.deepEqual(await s.events(present, 'Pulled'), [
    `Container image "${image}" already present on machine`,
  ]);
  assert.deepEqual(await s.events(present, 'Pulling'), [], 'no pull, no Pulling');
}
