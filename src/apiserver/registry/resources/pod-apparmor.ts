// A new pod's AppArmor annotations and fields kept in step, as the reference's pod strategy does
// on create (node agents read only the fields): a container without the deprecated annotation
// gets one from its appArmorProfile (or the pod's); a container with the annotation and no
// profile of its own gets the profile it names, unless that is the pod's profile already or the
// annotation names none (an unknown value, or localhost/ with no name). Windows pods are left as
// they are.

import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { isDeepStrictEqual } from 'node:util';
import { objAt, str, type Obj } from '../types.js';

const UNCONFINED = 'unconfined';
const RUNTIME_DEFAULT = 'runtime/default';
const LOCALHOST = 'localhost/';
/** The longest localhost profile name the reference accepts (PATH_MAX - 1). */
const MAX_LOCALHOST_PROFILE = 4095;

/** The annotation value for a profile field; "" when it has none. */
function annotationFor(profile: unknown): string {
  if (!isRecord(profile)) return '';
  if (profile['type'] === 'Unconfined') return UNCONFINED;
  if (profile['type'] === 'RuntimeDefault') return RUNTIME_DEFAULT;
  const local = str(profile['localhostProfile']);
  return profile['type'] === 'Localhost' && local !== undefined ? `${LOCALHOST}${local}` : '';
}

/** The profile field an annotation names, or undefined when it names no valid one. */
function fieldFor(annotation: string): Obj | undefined {
  if (annotation === UNCONFINED) return { type: 'Unconfined' };
  if (annotation === RUNTIME_DEFAULT) return { type: 'RuntimeDefault' };
  if (!annotation.startsWith(LOCALHOST)) return undefined;
  const name = annotation.slice(LOCALHOST.length);
  const valid = name !== '' && name.trim() === name && name.length <= MAX_LOCALHOST_PROFILE;
  return valid ? { type: 'Localhost', localhostProfile: name } : undefined;
}

function syncContainer(c: Obj, annotations: Obj, prefix: string, podProfile: unknown): void {
  const key = `${prefix}${str(c['name']) ?? ''}`;
  const annotation = annotations[key];
  const securityContext = isRecord(c['securityContext']) ? c['securityContext'] : undefined;
  const own = securityContext?.['appArmorProfile'];
  if (annotation === undefined) {
    const value = annotationFor(own ?? podProfile);
    if (value !== '') annotations[key] = value;
    return;
  }
  if ((own !== undefined && own !== null) || typeof annotation !== 'string') return;
  const field = fieldFor(annotation);
  if (field === undefined || isDeepStrictEqual(field, podProfile)) return;
  if (securityContext !== undefined) securityContext['appArmorProfile'] = field;
  else c['securityContext'] ??= { appArmorProfile: field };
}

/** The pod's AppArmor annotations and fields in step; `prefix` is the profile's annotation key. */
export function syncAppArmor(pod: Obj, prefix: string): void {
  const spec = objAt(pod, 'spec');
  if (spec === undefined || objAt(spec, 'os')?.['name'] === 'windows') return;
  const podProfile = objAt(spec, 'securityContext')?.['appArmorProfile'];
  const meta = objAt(pod, 'metadata');
  if (meta === undefined) return;
  const annotations = isRecord(meta['annotations']) ? meta['annotations'] : {};
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const c of listOf(spec[list]).filter(isRecord))
      syncContainer(c, annotations, prefix, podProfile);
  if (Object.keys(annotations).length > 0) meta['annotations'] = annotations;
}
