// Container ports and probes as the reference's validateContainerPorts and validateProbe check
// them (after its defaulting: protocol TCP, probe timings 1/10/1/3), with its messages.
import { duplicate, forbidden, invalid, notSupported, required } from './field-errors.js';
import type { Container, Probe } from './types.js';

const PORT_RANGE = 'must be between 1 and 65535, inclusive';
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SCHEMES = ['HTTP', 'HTTPS'];

/** The reference's IsValidPortName (IANA_SVC_NAME). */
export function portNameProblems(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

function portNumberOk(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

export function validateContainerPorts(
  ports: NonNullable<Container['ports']>,
  path: string,
  hostPorts: Set<string>,
  out: string[],
): void {
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (p.name !== undefined && p.name !== '') {
      const problems = portNameProblems(p.name);
      for (const m of problems) out.push(invalid(`${at}.name`, p.name, m));
      if (problems.length === 0 && names.has(p.name)) out.push(duplicate(`${at}.name`, p.name));
      names.add(p.name);
    }
    if (p.containerPort === 0) out.push(required(`${at}.containerPort`));
    else if (!portNumberOk(p.containerPort))
      out.push(invalid(`${at}.containerPort`, p.containerPort, PORT_RANGE));
    if (p.hostPort !== undefined && p.hostPort !== 0 && !portNumberOk(p.hostPort))
      out.push(invalid(`${at}.hostPort`, p.hostPort, PORT_RANGE));
    const protocol = p.protocol ?? 'TCP';
    if (!PROTOCOLS.includes(protocol))
      out.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    if (p.hostPort !== undefined && p.hostPort !== 0) {
      const key = `${p.hostPort}/${protocol}`;
      if (hostPorts.has(key)) out.push(duplicate(`${at}.hostPort`, key));
      hostPorts.add(key);
    }
  });
}

/** ValidatePortNumOrName. */
export function portOrName(value: number | string, path: string, out: string[]): void {
  if (typeof value === 'number') {
    if (!portNumberOk(value)) out.push(invalid(path, value, PORT_RANGE));
  } else {
    for (const m of portNameProblems(value)) out.push(invalid(path, value, m));
  }
}

function validateHandler(probe: Probe, path: string, out: string[]): void {
  const set = (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const).filter(
    (h) => probe[h] !== undefined,
  );
  if (set.length === 0) out.push(required(path, 'must specify a handler type'));
  else if (set.length > 1)
    out.push(forbidden(`${path}.${set[1] ?? ''}`, 'may not specify more than 1 handler type'));
  if (probe.exec && (probe.exec.command ?? []).length === 0)
    out.push(required(`${path}.exec.command`));
  if (probe.httpGet) {
    portOrName(probe.httpGet.port, `${path}.httpGet.port`, out);
    const given = probe.httpGet.scheme;
    const scheme = given === undefined || given === '' ? 'HTTP' : given;
    if (!SCHEMES.includes(scheme))
      out.push(notSupported(`${path}.httpGet.scheme`, scheme, SCHEMES));
  }
  if (probe.tcpSocket) portOrName(probe.tcpSocket.port, `${path}.tcpSocket.port`, out);
  if (probe.grpc) portOrName(probe.grpc.port, `${path}.grpc.port`, out);
}

/** `mustSucceedOnce`: liveness and startup probes, whose successThreshold must be 1. */
export function validateProbe(
  probe: Probe,
  path: string,
  mustSucceedOnce: boolean,
  out: string[],
): void {
  validateHandler(probe, path, out);
  for (const f of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ] as const) {
    const v = probe[f];
    if (v !== undefined && v < 0)
      out.push(invalid(`${path}.${f}`, v, 'must be greater than or equal to 0'));
  }
  if (
    mustSucceedOnce &&
    probe.successThreshold !== undefined &&
    probe.successThreshold !== 0 &&
    probe.successThreshold !== 1
  ) {
    out.push(invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  }
}
