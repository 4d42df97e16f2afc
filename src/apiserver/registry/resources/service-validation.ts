// The reference's ValidateService for what plat-apiserver serves (ClusterIP, headless and
// ExternalName Services): ports (required unless headless or ExternalName; a name when there are
// several, a DNS-1123 label, unique; port 1-65535; TCP, UDP or SCTP; targetPort a port number or
// an IANA_SVC_NAME; no duplicate port and protocol), the selector's labels, sessionAffinity, the
// cluster IP ("None" or an IP address), externalIPs, the type, and no node ports. NodePort and
// LoadBalancer Services are refused by name: plat-apiserver allocates no node ports.

import { isIP } from 'node:net';
import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { isDns1123Label, isDns1123Subdomain, isValidPortName } from '../../../common/util/names.js';
import type { FieldErrorLike } from '../../status.js';
import { goStrings, goSyntax } from '../../field-errors.js';
import { objAt, str, type Obj } from '../types.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
export const SERVED_SERVICE_TYPES = ['ClusterIP', 'ExternalName'];
const IP_DETAIL = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const notSupported = (
  field: string,
  value: unknown,
  supported: readonly string[],
): FieldErrorLike => ({
  type: 'FieldValueNotSupported',
  field,
  value,
  detail: `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
});
const invalidPort = (field: string, value: unknown): FieldErrorLike => ({
  type: 'FieldValueInvalid',
  field,
  value,
  detail: 'must be between 1 and 65535, inclusive',
});

export function isHeadless(spec: Obj): boolean {
  return str(spec['clusterIP']) === 'None';
}

function validateTargetPort(v: unknown, field: string): FieldErrorLike[] {
  if (v === undefined) return [];
  if (typeof v === 'number')
    return Number.isInteger(v) && v >= 1 && v <= 65535 ? [] : [invalidPort(field, v)];
  if (typeof v === 'string')
    return isValidPortName(v).map((d) => ({
      type: 'FieldValueInvalid',
      field,
      value: v,
      detail: d,
    }));
  return [{ type: 'FieldValueInvalid', field, value: v, detail: 'must be an integer or a string' }];
}

function validatePort(
  p: Obj,
  path: string,
  requireName: boolean,
  names: Set<string>,
): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const name = str(p['name']) ?? '';
  if (requireName && name === '')
    errs.push({ type: 'FieldValueRequired', field: `${path}.name`, detail: '' });
  else if (name !== '') {
    for (const d of isDns1123Label(name))
      errs.push({ type: 'FieldValueInvalid', field: `${path}.name`, value: name, detail: d });
    if (names.has(name))
      errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, value: name, detail: '' });
    names.add(name);
  }
  const port = p['port'];
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(invalidPort(`${path}.port`, port ?? 0));
  const protocol = str(p['protocol']) ?? '';
  if (protocol === '')
    errs.push({ type: 'FieldValueRequired', field: `${path}.protocol`, detail: '' });
  else if (!PROTOCOLS.includes(protocol))
    errs.push(notSupported(`${path}.protocol`, protocol, PROTOCOLS));
  errs.push(...validateTargetPort(p['targetPort'], `${path}.targetPort`));
  return errs;
}

function validatePorts(spec: Obj, type: string): FieldErrorLike[] {
  const ports = listOf(spec['ports']);
  const errs: FieldErrorLike[] = [];
  if (ports.length === 0 && !isHeadless(spec) && type !== 'ExternalName')
    errs.push({ type: 'FieldValueRequired', field: 'spec.ports', detail: '' });
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    if (!isRecord(p)) {
      errs.push({ type: 'FieldValueInvalid', field: path, value: p, detail: 'must be an object' });
      return;
    }
    errs.push(...validatePort(p, path, ports.length > 1, names));
    if (type === 'ClusterIP' && typeof p['nodePort'] === 'number' && p['nodePort'] !== 0)
      errs.push({
        type: 'FieldValueForbidden',
        field: `${path}.nodePort`,
        detail: "may not be used when `type` is 'ClusterIP'",
      });
    const key = `${String(p['protocol'])}/${String(p['port'])}`;
    if (seen.has(key))
      errs.push({
        type: 'FieldValueDuplicate',
        field: path,
        value: goSyntax(
          `core.ServicePort{Name:"", Protocol:${JSON.stringify(String(p['protocol']))}, ` +
            `AppProtocol:(*string)(nil), Port:${String(p['port'])}, ` +
            `TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
        ),
        detail: '',
      });
    seen.add(key);
  });
  return errs;
}

function validateClusterIps(spec: Obj, type: string): FieldErrorLike[] {
  const ips = listOf(spec['clusterIPs']);
  if (type === 'ExternalName') {
    const errs: FieldErrorLike[] = [];
    if (ips.length > 0)
      errs.push({
        type: 'FieldValueForbidden',
        field: 'spec.clusterIPs',
        detail: 'may not be set for ExternalName services',
      });
    const cname = (str(spec['externalName']) ?? '').replace(/\.$/, '');
    if (cname === '')
      errs.push({ type: 'FieldValueRequired', field: 'spec.externalName', detail: '' });
    else
      for (const d of isDns1123Subdomain(cname))
        errs.push({
          type: 'FieldValueInvalid',
          field: 'spec.externalName',
          value: cname,
          detail: d,
        });
    return errs;
  }
  const errs: FieldErrorLike[] = [];
  if (ips.length > 1)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.clusterIPs',
      value: goStrings(ips),
      detail: 'only one cluster IP is served here (plat-apiserver is single-stack IPv4)',
    });
  ips.forEach((ip, i) => {
    if (ip === 'None' && i === 0) return;
    if (typeof ip !== 'string' || isIP(ip) === 0)
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.clusterIPs[${i}]`,
        value: ip,
        detail: IP_DETAIL,
      });
  });
  if (
    str(spec['clusterIP']) !== undefined &&
    str(spec['clusterIP']) !== '' &&
    ips[0] !== spec['clusterIP']
  )
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.clusterIPs',
      value: goStrings(ips),
      detail: 'element [0] must match clusterIP',
    });
  return errs;
}

export function validateServiceSpec(obj: Obj): FieldErrorLike[] {
  const spec = objAt(obj, 'spec') ?? {};
  const type = str(spec['type']) ?? '';
  const errs = [...validatePorts(spec, type), ...validateClusterIps(spec, type)];
  const affinity = str(spec['sessionAffinity']) ?? '';
  if (affinity === '')
    errs.push({ type: 'FieldValueRequired', field: 'spec.sessionAffinity', detail: '' });
  else if (!AFFINITIES.includes(affinity))
    errs.push(notSupported('spec.sessionAffinity', affinity, AFFINITIES));
  listOf(spec['externalIPs']).forEach((ip, i) => {
    if (typeof ip !== 'string' || isIP(ip) === 0)
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.externalIPs[${i}]`,
        value: ip,
        detail: IP_DETAIL,
      });
  });
  if (type === '') errs.push({ type: 'FieldValueRequired', field: 'spec.type', detail: '' });
  else if (!SERVED_SERVICE_TYPES.includes(type))
    errs.push(notSupported('spec.type', type, SERVED_SERVICE_TYPES));
  return errs;
}
