// The image events of a container start, as the reference kubelet 1.32's image manager and
// startContainer write them (pkg/kubelet/images/image_manager.go, kuberuntime_container.go): on
// the starting pod's container only, once per attempt, with the reference's reasons and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureImageWith } from '../../../../src/agent/runtime/ensure-image.js';
import { PullQueue } from '../../../../src/agent/runtime/docker/pull-queue.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';
import type { EnsuredImage } from '../../../../src/agent/runtime/types.js';
import { Backoff } from '../../../../src/agent/worker/backoff.js';
import { ImagePuller } from '../../../../src/agent/worker/image-pull.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.53';

interface Gate {
  image: string;
  release: (err?: Error) => void;
}

/** An image service on the shared policy code, whose pulls wait for the test (one at a time). */
function scene() {
  const clock = new ManualClock();
  const present = new Map<string, number>();
  const gates: Gate[] = [];
  const queue = new PullQueue({ serialize: true });
  const pull = (image: string): Promise<number> =>
    queue.run(async () => {
      const t0 = clock.nowMs();
      await new Promise<void>((resolve, reject) =>
        gates.push({ image, release: (err) => (err ? reject(err) : resolve()) }),
      );
      present.set(image, present.get(image) ?? 0);
      return clock.nowMs() - t0;
    });
  const inspect = (image: string) =>
    Promise.resolve(
      present.has(image)
        ? { id: `sha256:${image}`, sizeBytes: present.get(image) ?? 0 }
        : undefined,
    );
  const images = {
    ensureImage: (
      image: string,
      policy: 'Always' | 'IfNotPresent' | 'Never',
      _credentials?: unknown,
      onPulling?: () => void,
    ): Promise<EnsuredImage> => ensureImageWith({ inspect, pull }, image, policy, [], onPulling),
    listImages: () => Promise.resolve([]),
    removeImage: () => Promise.resolve(),
    imageFsInfo: () => Promise.resolve(undefined),
  };
  const events: string[] = [];
  const waiting = new Map<string, Map<string, { reason: string; message?: string }>>();
  const puller = new ImagePuller({
    images,
    clock,
    imagePullBackoff: new Backoff({ clock }),
    recordEvent: (e) =>
      events.push(
        `${e.pod.metadata.name} ${e.fieldPath ?? ''} ${e.type} ${e.reason}: ${e.message}`,
      ),
    waitingOf: (uid) => {
      const m = waiting.get(uid) ?? new Map<string, { reason: string; message?: string }>();
      waiting.set(uid, m);
      return m;
    },
  });
  const log = recordingLogger();
  const start = (pod: Pod, c: Container, kind: 'app' | 'init' | 'ephemeral' = 'app') =>
    puller.pull({ pod, log }, c, kind);
  /** Lets the pulls in flight reach their gate (or the queue). */
  const flush = () => new Promise<void>((r) => setImmediate(r));
  return { clock, present, gates, events, waiting, start, flush };
}

function podOf(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [] },
  } as unknown as Pod;
}

