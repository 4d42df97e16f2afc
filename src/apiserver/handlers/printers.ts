// The reference's server-side printers (kube-apiserver 1.32, pkg/printers/internalversion): the
// column definitions and the wide cells of each resource we serve, and the default table
// (Name, Created At) of a resource without a printer (roles, cluster roles). Descriptions are
// the reference's field documentation (its OpenAPI descriptions).

import { metaOf, objAt, str, type Obj } from '../registry/types.js';
import { DOC } from './printer-docs.js';
import { recordOf } from '../../common/util/json-shape.js';
import { REFERENCE_NAMES } from '../../common/names.js';

export interface Column {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

export interface Printer {
  readonly columns: readonly Column[];
  cells(obj: Obj, now: Date): unknown[];
}

const col = (
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): Column => ({ name, type, format, description, priority });

const nameCol = col('Name', 'string', DOC.ObjectMeta_name, 0, 'name');
const ageCol = col('Age', 'string', DOC.ObjectMeta_creationTimestamp);

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

/** translateTimestampSince: `<unknown>` for an absent time. */
function since(ts: unknown, now: Date): string {
  if (typeof ts !== 'string' || ts === '') return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}

const nameOf = (o: Obj): string => str(metaOf(o)['name']) ?? '';
const ageOf = (o: Obj, now: Date): string => since(metaOf(o)['creationTimestamp'], now);
const objs = (v: unknown): Obj[] =>
  Array.isArray(v)
    ? v.filter((x): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x))
    : [];
const count = (v: unknown): number =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).length : 0;
const orNone = (v: string | undefined): string => (v === undefined || v === '' ? '<none>' : v);

/** The default table convertor of a resource without a printer. */
export const defaultPrinter: Printer = {
  columns: [nameCol, col('Created At', 'date', DOC.ObjectMeta_creationTimestamp)],
  cells: (o) => [nameOf(o), str(metaOf(o)['creationTimestamp']) ?? null],
};

function subjectNames(o: Obj, kind: string): string {
  return objs(o['subjects'])
    .filter((x) => x['kind'] === kind)
    .map((x) =>
      kind === 'ServiceAccount'
        ? `${str(x['namespace']) ?? ''}:${str(x['name']) ?? ''}`
        : (str(x['name']) ?? ''),
    )
    .join(', ');
}

function bindingPrinter(roleRefDoc: string, what: string): Printer {
  return {
    columns: [
      nameCol,
      col('Role', 'string', roleRefDoc),
      ageCol,
      col('Users', 'string', `Users in the ${what}`, 1),
      col('Groups', 'string', `Groups in the ${what}`, 1),
      col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
    ],
    cells: (o, now) => {
      const ref = objAt(o, 'roleRef') ?? {};
      return [
        nameOf(o),
        `${str(ref['kind']) ?? ''}/${str(ref['name']) ?? ''}`,
        ageOf(o, now),
        subjectNames(o, 'User'),
        subjectNames(o, 'Group'),
        subjectNames(o, 'ServiceAccount'),
      ];
    },
  };
}

/** extractCSRStatus: Denied over Approved over Pending, then Failed and Issued. */
function csrStatus(o: Obj): string {
  const status = objAt(o, 'status') ?? {};
  const types = new Set(objs(status['conditions']).map((c) => c['type']));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (typeof status['certificate'] === 'string' && status['certificate'] !== '') out += ',Issued';
  return out;
}

const csrPrinter: Printer = {
  columns: [
    nameCol,
    ageCol,
    col('SignerName', 'string', DOC.CertificateSigningRequestSpec_signerName),
    col('Requestor', 'string', DOC.CertificateSigningRequestSpec_request),
    col('RequestedDuration', 'string', DOC.CertificateSigningRequestSpec_expirationSeconds),
    col('Condition', 'string', DOC.CertificateSigningRequestStatus_conditions),
  ],
  cells: (o, now) => {
    const spec = objAt(o, 'spec') ?? {};
    const exp = spec['expirationSeconds'];
    return [
      nameOf(o),
      ageOf(o, now),
      orNone(str(spec['signerName'])),
      str(spec['username']) ?? '',
      typeof exp === 'number' ? humanDuration(exp * 1000) : '<none>',
      csrStatus(o),
    ];
  },
};

