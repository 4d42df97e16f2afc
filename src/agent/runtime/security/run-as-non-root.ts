// runAsNonRoot as the reference checks it before a container is made (verifyRunAsNonRoot): with
// the option on, an explicit runAsUser 0, an image that runs as root (uid 0, or no USER at all),
// or an image user given by name (which cannot be verified) stops the container with
// CreateContainerConfigError and one of the reference's messages.
import type { Container, Pod } from '../../pod/types.js';
import { goQuote } from '../../../common/util/go-quote.js';
import { effectiveSecurity } from './effective.js';

/** Who an image runs as: a numeric uid, a user name, or neither (root). */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/**
 * An image's USER (`uid`, `name`, `uid:gid`, `name:group`) as the runtimes report it: the part
 * before `:` as a uid when it is a decimal number, else as a name; empty is neither.
 */
export function parseImageUser(user: string | undefined): ImageUser {
  if (user === undefined || user === '') return {};
  const head = user.split(':')[0] ?? '';
  if (/^[+-]?\d+$/.test(head)) {
    const uid = Number(head);
    if (Number.isSafeInteger(uid)) return { uid };
  }
  return { username: head };
}

/** The image's uid as the reference takes it: its uid, none when named, else root (0). */
export function imageUid(u: ImageUser): number | undefined {
  if (u.uid !== undefined) return u.uid;
  return u.username !== undefined && u.username !== '' ? undefined : 0;
}

/** The pod as the reference's format.Pod writes it: `name_namespace(uid)`. */
const podDesc = (pod: Pod): string =>
  `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/** Why the container may not run under runAsNonRoot, or undefined when it may. */
export function runAsNonRootViolation(
  pod: Pod,
  c: Container,
  image: ImageUser,
): string | undefined {
  const e = effectiveSecurity(pod, c);
  if (e.runAsNonRoot !== true) return undefined;
  const where = `(pod: ${goQuote(podDesc(pod))}, container: ${c.name})`;
  if (e.runAsUser !== undefined)
    return e.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  const uid = imageUid(image);
  if (uid === 0) return `container has runAsNonRoot and image will run as root ${where}`;
  if (uid === undefined)
    return (
      `container has runAsNonRoot and image has non-numeric user (${image.username ?? ''}` +
      `), cannot verify user is non-root ${where}`
    );
  return undefined;
}
