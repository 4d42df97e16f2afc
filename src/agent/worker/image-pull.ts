// A container's image, as the reference's image manager ensures it for one container start, and
// the events it writes on that pod's container (and no other pod's): `Pulled` "already present on
// machine" when the policy lets a present image be used; `ErrImageNeverPull` for policy Never
// without the image; in the pull back-off `BackOff` "Back-off pulling image"; otherwise `Pulling`,
// then `Pulled` with the pull's time, the time including the wait for a pull slot and the image's
// size, or `Failed` with the runtime's error. A failure is also the reference's start error event
// (`Failed` "Error: <reason>"), the container's waiting reason and a requeue after the pod worker's
// back-off: a sync that finds the image's back-off still running says ImagePullBackOff, as the
// reference's does.
import type { Clock } from '../../common/util/clock.js';
import { formatDuration } from '../../common/util/values/index.js';
import type { Logger } from '../../common/log/types.js';
import type { Container, Pod } from '../pod/types.js';
import {
  ImagePullError,
  defaultPullPolicy,
  runtimeWords,
  type ContainerKind,
  type EnsuredImage,
  type ImageService,
} from '../runtime/types.js';
import { WORKER_RETRY_MS, type Backoff } from './backoff.js';
import { containerFieldPath } from './container-kill.js';
import type { PullCredentials } from './pull-credentials.js';
import type { PodEvent } from './status-manager.js';

export interface ImagePullerOptions {
  images: ImageService;
  clock: Clock;
  imagePullBackoff: Backoff;
  recordEvent: (e: PodEvent) => void;
  /** The pod's waiting reasons by container name. */
  waitingOf: (uid: string) => Map<string, { reason: string; message?: string }>;
  pullCredentials?: PullCredentials;
}

type Kind = Exclude<ContainerKind, 'sandbox'>;
/** The pod whose container starts, and its log. */
interface Target {
  pod: Pod;
  log: Logger;
}
interface Requeue {
  requeueAfterMs: number;
}
type Emit = (type: PodEvent['type'], reason: string, message: string) => void;

/** Go's Duration.String() of whole milliseconds (the reference truncates pull times to ms). */
const ms = (n: number): string => formatDuration(Math.max(0, Math.floor(n)));

function pulledMessage(
  image: string,
  pulled: NonNullable<EnsuredImage['pulled']>,
  totalMs: number,
) {
  return (
    `Successfully pulled image "${image}" in ${ms(pulled.durationMs)} ` +
    `(${ms(totalMs)} including waiting). Image size: ${pulled.sizeBytes} bytes.`
  );
}

/** The back-off's words, the `BackOff` event's message whole. */
const backOffText = (image: string): string => `Back-off pulling image "${image}"`;

/** The event the image manager writes for a failure (the start's own `Error:` event follows). */
function failureEvent(image: string, err: unknown, emit: Emit): string {
  if (!(err instanceof ImagePullError)) return 'ErrImagePull';
  if (err.reason === 'ErrImageNeverPull') emit('Warning', 'ErrImageNeverPull', err.message);
  else if (err.reason === 'ImagePullBackOff') emit('Normal', 'BackOff', backOffText(image));
  else if (err.reason === 'ErrImagePull')
    emit('Warning', 'Failed', `Failed to pull image "${image}": ${err.runtimeWords}`);
  return err.reason;
}

/**
 * The back-off's refusal: the event says `Back-off pulling image "<image>"`; the container's
 * waiting message adds the failed pull's reason and message, as the reference's does since 1.32.
 */
function backOffError(image: string, key: string, o: ImagePullerOptions): ImagePullError {
  const previous = o.imagePullBackoff.noteOf(key);
  const text = backOffText(image);
  return new ImagePullError(
    'ImagePullBackOff',
    previous === undefined ? text : `${text}: ${previous}`,
  );
}

export class ImagePuller {
  constructor(private readonly o: ImagePullerOptions) {}

  /**
   * Ensures the container's image; undefined when it is there, else the sync's requeue (the
   * container waits with the reason and message).
   */
  async pull(target: Target, c: Container, kind: Kind): Promise<Requeue | undefined> {
    const image = c.image;
    if (image === undefined || image === '') return undefined;
    const { pod } = target;
    const fieldPath = containerFieldPath(c.name, kind);
    const emit: Emit = (type, reason, message) =>
      this.o.recordEvent({ pod, fieldPath, type, reason, message });
    const key = `${pod.metadata.uid}/${c.name}/${image}`;
    const policy =
      c.imagePullPolicy === undefined || c.imagePullPolicy === ''
        ? defaultPullPolicy(image)
        : c.imagePullPolicy;
    let pullingAt: number | undefined;
    const onPulling = (): void => {
      if (this.o.imagePullBackoff.remainingMs(key) > 0) throw backOffError(image, key, this.o);
      emit('Normal', 'Pulling', `Pulling image "${image}"`);
      pullingAt = this.o.clock.nowMs();
    };
    try {
      const credentials = await this.o.pullCredentials?.(pod, image);
      const r = await this.o.images.ensureImage(image, policy, credentials, onPulling);
      if (r.pulled === undefined)
        emit('Normal', 'Pulled', `Container image "${image}" already present on machine`);
      else
        emit(
          'Normal',
          'Pulled',
          pulledMessage(
            image,
            r.pulled,
            pullingAt === undefined ? r.pulled.durationMs : this.o.clock.nowMs() - pullingAt,
          ),
        );
      this.o.imagePullBackoff.reset(key);
      return undefined;
    } catch (err) {
      return this.fail(target, c, key, err, emit);
    }
  }

  private fail(target: Target, c: Container, key: string, err: unknown, emit: Emit): Requeue {
    const reason = failureEvent(c.image ?? '', err, emit);
    emit('Warning', 'Failed', `Error: ${reason}`);
    const message = runtimeWords(err);
    if (reason !== 'ImagePullBackOff') this.o.imagePullBackoff.next(key, `${reason}: ${message}`);
    this.o.waitingOf(target.pod.metadata.uid).set(c.name, { reason, message });
    target.log.warn(
      { container: c.name, image: c.image, reason, err: message },
      'image not available; retrying with back-off',
    );
    return { requeueAfterMs: WORKER_RETRY_MS };
  }
}