const first = (...v: (string | undefined)[]): string =>
  v.find((x) => x !== undefined && x !== '') ?? '';

const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'string', DOC.Event_lastTimestamp),
    col('Type', 'string', DOC.Event_type),
    col('Reason', 'string', DOC.Event_reason),
    col('Object', 'string', DOC.Event_involvedObject),
    col('Subobject', 'string', DOC.ObjectReference_fieldPath, 1),
    col('Source', 'string', DOC.Event_source, 1),
    col('Message', 'string', DOC.Event_message),
    col('First Seen', 'string', DOC.Event_firstTimestamp, 1),
    col('Count', 'string', DOC.Event_count, 1),
    col('Name', 'string', DOC.ObjectMeta_name, 1, 'name'),
  ],
  cells: (o, now) => {
    const firstSeen = o['firstTimestamp']
      ? since(o['firstTimestamp'], now)
      : since(o['eventTime'], now);
    let lastSeen = o['lastTimestamp'] ? since(o['lastTimestamp'], now) : firstSeen;
    let n = typeof o['count'] === 'number' ? o['count'] : 0;
    const series = objAt(o, 'series');
    if (series !== undefined) {
      lastSeen = since(series['lastObservedTime'], now);
      n = typeof series['count'] === 'number' ? series['count'] : 0;
    } else if (n === 0) n = 1;
    const io = objAt(o, 'involvedObject') ?? {};
    const kind = (str(io['kind']) ?? '').toLowerCase();
    const target = (str(io['name']) ?? '') === '' ? kind : `${kind}/${str(io['name']) ?? ''}`;
    const src = objAt(o, 'source') ?? {};
    const component = first(str(src['component']), str(o['reportingComponent']));
    const instance = first(str(src['host']), str(o['reportingInstance']));
    const source =
      component === '' ? '<unknown>' : instance === '' ? component : `${component}, ${instance}`;
    return [
      lastSeen,
      str(o['type']) ?? '',
      str(o['reason']) ?? '',
      target,
      str(io['fieldPath']) ?? '',
      source,
      (str(o['message']) ?? '').trim(),
      firstSeen,
      n,
      nameOf(o),
    ];
  },
};

// The reference's role labels, as kubectl's printer reads them.
const nodeRolePrefix = REFERENCE_NAMES.labels.nodeRolePrefix;
const roleLabel = `${REFERENCE_NAMES.labelDomain}/role`;

function nodeCells(o: Obj, now: Date): unknown[] {
  const status = objAt(o, 'status') ?? {};
  const ready = objs(status['conditions']).find((c) => c['type'] === 'Ready');
  let state =
    ready === undefined
      ? 'Unknown'
      : ready['status'] === 'True'
        ? 'Ready'
        : ready['status'] === 'False'
          ? 'NotReady'
          : 'Unknown';
  if (objAt(o, 'spec')?.['unschedulable'] === true) state += ',SchedulingDisabled';
  const labels = objAt(metaOf(o), 'labels') ?? {};
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith(nodeRolePrefix) && k.length > nodeRolePrefix.length)
      roles.add(k.slice(nodeRolePrefix.length));
    else if (k === roleLabel && typeof v === 'string' && v !== '') roles.add(v);
  }
  const addrs = objs(status['addresses']);
  const addr = (t: string): string => orNone(str(addrs.find((a) => a['type'] === t)?.['address']));
  const info = objAt(status, 'nodeInfo') ?? {};
  const unknown = (k: string): string => (str(info[k]) ?? '') || '<unknown>';
  return [
    nameOf(o),
    state,
    roles.size === 0 ? '<none>' : [...roles].sort().join(','),
    ageOf(o, now),
    str(info['kubeletVersion']) ?? '',
    addr('InternalIP'),
    addr('ExternalIP'),
    unknown('osImage'),
    unknown('kernelVersion'),
    unknown('containerRuntimeVersion'),
  ];
}

