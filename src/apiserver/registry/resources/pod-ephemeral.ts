// pods/ephemeralcontainers, as the reference's podEphemeralContainersStrategy: an update through it
// changes only spec.ephemeralContainers (everything else is kept from the stored pod); containers
// may be added, never removed or changed; a mirror (static) pod takes none. Each ephemeral
// container is checked as validateEphemeralContainers does: a name unique across all the pod's
// containers, a targetContainerName naming an init or app container, and none of the fields the
// reference forbids (ports, resources, probes, lifecycle...). The pod itself may not set them on
// create, nor change them through a plain update.
import { isDeepStrictEqual } from 'node:util';
import {
  EPHEMERAL_FORBIDDEN,
  forbiddenEphemeralFields,
} from '../../../common/pod/ephemeral-fields.js';
import { isRecord } from '../../../common/util/json-shape.js';
import { textOf } from '../../../common/util/text-of.js';
import { forbidden, notFound } from '../../field-errors.js';
import type { FieldErrorLike } from '../../status.js';
import { metaOf, objAt, str, type Obj, type StrategyContext } from '../types.js';

export const EPHEMERAL_SUBRESOURCE = 'ephemeralcontainers';
const PATH = 'spec.ephemeralContainers';

function entries(spec: Obj | undefined, list: string): Obj[] {
  const v = spec?.[list];
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/**
 * The target and the forbidden fields of each ephemeral container (names are checked with the
 * others).
 */
export function validateEphemeralFields(spec: Obj): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const others = new Set(
    [...entries(spec, 'containers'), ...entries(spec, 'initContainers')].map((c) => str(c['name'])),
  );
  entries(spec, 'ephemeralContainers').forEach((ec, i) => {
    const p = `${PATH}[${i}]`;
    const target = str(ec['targetContainerName']) ?? '';
    if (target !== '' && !others.has(target))
      errs.push(notFound(`${p}.targetContainerName`, target));
    for (const f of forbiddenEphemeralFields(ec))
      errs.push(forbidden(`${p}.${f}`, EPHEMERAL_FORBIDDEN));
  });
  return errs;
}

/** A pod is created without ephemeral containers (the reference's ValidatePodCreate). */
export function validateNoEphemeralOnCreate(spec: Obj | undefined): FieldErrorLike[] {
  return entries(spec, 'ephemeralContainers').length > 0
    ? [forbidden(PATH, 'cannot be set on create')]
    : [];
}

/** The update through the subresource: the stored pod with the new ephemeral containers. */
export function prepareEphemeralUpdate(obj: Obj, old: Obj): void {
  const spec = { ...(objAt(old, 'spec') ?? {}) };
  const next = objAt(obj, 'spec')?.['ephemeralContainers'];
  if (next === undefined || next === null) delete spec['ephemeralContainers'];
  else spec['ephemeralContainers'] = next;
  obj['spec'] = spec;
  obj['status'] = old['status'];
}

/** The fields of two versions of one container that differ, old then new (a readable diff). */
function diffText(a: Obj, b: Obj): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys
    .filter((k) => !isDeepStrictEqual(a[k], b[k]))
    .map((k) => `-\t${k}: ${textOf(a[k] ?? null)}\n+\t${k}: ${textOf(b[k] ?? null)}\n`)
    .join('');
}

/** A mirror of a static pod: the subresource answers with that one error alone. */
export function isMirrorPod(pod: Obj, ctx: StrategyContext): boolean {
  const annotations = metaOf(pod)['annotations'];
  return isRecord(annotations) && annotations[ctx.mirrorAnnotation] !== undefined;
}

/** The reference's ValidatePodEphemeralContainersUpdate, after the whole pod's validation. */
export function validateEphemeralUpdate(
  obj: Obj,
  old: Obj,
  ctx: StrategyContext,
): FieldErrorLike[] {
  if (isMirrorPod(old, ctx))
    return [forbidden('', 'static pods do not support ephemeral containers')];
  const errs: FieldErrorLike[] = [];
  const now = new Map(
    entries(objAt(obj, 'spec'), 'ephemeralContainers').map((c) => [str(c['name']) ?? '', c]),
  );
  for (const before of entries(objAt(old, 'spec'), 'ephemeralContainers')) {
    const name = str(before['name']) ?? '';
    const after = now.get(name);
    if (after === undefined)
      errs.push(forbidden(PATH, `existing ephemeral containers "${name}" may not be removed\n`));
    else if (!isDeepStrictEqual(before, after))
      errs.push(
        forbidden(
          PATH,
          `existing ephemeral containers "${name}" may not be changed\n${diffText(before, after)}`,
        ),
      );
  }
  return errs;
}

/**
 * The spec fields a plain pod update may change, as the reference's ValidatePodUpdate names them.
 */
const UPDATABLE = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

/**
 * A plain update keeps the ephemeral containers: they change only through the subresource (the
 * reference refuses the change with its spec-diff error).
 */
export function validateEphemeralUnchanged(obj: Obj, old: Obj): FieldErrorLike[] {
  const a = objAt(old, 'spec')?.['ephemeralContainers'] ?? [];
  const b = objAt(obj, 'spec')?.['ephemeralContainers'] ?? [];
  if (isDeepStrictEqual(a, b)) return [];
  const diff = `-\tephemeralContainers: ${textOf(a)}\n+\tephemeralContainers: ${textOf(b)}\n`;
  return [forbidden('spec', `pod updates may not change fields other than ${UPDATABLE}\n${diff}`)];
}
