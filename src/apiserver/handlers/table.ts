// Server-side printing: the Table (meta/v1) that `kubectl get` asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, with the reference's columns for
// CSRs, events, namespaces, nodes, pods, secrets and config maps. Clients that do not ask get the plain objects.

import type { ResourceDef, Obj } from '../registry/types.js';
import { metaOf, objAt, str } from '../registry/types.js';

export interface Column {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** True when the Accept header asks for a meta/v1 Table (of this platform domain or k8s.io). */
export function wantsTable(accept: string | undefined, domain: string): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const params = part.split(';').map((p) => p.trim());
    return params.includes('as=Table') && params.includes('v=v1') && (params.includes(`g=meta.${domain}`) || params.includes('g=meta.k8s.io'));
  });
}

/** The reference's HumanDuration: 45s, 5m30s, 12m, 3h20m, 2d5h, 45d, 2y100d. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
}

function age(ts: unknown, now: Date): string {
  if (typeof ts !== 'string') return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}

const col = (name: string, type: string, description: string, priority = 0, format = ''): Column => ({ name, type, format, description, priority });

interface Printer {
  readonly columns: readonly Column[];
  cells(obj: Obj, now: Date): unknown[];
}

function csrCondition(obj: Obj): string {
  const status = objAt(obj, 'status') ?? {};
  const conds = Array.isArray(status['conditions']) ? (status['conditions'] as Obj[]) : [];
  const types = conds.filter((c) => c['status'] === 'True' || c['status'] === undefined).map((c) => String(c['type'] ?? ''));
  const issued = typeof status['certificate'] === 'string' && status['certificate'] !== '';
  const out = [...types];
  if (issued) out.push('Issued');
  return out.length === 0 ? 'Pending' : out.join(',');
}

function involvedObject(obj: Obj): string {
  const io = objAt(obj, 'involvedObject') ?? {};
  return `${String(io['kind'] ?? '').toLowerCase()}/${String(io['name'] ?? '')}`;
}

const roleTable: Printer = {
  columns: [col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'), col('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.')],
  cells: (o) => [str(metaOf(o)['name']) ?? '', str(metaOf(o)['creationTimestamp']) ?? ''],
};

function subjectNames(o: Obj, kind: string): string {
  const subjects = Array.isArray(o['subjects']) ? (o['subjects'] as unknown[]) : [];
  return subjects
    .filter((x): x is Obj => x !== null && typeof x === 'object' && (x as Obj)['kind'] === kind)
    .map((x) => (kind === 'ServiceAccount' ? `${str(x['namespace']) ?? ''}/${str(x['name']) ?? ''}` : (str(x['name']) ?? '')))
    .join(', ');
}

const bindingTable: Printer = {
  columns: [
    col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
    col('Role', 'string', 'RoleRef references a Role or ClusterRole.'),
    col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
    col('Users', 'string', 'Users in the binding.', 1),
    col('Groups', 'string', 'Groups in the binding.', 1),
    col('ServiceAccounts', 'string', 'ServiceAccounts in the binding.', 1),
  ],
  cells: (o, now) => {
    const ref = objAt(o, 'roleRef') ?? {};
    return [
      str(metaOf(o)['name']) ?? '',
      `${str(ref['kind']) ?? ''}/${str(ref['name']) ?? ''}`,
      age(metaOf(o)['creationTimestamp'], now),
      subjectNames(o, 'User'),
      subjectNames(o, 'Group'),
      subjectNames(o, 'ServiceAccount'),
    ];
  },
};

const printers: Record<string, Printer> = {
  roles: roleTable,
  clusterroles: roleTable,
  rolebindings: bindingTable,
  clusterrolebindings: bindingTable,
  certificatesigningrequests: {
    columns: [
      col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
      col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
      col('SignerName', 'string', 'Only use the signer name if it is set.'),
      col('Requestor', 'string', 'Name of the user that created the request.'),
      col('RequestedDuration', 'string', 'Requested validity duration of the issued certificate.'),
      col('Condition', 'string', 'Approval state of the request.'),
    ],
    cells: (o, now) => {
      const spec = objAt(o, 'spec') ?? {};
      const exp = spec['expirationSeconds'];
      return [
        str(metaOf(o)['name']) ?? '',
        age(metaOf(o)['creationTimestamp'], now),
        str(spec['signerName']) ?? '',
        str(spec['username']) ?? '',
        typeof exp === 'number' ? humanDuration(exp * 1000) : '<none>',
        csrCondition(o),
      ];
    },
  },
  events: {
    columns: [
      col('Last Seen', 'string', 'Time the most recent occurrence was recorded.'),
      col('Type', 'string', 'Type of this event (Normal, Warning).'),
      col('Reason', 'string', 'Short, machine understandable reason for the transition.'),
      col('Object', 'string', 'The object this event is about.'),
      col('Subobject', 'string', 'The field path of the involved object.', 1),
      col('Source', 'string', 'The component reporting this event.', 1),
      col('Message', 'string', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'string', 'Time the event was first recorded.', 1),
      col('Count', 'string', 'Number of times this event has occurred.', 1),
      col('Name', 'string', 'Name must be unique within a namespace.', 1, 'name'),
    ],
    cells: (o, now) => {
      const last = o['lastTimestamp'] ?? o['eventTime'] ?? metaOf(o)['creationTimestamp'];
      const src = objAt(o, 'source') ?? {};
      return [
        age(last, now),
        str(o['type']) ?? '',
        str(o['reason']) ?? '',
        involvedObject(o),
        str(objAt(o, 'involvedObject')?.['fieldPath']) ?? '',
        [str(src['component']) ?? str(o['reportingComponent']) ?? '', str(src['host']) ?? ''].filter((x) => x !== '').join(', '),
        (str(o['message']) ?? '').trim(),
        age(o['firstTimestamp'] ?? o['eventTime'], now),
        String(typeof o['count'] === 'number' ? o['count'] : 1),
        str(metaOf(o)['name']) ?? '',
      ];
    },
  },
  secrets: {
    columns: [col('Name', 'string', 'Name.', 0, 'name'), col('Type', 'string', 'The type of the secret.'), col('Data', 'string', 'The number of keys in the secret.'), col('Age', 'string', 'Age.')],
    cells: (o, now) => [str(metaOf(o)['name']) ?? '', str(o['type']) ?? '', Object.keys(objAt(o, 'data') ?? {}).length, age(metaOf(o)['creationTimestamp'], now)],
  },
  configmaps: {
    columns: [col('Name', 'string', 'Name.', 0, 'name'), col('Data', 'string', 'The number of keys in the config map.'), col('Age', 'string', 'Age.')],
    cells: (o, now) => [
      str(metaOf(o)['name']) ?? '',
      Object.keys(objAt(o, 'data') ?? {}).length + Object.keys(objAt(o, 'binaryData') ?? {}).length,
      age(metaOf(o)['creationTimestamp'], now),
    ],
  },
  leases: {
    columns: [col('Name', 'string', 'Name.', 0, 'name'), col('Holder', 'string', 'The holder of the lease.'), col('Age', 'string', 'Age.')],
    cells: (o, now) => [str(metaOf(o)['name']) ?? '', str(objAt(o, 'spec')?.['holderIdentity']) ?? '', age(metaOf(o)['creationTimestamp'], now)],
  },
  namespaces: {
    columns: [col('Name', 'string', 'Name.', 0, 'name'), col('Status', 'string', 'The status of the namespace.'), col('Age', 'string', 'Age.')],
    cells: (o, now) => [str(metaOf(o)['name']) ?? '', str(objAt(o, 'status')?.['phase']) ?? '', age(metaOf(o)['creationTimestamp'], now)],
  },
  nodes: {
    columns: [
      col('Name', 'string', 'Name.', 0, 'name'),
      col('Status', 'string', 'The status of the node.'),
      col('Roles', 'string', 'The roles of the node.'),
      col('Age', 'string', 'Age.'),
      col('Version', 'string', 'Node agent version.'),
      col('Internal-IP', 'string', 'The internal IP of the node.', 1),
      col('External-IP', 'string', 'The external IP of the node.', 1),
      col('OS-Image', 'string', 'The OS image of the node.', 1),
      col('Kernel-Version', 'string', 'The kernel version of the node.', 1),
      col('Container-Runtime', 'string', 'The container runtime of the node.', 1),
    ],
    cells: (o, now) => {
      const status = objAt(o, 'status') ?? {};
      const conds = Array.isArray(status['conditions']) ? (status['conditions'] as Obj[]) : [];
      const ready = conds.find((c) => c['type'] === 'Ready');
      let state = ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady';
      if (objAt(o, 'spec')?.['unschedulable'] === true) state += ',SchedulingDisabled';
      const labels = (metaOf(o)['labels'] ?? {}) as Record<string, string>;
      const roles = Object.keys(labels)
        .filter((k) => k.startsWith('node-role.kubernetes.io/') || k.endsWith('/role'))
        .map((k) => (k.startsWith('node-role.kubernetes.io/') ? k.slice('node-role.kubernetes.io/'.length) : (labels[k] ?? '')))
        .filter((r) => r !== '');
      const addrs = Array.isArray(status['addresses']) ? (status['addresses'] as Obj[]) : [];
      const addr = (t: string): string => str(addrs.find((a) => a['type'] === t)?.['address']) ?? '<none>';
      const info = objAt(status, 'nodeInfo') ?? {};
      return [
        str(metaOf(o)['name']) ?? '',
        state,
        roles.length === 0 ? '<none>' : roles.sort().join(','),
        age(metaOf(o)['creationTimestamp'], now),
        str(info['kubeletVersion']) ?? '',
        addr('InternalIP'),
        addr('ExternalIP'),
        str(info['osImage']) ?? '<unknown>',
        str(info['kernelVersion']) ?? '<unknown>',
        str(info['containerRuntimeVersion']) ?? '<unknown>',
      ];
    },
  },
  pods: {
    columns: [
      col('Name', 'string', 'Name.', 0, 'name'),
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col('Restarts', 'string', 'The number of times the containers in this pod have been restarted.'),
      col('Age', 'string', 'Age.'),
      col('IP', 'string', 'The pod IP.', 1),
      col('Node', 'string', 'The node the pod runs on.', 1),
    ],
    cells: (o, now) => {
      const status = objAt(o, 'status') ?? {};
      const spec = objAt(o, 'spec') ?? {};
      const containers = Array.isArray(spec['containers']) ? spec['containers'].length : 0;
      const statuses = Array.isArray(status['containerStatuses']) ? (status['containerStatuses'] as Obj[]) : [];
      const ready = statuses.filter((c) => c['ready'] === true).length;
      const restarts = statuses.reduce((n, c) => n + (typeof c['restartCount'] === 'number' ? c['restartCount'] : 0), 0);
      let reason = str(status['reason']) ?? str(status['phase']) ?? '';
      for (const c of statuses) {
        const waiting = objAt(objAt(c, 'state') ?? {}, 'waiting');
        const terminated = objAt(objAt(c, 'state') ?? {}, 'terminated');
        if (waiting !== undefined && typeof waiting['reason'] === 'string' && waiting['reason'] !== '') reason = waiting['reason'];
        else if (terminated !== undefined && typeof terminated['reason'] === 'string' && terminated['reason'] !== '') reason = terminated['reason'];
      }
      if (metaOf(o)['deletionTimestamp'] !== undefined) reason = 'Terminating';
      return [
        str(metaOf(o)['name']) ?? '',
        `${ready}/${containers}`,
        reason,
        String(restarts),
        age(metaOf(o)['creationTimestamp'], now),
        str(status['podIP']) ?? '<none>',
        str(spec['nodeName']) ?? '<none>',
      ];
    },
  },
};

function partial(def: ResourceDef, obj: Obj, domain: string): Obj {
  void def;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.${domain}/v1`, metadata: metaOf(obj) };
}

/** A Table of `items` (one row each); `withColumns` false leaves the definitions out (watch). */
export function toTable(def: ResourceDef, items: readonly Obj[], listMeta: Obj, domain: string, now: Date, withColumns = true): Obj {
  const p = printers[def.resource];
  if (p === undefined) return { kind: 'Table', apiVersion: `meta.${domain}/v1`, metadata: listMeta, columnDefinitions: [], rows: [] };
  return {
    kind: 'Table',
    apiVersion: `meta.${domain}/v1`,
    metadata: listMeta,
    columnDefinitions: withColumns ? p.columns : [],
    rows: items.map((o) => ({ cells: p.cells(o, now), object: partial(def, o, domain) })),
  };
}
