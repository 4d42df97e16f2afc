// Pulling / Pulled / Failed events around image pulls. The image service is shared by the pod
// workers; its ensureImage() is wrapped (timing and events only, behaviour unchanged) and each
// pull is reported on the pods that wait for that image, as the reference reports pulls on pods.

import type { Clock } from '../../../common/util/clock.js';
import { userMessage } from '../../../common/util/errors.js';
import type { EventType, ObjectReference } from './types.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export interface PullingImages {
  ensureImage(image: string, policy: PullPolicy, credentials?: readonly unknown[]): Promise<string>;
}

export interface ImageEventOptions {
  images: PullingImages;
  /** Pods (with the container's field path) whose containers wait for `image`. */
  waitingFor(image: string): { ref: ObjectReference; container: string }[];
  events: { event(obj: ObjectReference, type: EventType, reason: string, message: string): void };
  clock: Clock;
}

export function reportImagePulls(o: ImageEventOptions): void {
  const inner = o.images.ensureImage.bind(o.images);
  o.images.ensureImage = async (image, policy, credentials) => {
    if (policy === 'Never') return inner(image, policy, credentials);
    const waiting = o.waitingFor(image);
    const emit = (type: EventType, reason: string, message: string): void => {
      for (const w of waiting)
        o.events.event(
          { ...w.ref, fieldPath: `spec.containers{${w.container}}` },
          type,
          reason,
          message,
        );
    };
    emit('Normal', 'Pulling', `Pulling image "${image}"`);
    const t0 = o.clock.nowMs();
    try {
      const id = await inner(image, policy, credentials);
      emit(
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in ${((o.clock.nowMs() - t0) / 1000).toFixed(3)}s`,
      );
      return id;
    } catch (err) {
      emit('Warning', 'Failed', `Failed to pull image "${image}": ${userMessage(err)}`);
      throw err;
    }
  };
}