const nodePrinter: Printer = {
  columns: [
    nameCol,
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageCol,
    col('Version', 'string', DOC.NodeSystemInfo_kubeletVersion),
    col('Internal-IP', 'string', DOC.NodeStatus_addresses, 1),
    col('External-IP', 'string', DOC.NodeStatus_addresses, 1),
    col('OS-Image', 'string', DOC.NodeSystemInfo_osImage, 1),
    col('Kernel-Version', 'string', DOC.NodeSystemInfo_kernelVersion, 1),
    col('Container-Runtime', 'string', DOC.NodeSystemInfo_containerRuntimeVersion, 1),
  ],
  cells: nodeCells,
};

function podReason(o: Obj): string {
  const status = objAt(o, 'status') ?? {};
  let reason = (str(status['reason']) ?? '') || (str(status['phase']) ?? '');
  for (const c of objs(status['containerStatuses'])) {
    const state = objAt(c, 'state') ?? {};
    const waiting = objAt(state, 'waiting');
    const terminated = objAt(state, 'terminated');
    if (waiting !== undefined && (str(waiting['reason']) ?? '') !== '')
      reason = str(waiting['reason']) ?? reason;
    else if (terminated !== undefined && (str(terminated['reason']) ?? '') !== '')
      reason = str(terminated['reason']) ?? reason;
  }
  if (metaOf(o)['deletionTimestamp'] !== undefined) reason = 'Terminating';
  return reason;
}

function podCells(o: Obj, now: Date): unknown[] {
  const status = objAt(o, 'status') ?? {};
  const spec = objAt(o, 'spec') ?? {};
  const statuses = objs(status['containerStatuses']);
  const ready = statuses.filter((c) => c['ready'] === true).length;
  const restarts = statuses.reduce(
    (n, c) => n + (typeof c['restartCount'] === 'number' ? c['restartCount'] : 0),
    0,
  );
  // The latest finish of a container's previous run: `3 (5m ago)`, as the reference prints it.
  const lastRestart = statuses
    .map((c) => str(objAt(objAt(c, 'lastState') ?? {}, 'terminated')?.['finishedAt']))
    .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)))
    .sort((x, y) => Date.parse(x) - Date.parse(y))
    .pop();
  const gates = objs(spec['readinessGates']);
  const conds = objs(status['conditions']);
  const gatesTrue = gates.filter((g) =>
    conds.some((c) => c['type'] === g['conditionType'] && c['status'] === 'True'),
  ).length;
  return [
    nameOf(o),
    `${ready}/${objs(spec['containers']).length}`,
    podReason(o),
    restarts !== 0 && lastRestart !== undefined
      ? `${restarts} (${since(lastRestart, now)} ago)`
      : String(restarts),
    ageOf(o, now),
    orNone(str(status['podIP'])),
    orNone(str(spec['nodeName'])),
    orNone(str(status['nominatedNodeName'])),
    gates.length === 0 ? '<none>' : `${gatesTrue}/${gates.length}`,
  ];
}

const podPrinter: Printer = {
  columns: [
    nameCol,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the ' +
        'last container in this pod has restarted.',
    ),
    ageCol,
    col('IP', 'string', DOC.PodStatus_podIP, 1),
    col('Node', 'string', DOC.PodSpec_nodeName, 1),
    col('Nominated Node', 'string', DOC.PodStatus_nominatedNodeName, 1),
    col('Readiness Gates', 'string', DOC.PodSpec_readinessGates, 1),
  ],
  cells: podCells,
};

