#!/usr/bin/env node
// Writes src/apiserver/authz/rbac/reference-policy.generated.ts: the bootstrap roles and bindings a real
// kube-apiserver v1.32.13 creates at start (plus the three node-bootstrap bindings kubeadm adds),
// as read from it into ../shared/reference/kubernetes-1.32/rbac-*.json (names, rules, subjects,
// labels and annotations: data, in the reference's names; rbac/names.ts translates them). Each
// object keeps its file order, its keys sorted; kubectl's last-applied annotation is dropped.
// `--check` generates again and compares when the input is at hand, and otherwise checks the
// digests recorded in the header (scripts/generated-file.mjs).
// Usage: node scripts/gen-rbac-policy.mjs [--check] [referenceDir]
//   referenceDir defaults to ../shared/reference/kubernetes-1.32 beside the checkout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import {
  ROOT,
  SHARED_REFERENCE,
  checkRecorded,
  checkRegenerated,
  inputDigest,
  render,
  write,
} from './generated-file.mjs';

const OUT = join(ROOT, 'src', 'apiserver', 'authz', 'rbac', 'reference-policy.generated.ts');
const FILES = [
  'rbac-clusterroles.json',
  'rbac-clusterrolebindings.json',
  'rbac-roles-and-bindings.json',
];
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function sortedKeys(v) {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedKeys(v[k])]),
  );
}

function withoutLastApplied(o) {
  const annotations = { ...o.metadata?.annotations };
  delete annotations[LAST_APPLIED];
  const metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return { ...o, metadata };
}

function text(dir) {
  const inputs = FILES.map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
  const objects = inputs.flatMap(([, t]) => JSON.parse(t).items);
  const lines = objects.map((o) => `  ${JSON.stringify(sortedKeys(withoutLastApplied(o)))},`);
  return render({
    generatorUrl: import.meta.url,
    about: [
      'The bootstrap policy of a real kube-apiserver v1.32.13 (its roles and bindings as served,',
      "plus kubeadm's node-bootstrap bindings), from ../shared/reference/kubernetes-1.32:",
      `${FILES.join(', ')}.`,
    ],
    input: inputDigest(inputs),
    body: `export const REFERENCE_POLICY: readonly unknown[] = [\n${lines.join('\n')}\n];\n`,
  });
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const dir = args.find((a) => a !== '--check') ?? SHARED_REFERENCE;
const HOW = 'node scripts/gen-rbac-policy.mjs [referenceDir]';
if (!FILES.every((f) => existsSync(join(dir, f)))) {
  if (!check) throw new Error(`the reference's RBAC data is not at ${dir}: ${HOW}`);
  checkRecorded(OUT, import.meta.url, `the reference's data is not at ${dir}`);
} else if (check) checkRegenerated(OUT, text(dir), HOW);
else write(OUT, text(dir));