const ctr = (image: string, imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never'): Container =>
  ({ name: 'c', image, ...(imagePullPolicy ? { imagePullPolicy } : {}) }) as Container;

test('an image already present with IfNotPresent: Pulled "Container image ... already present on machine", on this pod only', async () => {
  const s = scene();
  s.present.set(AGNHOST, 1000);
  assert.equal(await s.start(podOf('a'), ctr(AGNHOST, 'IfNotPresent')), undefined);
  assert.equal(await s.start(podOf('b'), ctr(AGNHOST)), undefined, 'a tagged image: IfNotPresent');
  assert.deepEqual(s.events, [
    `a spec.containers{c} Normal Pulled: Container image "${AGNHOST}" already present on machine`,
    `b spec.containers{c} Normal Pulled: Container image "${AGNHOST}" already present on machine`,
  ]);
});

test('policy Never without the image: ErrImageNeverPull, then the start error "Error: ErrImageNeverPull"', async () => {
  const s = scene();
  const r = await s.start(podOf('n'), ctr('local:1', 'Never'));
  assert.ok(r !== undefined && r.requeueAfterMs > 0);
  assert.deepEqual(s.events, [
    'n spec.containers{c} Warning ErrImageNeverPull: Container image "local:1" is not present with pull policy of Never',
    'n spec.containers{c} Warning Failed: Error: ErrImageNeverPull',
  ]);
  assert.deepEqual(s.waiting.get('uid-n')?.get('c'), {
    reason: 'ErrImageNeverPull',
    message: 'Container image "local:1" is not present with pull policy of Never',
  });
  s.present.set('local:1', 0);
  s.events.length = 0;
  await s.start(podOf('n'), ctr('local:1', 'Never'));
  assert.deepEqual(s.events, [
    'n spec.containers{c} Normal Pulled: Container image "local:1" already present on machine',
  ]);
});

test('a pull: Pulling, then Pulled with the pull time, the time including the wait for a pull slot and the size; two pods pulling at once each get their own events', async () => {
  const s = scene();
  const a = s.start(podOf('a'), ctr(AGNHOST));
  const b = s.start(podOf('b'), ctr(AGNHOST, 'IfNotPresent'));
  await s.flush();
  assert.deepEqual(s.events, [
    `a spec.containers{c} Normal Pulling: Pulling image "${AGNHOST}"`,
    `b spec.containers{c} Normal Pulling: Pulling image "${AGNHOST}"`,
  ]);
  assert.equal(s.gates.length, 1, "serialized pulls: b waits for a's");
  s.clock.advance(1234);
  s.present.set(AGNHOST, 53_687_091);
  s.gates.shift()?.release();
  assert.equal(await a, undefined);
  await s.flush();
  s.clock.advance(512);
  s.gates.shift()?.release();
  assert.equal(await b, undefined);
  // a pod that starts later on the same image finds it present
  await s.start(podOf('later'), ctr(AGNHOST));
  assert.deepEqual(s.events.slice(2), [
    `a spec.containers{c} Normal Pulled: Successfully pulled image "${AGNHOST}" in 1.234s (1.234s including waiting). Image size: 53687091 bytes.`,
    `b spec.containers{c} Normal Pulled: Successfully pulled image "${AGNHOST}" in 512ms (1.746s including waiting). Image size: 53687091 bytes.`,
    `later spec.containers{c} Normal Pulled: Container image "${AGNHOST}" already present on machine`,
  ]);
});

test('a pull whose runtime gives no size: "Image size: 0 bytes.", as the reference prints an unknown size', async () => {
  const s = scene();
  const r = s.start(podOf('z'), ctr('x:1'));
  await s.flush();
  s.gates.shift()?.release();
  await r;
  assert.equal(
    s.events[1],
    'z spec.containers{c} Normal Pulled: Successfully pulled image "x:1" in 0s (0s including waiting). Image size: 0 bytes.',
  );
});

test('a failed pull: Failed "Failed to pull image", then "Error: ErrImagePull"; the next try within the back-off is BackOff and "Error: ImagePullBackOff", with no pull, and waits with the failed pull\'s message', async () => {
  const s = scene();
  const r = s.start(podOf('f'), ctr('x:1', 'Always'));
  await s.flush();
  s.gates.shift()?.release(new Error('manifest unknown'));
  const first = await r;
  assert.deepEqual(first, { requeueAfterMs: 10_000 }, "the pod worker's back-off, 10 s");
  assert.deepEqual(s.events, [
    'f spec.containers{c} Normal Pulling: Pulling image "x:1"',
    'f spec.containers{c} Warning Failed: Failed to pull image "x:1": manifest unknown',
    'f spec.containers{c} Warning Failed: Error: ErrImagePull',
  ]);
  assert.equal(s.waiting.get('uid-f')?.get('c')?.reason, 'ErrImagePull');
  s.events.length = 0;
  s.clock.advance(4000);
  // a sync inside the image's back-off (10 s) finds it running: ImagePullBackOff, and the pod
  // worker's own back-off again, as the reference's
  assert.deepEqual(await s.start(podOf('f'), ctr('x:1', 'Always')), { requeueAfterMs: 10_000 });
  assert.equal(s.gates.length, 0, 'no pull in the back-off');
  assert.deepEqual(s.events, [
    'f spec.containers{c} Normal BackOff: Back-off pulling image "x:1"',
    'f spec.containers{c} Warning Failed: Error: ImagePullBackOff',
  ]);
  assert.deepEqual(s.waiting.get('uid-f')?.get('c'), {
    reason: 'ImagePullBackOff',
    // the reference's since 1.32: the failed pull's reason and message after the back-off's
    // (the runtime's words, as kube-apiserver showed the kubelet 1.32.13's: "Back-off pulling
    // image \"registry.invalid/nope:1\": ErrImagePull: failed to pull and unpack image ...")
    message: 'Back-off pulling image "x:1": ErrImagePull: manifest unknown',
  });
  s.events.length = 0;
  s.clock.advance(6000);
  const again = s.start(podOf('f'), ctr('x:1', 'Always'));
  await s.flush();
  s.gates.shift()?.release();
  assert.equal(await again, undefined, 'after the back-off the pull is tried again');
  assert.equal(s.events[0], 'f spec.containers{c} Normal Pulling: Pulling image "x:1"');
});

test('in the pull back-off an image that has appeared is used (IfNotPresent): the presence check comes first, as the reference', async () => {
  const s = scene();
  const r = s.start(podOf('p'), ctr('x:1', 'IfNotPresent'));
  await s.flush();
  s.gates.shift()?.release(new Error('connection refused'));
  await r;
  s.present.set('x:1', 0);
  s.events.length = 0;
  assert.equal(await s.start(podOf('p'), ctr('x:1', 'IfNotPresent')), undefined);
  assert.deepEqual(s.events, [
    'p spec.containers{c} Normal Pulled: Container image "x:1" already present on machine',
  ]);
});

test("another pod's failed pull and back-off of the same image write nothing on this pod", async () => {
  const s = scene();
  const failing = s.start(podOf('one'), ctr('x:1', 'Always'));
  await s.flush();
  s.gates.shift()?.release(new Error('denied'));
  await failing;
  await s.start(podOf('one'), ctr('x:1', 'Always'));
  const other = s.start(podOf('two'), ctr('x:1', 'Always'));
  await s.flush();
  s.gates.shift()?.release();
  await other;
  assert.deepEqual(
    s.events.filter((e) => e.startsWith('two ')).map((e) => e.split(':')[0]),
    ['two spec.containers{c} Normal Pulling', 'two spec.containers{c} Normal Pulled'],
    "pod two pulls on its own (pod one's back-off is pod one's)",
  );
  assert.equal(s.events.filter((e) => e.startsWith('one ')).length, 5);
});

test('init and ephemeral containers: spec.initContainers{name} and spec.ephemeralContainers{name}', async () => {
  const s = scene();
  s.present.set('x:1', 0);
  await s.start(podOf('k'), { name: 'setup', image: 'x:1' } as Container, 'init');
  await s.start(podOf('k'), { name: 'debugger', image: 'x:1' } as Container, 'ephemeral');
  assert.deepEqual(
    s.events.map((e) => e.split(' ')[1]),
    ['spec.initContainers{setup}', 'spec.ephemeralContainers{debugger}'],
  );
});
