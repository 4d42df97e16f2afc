// The registry credentials of a pod's imagePullSecrets for one image, as the reference's
// getPullSecretsForPod and MakeDockerKeyring: each named Secret read through the agent's
// ConfigMap/Secret manager (the pod is registered with it by the volume manager's set-up, which
// runs before any pull); entries with an empty name are skipped; a Secret that cannot be read is
// no failure, only the reference's Warning event FailedToRetrieveImagePullSecret ("Unable to
// retrieve some image pull secrets (a, b); attempting to pull the image may not succeed.") and
// the pull goes on without it.
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { PodObjects } from '../objects/types.js';
import type { Pod } from '../pod/types.js';
import {
  pullSecretCredentials,
  type PullSecret,
  type PullSecretTypes,
} from '../runtime/credentials/pull-secrets.js';
import type { RegistryCredential } from '../runtime/types.js';
import type { PodEvent } from './status-manager.js';

export type PullCredentials = (pod: Pod, image: string) => Promise<RegistryCredential[]>;

export function podPullCredentials(o: {
  objects: Pick<PodObjects, 'get'>;
  /** The profile's pull secret types (names.secretTypes). */
  secretTypes: PullSecretTypes;
  recordEvent: (e: PodEvent) => void;
  logger: Logger;
}): PullCredentials {
  return async (pod, image) => {
    const secrets: PullSecret[] = [];
    const failed: string[] = [];
    for (const ref of pod.spec.imagePullSecrets ?? []) {
      const name = ref.name ?? '';
      if (name === '') continue;
      try {
        const s = await o.objects.get('Secret', pod.metadata.namespace, name);
        secrets.push({ name, data: s.data, ...(s.type !== undefined ? { type: s.type } : {}) });
      } catch (err) {
        o.logger.info(
          {
            pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
            secret: name,
            err: userMessage(err),
          },
          'Unable to retrieve pull secret, the image pull may not succeed.',
        );
        failed.push(name);
      }
    }
    if (failed.length > 0)
      o.recordEvent({
        pod,
        type: 'Warning',
        reason: 'FailedToRetrieveImagePullSecret',
        message:
          `Unable to retrieve some image pull secrets (${failed.join(', ')}); attempting ` +
          `to pull the image may not succeed.`,
      });
    return pullSecretCredentials(secrets, image, o.secretTypes);
  };
}
