// The reference's protobuf schema, from the descriptor that scripts/gen-proto.mjs compiles out of
// proto/ (the published generated.proto files). A package's types are built on first use, with
// the packages they refer to: building every package at once (core/v1 is most of them) cost the
// agent's bootstrap, which needs certificates/v1 and meta/v1 only, tens of milliseconds.

import protobuf from 'protobufjs';
import { K8S_DESCRIPTOR_JSON } from './k8s-descriptor.generated.js';

interface Descriptor {
  /** Every package that declares types or enums, with its JSON namespace. */
  readonly packages: ReadonlyMap<string, protobuf.INamespace>;
}

let descriptor: Descriptor | undefined;
let root: protobuf.Root | undefined;
const built = new Set<string>();

function isPackageJson(ns: protobuf.INamespace): boolean {
  return Object.values(ns.nested ?? {}).some((v) => 'fields' in v || 'values' in v);
}

function parseDescriptor(): Descriptor {
  const packages = new Map<string, protobuf.INamespace>();
  const walk = (ns: protobuf.INamespace, path: string): void => {
    if (path !== '' && isPackageJson(ns)) packages.set(path, ns);
    else
      for (const [name, child] of Object.entries(ns.nested ?? {}))
        walk(child, path === '' ? name : `${path}.${name}`);
  };
  // Our own generated descriptor (scripts/gen-proto.mjs), not input: its shape is protobufjs's
  // JSON.
  walk(JSON.parse(K8S_DESCRIPTOR_JSON) as protobuf.INamespace, '');
  return { packages };
}

/** The package a fully qualified name (type or package) belongs to, if any. */
function packageOf(d: Descriptor, fullName: string): string | undefined {
  let best: string | undefined;
  for (const pkg of d.packages.keys())
    if ((fullName === pkg || fullName.startsWith(`${pkg}.`)) && pkg.length > (best?.length ?? 0))
      best = pkg;
  return best;
}

/** The other packages whose types the fields of a package name (`.k8s.io...` references). */
function dependencies(d: Descriptor, json: protobuf.INamespace): Set<string> {
  const out = new Set<string>();
  const walk = (ns: protobuf.INamespace): void => {
    for (const child of Object.values(ns.nested ?? {})) {
      if ('fields' in child) {
        for (const f of Object.values(child.fields)) {
          const pkg = f.type.startsWith('.') ? packageOf(d, f.type.slice(1)) : undefined;
          if (pkg !== undefined) out.add(pkg);
        }
      }
      walk(child);
    }
  };
  walk(json);
  return out;
}

/** Adds a package and every package it refers to (transitively) to the root, then resolves them. */
function buildPackage(d: Descriptor, r: protobuf.Root, pkg: string): void {
  const added: protobuf.Namespace[] = [];
  const add = (p: string): void => {
    const json = d.packages.get(p);
    if (built.has(p) || json === undefined) return;
    built.add(p);
    const ns = r.define(p.split('.'));
    if (json.options !== undefined)
      for (const [k, v] of Object.entries(json.options)) ns.setOption(k, v);
    ns.addJSON(json.nested ?? {});
    added.push(ns);
    for (const dep of dependencies(d, json)) add(dep);
  };
  add(pkg);
  for (const ns of added) ns.resolveAll();
}

/** The root, with the packages built so far. */
export function k8sRoot(): protobuf.Root {
  return (root ??= new protobuf.Root());
}

/**
 * Types looked up by name (a lookup walks the packages; every body asks for its envelope's type).
 */
const looked = new Map<string, protobuf.Type | undefined>();
const LOOKED_LIMIT = 2048;

/** The message type of a fully qualified name (`k8s.io.api.core.v1.Pod`); undefined when absent. */
export function messageType(fullName: string): protobuf.Type | undefined {
  if (looked.has(fullName)) return looked.get(fullName);
  const t = lookupType(fullName);
  // Names come from bodies too: the remembered ones are bounded.
  if (looked.size >= LOOKED_LIMIT) looked.clear();
  looked.set(fullName, t);
  return t;
}

function lookupType(fullName: string): protobuf.Type | undefined {
  const d = (descriptor ??= parseDescriptor());
  const pkg = packageOf(d, fullName);
  if (pkg === undefined) return undefined;
  const r = k8sRoot();
  if (!built.has(pkg)) buildPackage(d, r, pkg);
  const t = r.lookup(fullName);
  return t instanceof protobuf.Type ? t : undefined;
}

export const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const RUNTIME = 'k8s.io.apimachinery.pkg.runtime';

export function requiredType(fullName: string): protobuf.Type {
  const t = messageType(fullName);
  if (t === undefined) throw new Error(`the protobuf schema has no message ${fullName}`);
  return t;
}
