#!/usr/bin/env node
// Compiles the reference's published CRI definition (k8s.io/cri-api v0.32, pkg/apis/runtime/v1/
// api.proto; never committed here) into what the agent's CRI client needs on the wire, and nothing
// else: src/agent/runtime/cri/api.generated.ts (a protobufjs JSON descriptor: the two services and
// their methods, every message's field names, numbers, types and labels, every enum's values) and
// src/agent/runtime/cri/types.generated.ts (the TypeScript shapes of those messages as the client
// reads and writes them). Upstream comments, options and license text are dropped.
// Usage: node scripts/gen-cri.mjs <path/to/api.proto>           (writes both files)
//        node scripts/gen-cri.mjs <path/to/api.proto> --check   (exit 1 when they are out of date)
import protobuf from 'protobufjs';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'src', 'agent', 'runtime', 'cri');
export const UPSTREAM = 'k8s.io/cri-api v0.32 (pkg/apis/runtime/v1/api.proto, package runtime.v1)';

/** The fields of one message: only what the wire and the TypeScript shape need. */
function fieldsOf(type) {
  const out = {};
  for (const f of type.fieldsArray) {
    const d = { type: f.type, id: f.id };
    if (f.map) d.keyType = f.keyType;
    else if (f.repeated) d.rule = 'repeated';
    out[f.name] = d;
  }
  return out;
}

function messageOf(type) {
  const d = { fields: fieldsOf(type) };
  const oneofs = type.oneofsArray.filter((o) => !o.name.startsWith('_'));
  if (oneofs.length > 0)
    d.oneofs = Object.fromEntries(oneofs.map((o) => [o.name, { oneof: o.oneof }]));
  const nested = nestedOf(type);
  if (nested !== undefined) d.nested = nested;
  return d;
}

function serviceOf(svc) {
  const methods = {};
  for (const m of svc.methodsArray) {
    const d = { requestType: m.requestType, responseType: m.responseType };
    if (m.responseStream) d.responseStream = true;
    methods[m.name] = d;
  }
  return { methods };
}

