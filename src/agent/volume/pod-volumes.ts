// The volumes the agent can measure: each pod's emptyDir directories under
// <root-dir>/pods/<uid>/volumes/<name> (other kinds are the host's or the runtime's).
import { joinUnder } from '../../common/util/safe-path.js';
import type { Pod } from '../pod/types.js';
import type { PodVolumes } from './stats-cache.js';

export function emptyDirVolumes(pods: () => readonly Pod[], rootDir: string): () => PodVolumes[] {
  return () =>
    pods().map((p) => ({
      uid: p.metadata.uid,
      volumes: (p.spec.volumes ?? [])
        .filter((v) => v.emptyDir !== undefined)
        .map((v) => ({
          name: v.name,
          path: joinUnder(rootDir, 'pods', p.metadata.uid, 'volumes', v.name),
        })),
    }));
}
