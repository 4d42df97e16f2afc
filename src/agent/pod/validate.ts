// Validation of the rules zod's shape cannot say: name formats, uniqueness, references.
import type { Pod, Container, Probe } from './types.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface ValidatePodOptions {
  /** Docker needs an image for every container; process:// needs a command instead. */
  requireImage: boolean;
  requireCommand: boolean;
}

export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(value)) {
    return "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

function probeProblems(path: string, probe: Probe | undefined, out: string[]): void {
  if (probe === undefined) return;
  const handlers = [probe.exec, probe.httpGet, probe.tcpSocket].filter((h) => h !== undefined).length;
  if (handlers !== 1) out.push(`${path}: must have exactly one of exec, httpGet, tcpSocket (found ${handlers})`);
}

/** Every problem of the pod at once, each naming its field path; empty when valid. */
export function validatePod(pod: Pod, opts: ValidatePodOptions): string[] {
  const out: string[] = [];
  const name = pod.metadata.name;
  if (name === '') out.push('metadata.name: Required value');
  else {
    const p = dns1123SubdomainProblem(name);
    if (p !== undefined) out.push(`metadata.name: Invalid value "${name}": ${p}`);
  }
  const ns = pod.metadata.namespace;
  const nsProblem = dns1123LabelProblem(ns);
  if (nsProblem !== undefined) out.push(`metadata.namespace: Invalid value "${ns}": ${nsProblem}`);

  const volumeNames = new Set<string>();
  (pod.spec.volumes ?? []).forEach((v, i) => {
    if (volumeNames.has(v.name)) out.push(`spec.volumes[${i}].name: Duplicate value "${v.name}"`);
    volumeNames.add(v.name);
    const kinds = [v.hostPath, v.emptyDir].filter((x) => x !== undefined).length;
    if (kinds !== 1) out.push(`spec.volumes[${i}]: must have exactly one of hostPath, emptyDir`);
  });

  const seen = new Set<string>();
  const check = (c: Container, path: string, isInit: boolean): void => {
    const p = dns1123LabelProblem(c.name);
    if (c.name === '') out.push(`${path}.name: Required value`);
    else if (p !== undefined) out.push(`${path}.name: Invalid value "${c.name}": ${p}`);
    if (seen.has(c.name)) out.push(`${path}.name: Duplicate value "${c.name}"`);
    seen.add(c.name);
    if (opts.requireImage && (c.image === undefined || c.image === '')) out.push(`${path}.image: Required value`);
    if (opts.requireCommand && (c.command === undefined || c.command.length === 0)) {
      out.push(`${path}.command: Required value (the process:// runtime runs the command on the host)`);
    }
    probeProblems(`${path}.livenessProbe`, c.livenessProbe, out);
    probeProblems(`${path}.readinessProbe`, c.readinessProbe, out);
    probeProblems(`${path}.startupProbe`, c.startupProbe, out);
    if (isInit && (c.livenessProbe || c.readinessProbe || c.startupProbe)) {
      out.push(`${path}: init containers may not have probes`);
    }
    (c.volumeMounts ?? []).forEach((m, j) => {
      if (!volumeNames.has(m.name)) out.push(`${path}.volumeMounts[${j}].name: Not found "${m.name}"`);
    });
    (c.env ?? []).forEach((e, j) => {
      if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(e.name)) out.push(`${path}.env[${j}].name: Invalid value "${e.name}"`);
    });
  };
  (pod.spec.initContainers ?? []).forEach((c, i) => check(c, `spec.initContainers[${i}]`, true));
  pod.spec.containers.forEach((c, i) => check(c, `spec.containers[${i}]`, false));
  return out;
}