function nestedOf(ns) {
  const out = {};
  for (const obj of ns.nestedArray) {
    if (obj instanceof protobuf.Service) out[obj.name] = serviceOf(obj);
    else if (obj instanceof protobuf.Type) out[obj.name] = messageOf(obj);
    else if (obj instanceof protobuf.Enum) out[obj.name] = { values: { ...obj.values } };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The runtime.v1 namespace of the upstream file as a protobufjs JSON descriptor. */
export function descriptorOf(protoText) {
  const parsed = protobuf.parse(protoText, { keepCase: true, alternateCommentMode: false });
  if (parsed.package !== 'runtime.v1')
    throw new Error(`expected package runtime.v1, found ${String(parsed.package)}`);
  const ns = parsed.root.lookup('runtime.v1');
  return { nested: { runtime: { nested: { v1: { nested: nestedOf(ns) } } } } };
}

const SCALAR_TS = {
  string: 'string',
  bool: 'boolean',
  bytes: 'Uint8Array',
  double: 'number',
  float: 'number',
  int32: 'number',
  uint32: 'number',
  sint32: 'number',
  fixed32: 'number',
  sfixed32: 'number',
  int64: 'number',
  uint64: 'number',
  sint64: 'number',
  fixed64: 'number',
  sfixed64: 'number',
};

/** The TypeScript name of a message or enum: nested ones joined with `_`. */
const tsName = (path) => path.join('_');

function tsType(type, enums, messages) {
  if (SCALAR_TS[type] !== undefined) return SCALAR_TS[type];
  if (enums.has(type)) return enums.get(type);
  if (messages.has(type)) return messages.get(type);
  throw new Error(`unknown type ${type}`);
}

/** Every message and enum, by the names its fields use (simple, and dotted for nested ones). */
function collect(nested, path, enums, messages, list) {
  for (const [name, d] of Object.entries(nested)) {
    const p = [...path, name];
    if (d.values !== undefined) {
      enums.set(name, tsName(p));
      enums.set(p.join('.'), tsName(p));
      list.push({ kind: 'enum', name: tsName(p), d });
    } else if (d.fields !== undefined) {
      messages.set(name, tsName(p));
      messages.set(p.join('.'), tsName(p));
      list.push({ kind: 'message', name: tsName(p), d });
      if (d.nested !== undefined) collect(d.nested, p, enums, messages, list);
    }
  }
}

function renderField(name, f, enums, messages) {
  const t = tsType(f.type, enums, messages);
  if (f.keyType !== undefined) return `  ${name}?: Record<string, ${t}>;`;
  if (f.rule === 'repeated') return `  ${name}?: ${t}[];`;
  return `  ${name}?: ${t};`;
}

function renderTypes(desc, digest) {
  const top = desc.nested.runtime.nested.v1.nested;
  const enums = new Map();
  const messages = new Map();
  const list = [];
  collect(top, [], enums, messages, list);
  const lines = header(digest);
  lines.push(
    '// Every field is optional: proto3 leaves zero values off the wire, and the client reads what a',
    '// runtime sends without trusting it (the adapter bounds and checks each value it uses).',
    '',
  );
  for (const item of list) {
    if (item.kind === 'enum') {
      lines.push(`export const ${item.name} = {`);
      for (const [k, v] of Object.entries(item.d.values)) lines.push(`  ${k}: ${v},`);
      lines.push('} as const;');
      lines.push(`export type ${item.name} = (typeof ${item.name})[keyof typeof ${item.name}];`);
    } else {
      if (Object.keys(item.d.fields).length === 0) {
        lines.push(`export type ${item.name} = Record<string, never>;`);
        continue;
      }
      lines.push(`export interface ${item.name} {`);
      for (const [n, f] of Object.entries(item.d.fields))
        lines.push(renderField(n, f, enums, messages));
      lines.push('}');
    }
  }
  lines.push('', '/** Every message by its name in the descriptor (nested ones dotted). */');
  lines.push('export interface CriMessages {');
  for (const [n, ts] of messages)
    if (n.includes('.') || !n.includes('_')) lines.push(`  '${n}': ${ts};`);
  lines.push(
    '}',
    '',
    '/** Each method of each service: the names of its request and response messages. */',
  );
  lines.push('export const CRI_METHODS = {');
  for (const [svc, d] of Object.entries(top)) {
    if (d.methods === undefined) continue;
    for (const [m, md] of Object.entries(d.methods))
      lines.push(
        `  '${svc}/${m}': { request: '${md.requestType}', response: '${md.responseType}' },`,
      );
  }
  lines.push('} as const;', 'export type CriMethods = typeof CRI_METHODS;', '');
  return lines.join('\n');
}

function header(digest) {
  return [
    `// Generated by scripts/gen-cri.mjs from ${UPSTREAM}.`,
    `// Input sha256 ${digest}. Do not edit: run \`node scripts/gen-cri.mjs <api.proto>\`.`,
  ];
}

function renderDescriptor(desc, digest) {
  return [
    ...header(digest),
    `export const CRI_UPSTREAM = ${JSON.stringify(UPSTREAM)};`,
    `export const CRI_INPUT_SHA256 = ${JSON.stringify(digest)};`,
    `export const CRI_DESCRIPTOR_JSON = ${JSON.stringify(JSON.stringify(desc))};`,
    '',
  ].join('\n');
}

export function render(protoText) {
  const digest = createHash('sha256').update(protoText).digest('hex');
  const desc = descriptorOf(protoText);
  return {
    'api.generated.ts': renderDescriptor(desc, digest),
    'types.generated.ts': renderTypes(desc, digest),
  };
}

function readOr(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function main(argv) {
  const check = argv.includes('--check');
  const input = argv.find((a) => !a.startsWith('--'));
  if (input === undefined) {
    console.error('usage: node scripts/gen-cri.mjs <path/to/api.proto> [--check]');
    process.exit(2);
  }
  const files = render(readFileSync(input, 'utf8'));
  let stale = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = join(OUT_DIR, name);
    if (check) {
      if (readOr(path) !== text) {
        console.error(`${path} is out of date: run node scripts/gen-cri.mjs ${input}`);
        stale++;
      }
    } else writeFileSync(path, text, { mode: 0o644 });
  }
  if (stale > 0) process.exit(1);
  if (!check) console.log(`wrote ${Object.keys(files).length} files under ${OUT_DIR}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
