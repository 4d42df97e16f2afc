// Pod (core/v1, namespaced, with /status). The reference's defaulting (pod-defaults.ts), enough of
// its validation for node agents to run pods from the API: containers with names and images, the
// restart policy, and graceful deletion of pods bound to a node (the agent finishes the deletion with
// gracePeriodSeconds=0 once the containers are gone).

import type { FieldErrorLike } from '../../status.js';
import { validateObjectMeta, isDns1123Label, isDns1123Subdomain } from '../meta.js';
import { objAt, str, type Obj, type ResourceDef } from '../types.js';
import { isRecord } from '../../../common/util/json-shape.js';
import { defaultPod } from './pod-defaults.js';
import { podQosClass } from './pod-qos.js';
import { syncAppArmor } from './pod-apparmor.js';
import {
  EPHEMERAL_SUBRESOURCE,
  isMirrorPod,
  prepareEphemeralUpdate,
  validateEphemeralFields,
  validateEphemeralUnchanged,
  validateEphemeralUpdate,
  validateNoEphemeralOnCreate,
} from './pod-ephemeral.js';

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

function validateContainers(
  spec: Obj,
  list: string,
  required: boolean,
  errs: FieldErrorLike[],
  names: Set<string>,
): void {
  const cs = spec[list];
  const path = `spec.${list}`;
  if (cs === undefined || cs === null) {
    if (required) errs.push({ type: 'FieldValueRequired', field: path, detail: '' });
    return;
  }
  if (!Array.isArray(cs)) {
    errs.push({ type: 'FieldValueInvalid', field: path, value: cs, detail: 'must be a list' });
    return;
  }
  if (required && cs.length === 0)
    errs.push({ type: 'FieldValueRequired', field: path, detail: '' });
  cs.forEach((c: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isRecord(c)) {
      errs.push({ type: 'FieldValueInvalid', field: p, value: c, detail: 'must be an object' });
      return;
    }
    const co = c;
    const name = str(co['name']) ?? '';
    if (name === '') errs.push({ type: 'FieldValueRequired', field: `${p}.name`, detail: '' });
    else {
      for (const e of isDns1123Label(name))
        errs.push({ type: 'FieldValueInvalid', field: `${p}.name`, value: name, detail: e });
      if (names.has(name))
        errs.push({ type: 'FieldValueDuplicate', field: `${p}.name`, value: name, detail: '' });
      names.add(name);
    }
    const image = str(co['image']) ?? '';
    if (image.trim() === '')
      errs.push({ type: 'FieldValueRequired', field: `${p}.image`, detail: '' });
    const pull = co['imagePullPolicy'];
    if (pull !== undefined && !pullPolicies.includes(str(pull) ?? '')) {
      errs.push({
        type: 'FieldValueNotSupported',
        field: `${p}.imagePullPolicy`,
        value: pull,
        detail: `supported values: ${pullPolicies.map((v) => `"${v}"`).join(', ')}`,
      });
    }
  });
}

function validatePod(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  const spec = objAt(obj, 'spec');
  if (spec === undefined) {
    errs.push({ type: 'FieldValueRequired', field: 'spec', detail: '' });
    return errs;
  }
  const names = new Set<string>();
  validateContainers(spec, 'containers', true, errs, names);
  validateContainers(spec, 'initContainers', false, errs, names);
  validateContainers(spec, 'ephemeralContainers', false, errs, names);
  errs.push(...validateEphemeralFields(spec));
  const rp = spec['restartPolicy'];
  if (rp !== undefined && !restartPolicies.includes(str(rp) ?? '')) {
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.restartPolicy',
      value: rp,
      detail: `supported values: ${restartPolicies.map((v) => `"${v}"`).join(', ')}`,
    });
  }
  const grace = spec['terminationGracePeriodSeconds'];
  if (
    grace !== undefined &&
    grace !== null &&
    (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)
  ) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.terminationGracePeriodSeconds',
      value: grace,
      detail: 'must be greater than or equal to 0',
    });
  }
  return errs;
}

export const podDef: ResourceDef = {
  resource: 'pods',
  singularName: 'pod',
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  namespaced: true,
  shortNames: ['po'],
  subresources: ['binding', 'status', EPHEMERAL_SUBRESOURCE],
  // pods/binding: the scheduler's Binding (pod-binding.ts), which sets spec.nodeName and
  // PodScheduled.
  actionSubresources: { binding: { kind: 'Binding' } },
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  prepareForCreate: (obj, ctx) => {
    defaultPod(obj);
    syncAppArmor(obj, ctx.appArmorAnnotationPrefix);
    obj['status'] = { phase: 'Pending', qosClass: podQosClass(objAt(obj, 'spec') ?? {}) };
  },
  validateCreate: (obj) => [
    ...validatePod(obj),
    ...validateNoEphemeralOnCreate(objAt(obj, 'spec')),
  ],
  prepareForUpdate: (obj: Obj, old: Obj, subresource: string) => {
    if (subresource === 'binding') return;
    if (subresource === 'status') obj['spec'] = old['spec'];
    else if (subresource === EPHEMERAL_SUBRESOURCE) {
      prepareEphemeralUpdate(obj, old);
      defaultPod(obj);
    } else {
      obj['status'] = old['status'];
      defaultPod(obj);
    }
  },
  validateUpdate: (obj, old, subresource, ctx) => {
    const errs = [...validatePod(obj)];
    if (subresource === EPHEMERAL_SUBRESOURCE) {
      if (isMirrorPod(old, ctx)) return validateEphemeralUpdate(obj, old, ctx);
      errs.push(...validateEphemeralUpdate(obj, old, ctx));
    }
    if (subresource === '') {
      errs.push(...validateEphemeralUnchanged(obj, old));
      // Only a few spec fields may change on a running pod; the node binding is set once.
      const oldNode = str(objAt(old, 'spec')?.['nodeName']) ?? '';
      const newNode = str(objAt(obj, 'spec')?.['nodeName']) ?? '';
      if (oldNode !== '' && newNode !== oldNode) {
        errs.push({
          type: 'FieldValueInvalid',
          field: 'spec.nodeName',
          value: newNode,
          detail: 'field is immutable',
        });
      }
    }
    return errs;
  },
  defaultGracePeriodSeconds: (obj) => {
    const spec = objAt(obj, 'spec');
    const phase = str(objAt(obj, 'status')?.['phase']);
    // Unbound or finished pods go at once; bound pods wait for their node agent.
    if ((str(spec?.['nodeName']) ?? '') === '' || phase === 'Succeeded' || phase === 'Failed')
      return 0;
    const g = spec?.['terminationGracePeriodSeconds'];
    return typeof g === 'number' ? g : 30;
  },
};
