// The kubelet parity check: nodeagent and the reference kubelet 1.32.13 run the same pods, one
// program at a time, on one private containerd and the reference control plane (the setup of
// kubelet-side-by-side.bench.ts, the same argv and KubeletConfiguration), and what each leaves is
// compared: the Node, each pod's status, the pods' and the node's events, and what the feature
// pod's container sees (its log). It prints every difference, after the values that vary from run
// to run are spelt the same, and keeps both sides' objects as JSON. Not a benchmark and never in
// CI: without what the side-by-side benchmark needs (sideBySideSkipReason: the kubelet, the
// control plane, the built agent, containerd, the two images) it says why and exits 0; it never
// builds or fetches the reference.
//
//   npm run build && node dist/bench/kubelet-parity.js
//
// Environment: PARITY_WAIT_S (how long the pods run before the snapshot, default 45),
// PARITY_OUT (where the JSON goes, default a new directory under the temp directory).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differences, lineDifferences, normalized } from './parity-diff.js';
import { PARITY_OBJECTS, PARITY_PODS, parityPod } from './parity-pods.js';
import { connectKube, expectStatus, type Kube } from './side-by-side-kube.js';
import {
  controlPlaneReady,
  setUpHost,
  sideBySideSkipReason,
  type Host,
} from './side-by-side-host.js';
import { ANCHORS, PROGRAMS, defaultIp, launchNode, waitReady } from './side-by-side-node.js';

const WAIT_MS = Number(process.env['PARITY_WAIT_S'] ?? 45) * 1000;
/** Fields that differ by design: the programs' versions, the server port picked per run. */
const BY_DESIGN = [/nodeInfo\.(kubelet|kubeProxy)Version$/, /kubeletEndpoint\.Port$/, /\.images\[/];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Seen {
  node: unknown;
  pods: Record<string, unknown>;
  events: { object: string; type: string; reason: string; message: string }[];
  log: string;
}

function eventRows(body: unknown): Seen['events'] {
  const items = (body as { items?: Record<string, Record<string, string>>[] } | undefined)?.items;
  return (items ?? []).map((e) => ({
    object: e['involvedObject']?.['name'] ?? '',
    type: String(e['type']),
    reason: String(e['reason']),
    message: String(e['message']),
  }));
}

async function deleteAll(kube: Kube, ns: string, program: string): Promise<void> {
  for (const short of Object.keys(PARITY_PODS))
    await kube.call('DELETE', `/api/v1/namespaces/${ns}/pods/${short}-${program}`);
  for (let i = 0; i < 90; i++) {
    const left = (await kube.call('GET', `/api/v1/namespaces/${ns}/pods`)).body as {
      items?: unknown[];
    };
    if ((left.items ?? []).length === 0) return;
    await sleep(1000);
  }
}

/** One program's turn: its node, the pods for PARITY_WAIT_S, what it left. */
async function turn(host: Host, program: (typeof PROGRAMS)[number]): Promise<Seen> {
  const { kube, ns } = host;
  const name = `parity-${program}`;
  const node = await launchNode(host, program, name);
  try {
    await waitReady(kube, node);
    for (const short of Object.keys(PARITY_PODS)) {
      const pod = parityPod(short, program, name);
      expectStatus(await kube.call('POST', `/api/v1/namespaces/${ns}/pods`, pod), short, 201);
    }
    await sleep(WAIT_MS);
    const pods: Record<string, unknown> = {};
    for (const short of Object.keys(PARITY_PODS))
      pods[short] = (
        await kube.call('GET', `/api/v1/namespaces/${ns}/pods/${short}-${program}`)
      ).body;
    const log = await kube.call('GET', `/api/v1/namespaces/${ns}/pods/features-${program}/log`);
    const seen: Seen = {
      node: (await kube.call('GET', `/api/v1/nodes/${name}`)).body,
      pods,
      events: [],
      log: typeof log.body === 'string' ? log.body : JSON.stringify(log.body),
    };
    await deleteAll(kube, ns, program);
    const mine = new Set([name, ...Object.keys(PARITY_PODS).map((s) => `${s}-${program}`)]);
    seen.events = [
      ...eventRows((await kube.call('GET', `/api/v1/namespaces/${ns}/events`)).body),
      ...eventRows((await kube.call('GET', `/api/v1/namespaces/default/events`)).body),
    ].filter((e) => mine.has(e.object));
    return seen;
  } finally {
    await node.stop();
  }
}

/** Both sides' objects with the run-to-run values spelt the same. */
function comparable(seen: Seen, program: string, ns: string): Seen {
  return JSON.parse(normalized(JSON.stringify(seen), program, ns)) as Seen;
}

function report(k: Seen, n: Seen): number {
  const strip = (o: unknown): unknown => {
    const copy = structuredClone(o) as { metadata?: Record<string, unknown> };
    delete copy.metadata?.['managedFields'];
    delete copy.metadata?.['resourceVersion'];
    return copy;
  };
  const sections: [string, string[]][] = [
    ['node', differences(strip(k.node), strip(n.node), BY_DESIGN)],
    ...Object.keys(PARITY_PODS).map((s): [string, string[]] => [
      `pod ${s}`,
      differences(
        (k.pods[s] as { status?: unknown }).status,
        (n.pods[s] as { status?: unknown }).status,
      ),
    ]),
    ['feature pod log', lineDifferences(k.log, n.log)],
    ['events', lineDifferences(eventLines(k), eventLines(n))],
  ];
  let count = 0;
  for (const [title, lines] of sections) {
    console.log(`== ${title}: ${lines.length === 0 ? 'the same' : `${lines.length} differences`}`);
    for (const l of lines) console.log(`   ${l}`);
    count += lines.length;
  }
  return count;
}

/** Each distinct event, without counts (timing decides how often a back-off repeats). */
function eventLines(s: Seen): string {
  const rows = s.events.map(
    (e) =>
      `${e.object} ${e.type} ${e.reason}: ${e.message.replace(/^Node .* event: /, 'Node event: ')}`,
  );
  return [...new Set(rows)].sort().join('\n');
}

async function main(): Promise<void> {
  const why = await sideBySideSkipReason();
  if (why !== undefined) return console.log(`kubelet-parity: skipped: ${why}`);
  const kube = await connectKube(join(ANCHORS, 'admin.kubeconfig'));
  try {
    const down = await controlPlaneReady(kube);
    if (down !== undefined) return console.log(`kubelet-parity: skipped: ${down}`);
    const ip = await defaultIp();
    if (ip === undefined) return console.log('kubelet-parity: skipped: no IPv4 default route');
    const host = await setUpHost(kube, ip);
    try {
      for (const [resource, body] of PARITY_OBJECTS)
        expectStatus(
          await kube.call('POST', `/api/v1/namespaces/${host.ns}/${resource}`, body),
          resource,
          201,
        );
      const out = process.env['PARITY_OUT'] ?? (await mkdtemp(join(tmpdir(), 'kubelet-parity-')));
      const seen: Record<string, Seen> = {};
      for (const program of PROGRAMS) {
        seen[program] = await turn(host, program);
        await writeFile(join(out, `${program}.json`), JSON.stringify(seen[program], null, 2));
      }
      const k = comparable(seen['kubelet'] as Seen, 'kubelet', host.ns);
      const n = comparable(seen['nodeagent'] as Seen, 'nodeagent', host.ns);
      console.log(`kubelet-parity: ${report(k, n)} differences; both sides in ${out}`);
    } finally {
      await host.stop();
    }
  } finally {
    kube.close();
  }
}

await main();
