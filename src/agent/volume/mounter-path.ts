// --experimental-mounter-path: the reference runs this binary instead of `mount` for the mounts
// the kubelet makes itself (tmpfs for emptyDir medium Memory, bind mounts of volume plugins).
// nodeagent makes no mount itself: emptyDir volumes, medium Memory included, are directories
// under --root-dir, hostPath volumes are given to the runtime as they are, and FlexVolume drivers
// mount their own volumes. So the path is never run, which the agent says once at start.
import type { Logger } from '../../common/log/types.js';

export const MOUNTER_PATH_REASON =
  'nodeagent runs no mount command itself: emptyDir volumes (medium Memory included) are directories under --root-dir, hostPath volumes go to the runtime as they are, and FlexVolume drivers mount their own volumes';

export function noteMounterPath(mounterPath: string, logger: Logger): void {
  if (mounterPath === '') return;
  logger.warn(
    { option: '--experimental-mounter-path', mounterPath, reason: MOUNTER_PATH_REASON },
    `--experimental-mounter-path cannot take effect: ${MOUNTER_PATH_REASON}; ${mounterPath} is not used`,
  );
}