/** The reference's getServiceExternalIP (its LoadBalancer ingress shown as IPs or host names). */
function serviceExternalIp(spec: Obj, status: Obj): string {
  const external = spec['externalIPs'];
  const ips = Array.isArray(external) ? external.filter((x) => typeof x === 'string') : [];
  switch (str(spec['type'])) {
    case 'ClusterIP':
    case 'NodePort':
      return ips.length > 0 ? ips.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = objs(objAt(status, 'loadBalancer')?.['ingress'])
        .map((i) => str(i['ip']) ?? str(i['hostname']) ?? '')
        .filter((x) => x !== '');
      const all = [...ingress, ...ips];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec['externalName']) ?? '';
    default:
      return '<unknown>';
  }
}

/** makePortString: `80/TCP`, `80:30080/TCP`, comma-separated. */
function servicePorts(spec: Obj): string {
  const ports = objs(spec['ports']).map((p) => {
    const port = typeof p['port'] === 'number' ? p['port'] : 0;
    const proto = str(p['protocol']) ?? '';
    const nodePort = typeof p['nodePort'] === 'number' ? p['nodePort'] : 0;
    return nodePort > 0 ? `${port}:${nodePort}/${proto}` : `${port}/${proto}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
function formatLabels(v: unknown): string {
  const m = recordOf(v);
  const keys = Object.keys(m).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${String(m[k])}`).join(',');
}

const servicePrinter: Printer = {
  columns: [
    nameCol,
    col('Type', 'string', DOC.ServiceSpec_type),
    col('Cluster-IP', 'string', DOC.ServiceSpec_clusterIP),
    col('External-IP', 'string', DOC.ServiceSpec_externalIPs),
    col('Port(s)', 'string', DOC.ServiceSpec_ports),
    ageCol,
    col('Selector', 'string', DOC.ServiceSpec_selector, 1),
  ],
  cells: (o, now) => {
    const spec = objAt(o, 'spec') ?? {};
    const ips = spec['clusterIPs'];
    const first: unknown = Array.isArray(ips) ? ips[0] : undefined;
    return [
      nameOf(o),
      str(spec['type']) ?? '',
      typeof first === 'string' ? first : '<none>',
      serviceExternalIp(spec, objAt(o, 'status') ?? {}),
      servicePorts(spec),
      ageOf(o, now),
      formatLabels(spec['selector']),
    ];
  },
};

export const PRINTERS: Readonly<Record<string, Printer>> = {
  roles: defaultPrinter,
  clusterroles: defaultPrinter,
  rolebindings: bindingPrinter(DOC.RoleBinding_roleRef, 'roleBinding'),
  clusterrolebindings: bindingPrinter(DOC.ClusterRoleBinding_roleRef, 'clusterRoleBinding'),
  certificatesigningrequests: csrPrinter,
  events: eventPrinter,
  secrets: {
    columns: [
      nameCol,
      col('Type', 'string', DOC.Secret_type),
      col('Data', 'string', DOC.Secret_data),
      ageCol,
    ],
    cells: (o, now) => [nameOf(o), str(o['type']) ?? '', count(o['data']), ageOf(o, now)],
  },
  configmaps: {
    columns: [nameCol, col('Data', 'string', DOC.ConfigMap_data), ageCol],
    cells: (o, now) => [nameOf(o), count(o['data']) + count(o['binaryData']), ageOf(o, now)],
  },
  leases: {
    columns: [nameCol, col('Holder', 'string', DOC.LeaseSpec_holderIdentity), ageCol],
    cells: (o, now) => [nameOf(o), str(objAt(o, 'spec')?.['holderIdentity']) ?? '', ageOf(o, now)],
  },
  namespaces: {
    columns: [nameCol, col('Status', 'string', 'The status of the namespace'), ageCol],
    cells: (o, now) => [nameOf(o), str(objAt(o, 'status')?.['phase']) ?? '', ageOf(o, now)],
  },
  nodes: nodePrinter,
  pods: podPrinter,
  serviceaccounts: {
    columns: [nameCol, col('Secrets', 'string', DOC.ServiceAccount_secrets), ageCol],
    cells: (o, now) => [nameOf(o), objs(o['secrets']).length, ageOf(o, now)],
  },
  services: servicePrinter,
};
