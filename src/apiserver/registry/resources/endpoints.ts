// Endpoints (core/v1, namespaced): the addresses behind a Service (here the `kubernetes` service's,
// kept by the controller). The reference's checks on what it holds: each address an IP, each
// port 1-65535 with a supported protocol and, when there are several, a name.

import { isIP } from 'node:net';
import { isRecord, listOf } from '../../../common/util/json-shape.js';
import type { FieldErrorLike } from '../../status.js';
import { isDns1123Subdomain, validateObjectMeta } from '../meta.js';
import type { Obj, ResourceDef } from '../types.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateSubset(s: Obj, path: string): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  for (const list of ['addresses', 'notReadyAddresses']) {
    listOf(s[list]).forEach((a, i) => {
      const ip = isRecord(a) ? a['ip'] : undefined;
      if (typeof ip !== 'string' || isIP(ip) === 0)
        errs.push({
          type: 'FieldValueInvalid',
          field: `${path}.${list}[${i}].ip`,
          value: ip ?? '',
          detail: 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        });
    });
  }
  const ports = listOf(s['ports']);
  ports.forEach((p, i) => {
    const at = `${path}.ports[${i}]`;
    const o = isRecord(p) ? p : {};
    if (ports.length > 1 && (typeof o['name'] !== 'string' || o['name'] === ''))
      errs.push({ type: 'FieldValueRequired', field: `${at}.name`, detail: '' });
    const port = o['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      errs.push({
        type: 'FieldValueInvalid',
        field: `${at}.port`,
        value: port ?? 0,
        detail: 'must be between 1 and 65535, inclusive',
      });
    const protocol = o['protocol'];
    if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol))
      errs.push({
        type: 'FieldValueNotSupported',
        field: `${at}.protocol`,
        value: protocol ?? '',
        detail: `supported values: ${PROTOCOLS.map((x) => JSON.stringify(x)).join(', ')}`,
      });
  });
  return errs;
}

function validateEndpoints(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  listOf(obj['subsets']).forEach((s, i) => {
    if (isRecord(s)) errs.push(...validateSubset(s, `subsets[${i}]`));
  });
  return errs;
}

function defaultPorts(obj: Obj): void {
  for (const s of listOf(obj['subsets']))
    if (isRecord(s)) for (const p of listOf(s['ports'])) if (isRecord(p)) p['protocol'] ??= 'TCP';
}

export const endpointsDef: ResourceDef = {
  resource: 'endpoints',
  singularName: 'endpoints',
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  namespaced: true,
  shortNames: ['ep'],
  subresources: [],
  allowCreateOnUpdate: true,
  returnDeletedObject: false,
  prepareForCreate: (obj) => defaultPorts(obj),
  validateCreate: (obj) => validateEndpoints(obj),
  prepareForUpdate: (obj) => defaultPorts(obj),
  validateUpdate: (obj) => validateEndpoints(obj),
};
