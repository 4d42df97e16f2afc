#!/usr/bin/env node
// Compiles the published protobuf definitions the wire needs into protobufjs JSON descriptors
// (message and field names, numbers, types; no comments, no upstream text):
// - src/common/protobuf/k8s-descriptor.generated.ts from the generated.proto files of k8s.io/api
//   and k8s.io/apimachinery (read at v0.32.13: Kubernetes v1.32.13's staging/src). The `+optional`
//   marker of a field's comment becomes the field option `omitempty` (proto → JSON omits empty
//   strings of those fields, as Go's omitempty does); every other comment and option is dropped.
// - src/common/protobuf/openapiv2-descriptor.generated.ts from gnostic's
//   openapiv2/OpenAPIv2.proto (github.com/google/gnostic-models v0.6.8, what Kubernetes 1.32
//   vendors): the openapi.v2 messages of /openapi/v2 served as protobuf.
// The .proto files are fetched when regenerating and never committed, so `--check` without them
// checks the digests recorded in each file's header (scripts/generated-file.mjs: the generator
// unchanged, the body unedited); test/unit/common/protobuf/goldens.test.ts then proves the data
// right on the wire by encoding and decoding protoc's golden bytes under test/fixtures/protobuf.
// With the paths given, `--check` compiles again and compares byte for byte.
//
// Usage: node scripts/gen-proto.mjs [--check] [--api DIR --apimachinery DIR --gnostic DIR]
//   --api           a checkout of k8s.io/api (github.com/kubernetes/api, or staging/src/k8s.io/api)
//   --apimachinery  a checkout of k8s.io/apimachinery
//   --gnostic       a checkout of github.com/google/gnostic-models
import protobuf from 'protobufjs';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import {
  ROOT,
  checkRecorded,
  checkRegenerated,
  inputDigest,
  render,
  wrap,
  write,
} from './generated-file.mjs';

const K8S_OUT = join(ROOT, 'src', 'common', 'protobuf', 'k8s-descriptor.generated.ts');
const OPENAPI_OUT = join(ROOT, 'src', 'common', 'protobuf', 'openapiv2-descriptor.generated.ts');
const HOW = 'node scripts/gen-proto.mjs --api DIR --apimachinery DIR --gnostic DIR';

/** The files loaded (their imports follow): one per API group served, plus meta's own types. */
const PROTO_FILES = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/certificates/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
];
const GNOSTIC_FILE = 'openapiv2/OpenAPIv2.proto';

function markOptional(ns) {
  for (const obj of ns.nestedArray) {
    if (obj instanceof protobuf.Type) {
      for (const f of obj.fieldsArray) {
        if (typeof f.comment === 'string' && /(^|\n)\s*\+optional\b/.test(f.comment))
          f.setOption('omitempty', true);
      }
    }
    if (obj instanceof protobuf.Namespace) markOptional(obj);
  }
}

/** The descriptor with only what the wire needs: every option dropped but a field's omitempty. */
function wireOnly(json, inFields = false) {
  if (Array.isArray(json)) return json.map((x) => wireOnly(x));
  if (json === null || typeof json !== 'object') return json;
  const out = {};
  for (const [k, v] of Object.entries(json)) {
    if (k === 'options') {
      if (inFields && v.omitempty === true) out.options = { omitempty: true };
    } else if (k === 'fields') {
      out.fields = Object.fromEntries(
        Object.entries(v).map(([name, f]) => [name, wireOnly(f, true)]),
      );
    } else out[k] = wireOnly(v);
  }
  return out;
}

/** Loads `files` through `resolve` (import path → file path); returns the JSON and the inputs. */
function compile(files, resolve, { optional }) {
  const root = new protobuf.Root();
  const read = new Map();
  root.resolvePath = (_origin, target) => {
    const path = resolve(target);
    if (path !== undefined && !read.has(target)) read.set(target, readFileSync(path, 'utf8'));
    return path ?? target;
  };
  root.loadSync(files, { keepCase: true, alternateCommentMode: optional });
  root.resolveAll();
  if (optional) markOptional(root);
  return { json: wireOnly(root.toJSON({ keepComments: false })), read: [...read] };
}

function k8sPath(dirs) {
  return (target) => {
    for (const [prefix, dir] of [
      ['k8s.io/api/', dirs.api],
      ['k8s.io/apimachinery/', dirs.apimachinery],
    ])
      if (target.startsWith(prefix)) return join(dir, target.slice(prefix.length));
    return undefined;
  };
}

function renderDescriptor(name, about, { json, read }) {
  const body = `export const ${name} = ${JSON.stringify(JSON.stringify(json))};\n`;
  const files = read.map(([n]) => n).sort();
  return render({
    generatorUrl: import.meta.url,
    about: [...about, ...wrap(`Input files: ${files.join(', ')}.`)],
    input: inputDigest(read),
    body,
  });
}

function k8sText(dirs) {
  return renderDescriptor(
    'K8S_DESCRIPTOR_JSON',
    [
      'The protobuf wire types of k8s.io/api and k8s.io/apimachinery v0.32.13 (their published',
      'generated.proto files, not committed), as a protobufjs JSON descriptor.',
    ],
    compile(PROTO_FILES, k8sPath(dirs), { optional: true }),
  );
}

function openApiText(dirs) {
  const resolve = (target) => (target === GNOSTIC_FILE ? join(dirs.gnostic, target) : undefined);
  return renderDescriptor(
    'OPENAPIV2_DESCRIPTOR_JSON',
    [
      "gnostic's openapi.v2 messages (github.com/google/gnostic-models v0.6.8, its published",
      'openapiv2/OpenAPIv2.proto, not committed), as a protobufjs JSON descriptor.',
    ],
    compile([GNOSTIC_FILE], resolve, { optional: false }),
  );
}

function parseArgs(argv) {
  const dirs = {};
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') check = true;
    else if (['--api', '--apimachinery', '--gnostic'].includes(a) && argv[i + 1] !== undefined)
      dirs[a.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${a}; usage: ${HOW} [--check]`);
  }
  const given = Object.keys(dirs).length;
  if (given !== 0 && given !== 3)
    throw new Error(`give all three of --api, --apimachinery, --gnostic`);
  return { check, dirs: given === 3 ? dirs : undefined };
}

const { check, dirs } = parseArgs(process.argv.slice(2));
for (const [out, text] of [
  [K8S_OUT, dirs === undefined ? undefined : () => k8sText(dirs)],
  [OPENAPI_OUT, dirs === undefined ? undefined : () => openApiText(dirs)],
]) {
  if (text === undefined) {
    if (!check)
      throw new Error(`the .proto checkouts are needed to write ${relative(ROOT, out)}: ${HOW}`);
    checkRecorded(out, import.meta.url, 'the .proto files are not committed');
  } else if (check) checkRegenerated(out, text(), HOW);
  else write(out, text());
}
