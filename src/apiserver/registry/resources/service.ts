// Service (core/v1, namespaced, with /status): the reference's defaulting (type ClusterIP,
// sessionAffinity None, port protocol TCP, targetPort the port, internalTrafficPolicy Cluster,
// IPv4 SingleStack, clusterIPs from clusterIP) and validation (service-validation.ts); the name
// is a DNS-1035 label. A new ClusterIP Service takes its address from the cluster IP allocator
// after validation and admission (given back when the create fails); the address and the
// families cannot change afterwards, as the reference keeps them.

import { isDns1035Label } from '../../../common/util/names.js';
import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { goStrings } from '../../field-errors.js';
import { internalError, invalid, type FieldErrorLike } from '../../status.js';
import { validateObjectMeta } from '../meta.js';
import { objAt, str, type Obj, type ResourceDef } from '../types.js';
import { isHeadless, validateServiceSpec } from './service-validation.js';

/** What the Service resource needs from the cluster IP allocator (services/ip-allocator.ts). */
export interface ServiceIpPool {
  allocate(
    owner: string,
    requested: string | undefined,
  ): { ip: string } | { error: string; internal: boolean };
  release(ip: string, owner: string): void;
}

/** Zero values the reference's types omit (omitempty), as a client such as kubectl sends them. */
function dropZeroes(spec: Obj): void {
  if (spec['healthCheckNodePort'] === 0) delete spec['healthCheckNodePort'];
  if (spec['publishNotReadyAddresses'] === false) delete spec['publishNotReadyAddresses'];
  for (const p of listOf(spec['ports']))
    if (isRecord(p) && p['nodePort'] === 0) delete p['nodePort'];
}

function defaultService(obj: Obj): void {
  const spec = objAt(obj, 'spec') ?? {};
  obj['spec'] = spec;
  dropZeroes(spec);
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  for (const p of listOf(spec['ports'])) {
    if (!isRecord(p)) continue;
    p['protocol'] ??= 'TCP';
    if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '')
      p['targetPort'] = p['port'];
  }
  if (spec['type'] === 'ExternalName') return;
  spec['internalTrafficPolicy'] ??= 'Cluster';
  const ip = str(spec['clusterIP']) ?? '';
  if (ip !== '' && !Array.isArray(spec['clusterIPs'])) spec['clusterIPs'] = [ip];
  if (ip === '' && Array.isArray(spec['clusterIPs']) && typeof spec['clusterIPs'][0] === 'string')
    spec['clusterIP'] = spec['clusterIPs'][0];
}

function validateService(obj: Obj): FieldErrorLike[] {
  return [...validateObjectMeta(obj, true, isDns1035Label), ...validateServiceSpec(obj)];
}

/** The reference keeps the allocated address and families on update when they are left out. */
function keepAllocated(obj: Obj, old: Obj): void {
  const spec = objAt(obj, 'spec');
  const was = objAt(old, 'spec');
  if (spec === undefined || was === undefined || spec['type'] === 'ExternalName') return;
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'])
    if (spec[k] === undefined || spec[k] === '') spec[k] = was[k];
}

function immutableIps(obj: Obj, old: Obj): FieldErrorLike[] {
  const ips = listOf(objAt(obj, 'spec')?.['clusterIPs']);
  const was = listOf(objAt(old, 'spec')?.['clusterIPs']);
  if (was.length === 0 || JSON.stringify(ips) === JSON.stringify(was)) return [];
  return [
    {
      type: 'FieldValueInvalid',
      field: 'spec.clusterIPs[0]',
      value: goStrings(ips),
      detail: 'may not change once set',
    },
  ];
}

function reserveIp(
  pool: ServiceIpPool,
  obj: Obj,
  key: string,
): ((stored: boolean) => void) | undefined {
  const spec = objAt(obj, 'spec') ?? {};
  if (spec['type'] === 'ExternalName' || isHeadless(spec)) return undefined;
  const requested = str(spec['clusterIP']) ?? '';
  const got = pool.allocate(key, requested === '' ? undefined : requested);
  const name = str(objAt(obj, 'metadata')?.['name']) ?? '';
  if ('error' in got) {
    if (got.internal) throw internalError(`failed to allocate a serviceIP: ${got.error}`);
    throw invalid('Service', '', name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.clusterIPs',
        value: goStrings(listOf(spec['clusterIPs'])),
        detail: `failed to allocate IP ${requested}: ${got.error}`,
      },
    ]);
  }
  spec['clusterIP'] = got.ip;
  spec['clusterIPs'] = [got.ip];
  spec['ipFamilies'] = ['IPv4'];
  spec['ipFamilyPolicy'] = 'SingleStack';
  return (stored) => {
    if (!stored) pool.release(got.ip, key);
  };
}

export function serviceDef(pool: ServiceIpPool): ResourceDef {
  return {
    resource: 'services',
    singularName: 'service',
    group: '',
    version: 'v1',
    kind: 'Service',
    listKind: 'ServiceList',
    namespaced: true,
    shortNames: ['svc'],
    subresources: ['status'],
    allowCreateOnUpdate: false,
    returnDeletedObject: false,
    validateName: isDns1035Label,
    prepareForCreate: (obj) => {
      defaultService(obj);
      obj['status'] = { loadBalancer: {} };
    },
    validateCreate: (obj) => validateService(obj),
    prepareForUpdate: (obj, old, subresource) => {
      if (subresource === 'status') obj['spec'] = old['spec'];
      else {
        obj['status'] = old['status'];
        defaultService(obj);
        keepAllocated(obj, old);
      }
    },
    validateUpdate: (obj, old) => [...validateService(obj), ...immutableIps(obj, old)],
    reserve: (obj, key) => reserveIp(pool, obj, key),
  };
}
