// Nothing in src/ spells a reserved domain or name except the one table (src/common/names.ts):
// every string, template and regular-expression literal of every source file is read through the
// TypeScript parser (comments are prose and stay free) and checked for the reference's and our
// reserved domains, the reference's reserved namespaces and the other reserved names below. The one
// other files allowed are the reference's own data read from a real 1.32 apiserver (its RBAC
// bootstrap policy) or its .proto names, translated into the profile's names where they are
// served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const RESERVED =
  /(^|[^a-z0-9-])(k8s\.io|kubernetes\.io|platform\.io)(?![a-z0-9-])|legacy-unknown|vnd\.kubernetes|node-role\.|\b(kube|plat)-(system|public|node-lease)\b/;

const ALLOWED: Readonly<Record<string, string>> = {
  'src/common/names.ts': 'the one table',
  'src/agent/runtime/cri/api.generated.ts':
    'its header names the upstream module the generator read (k8s.io/cri-api)',
  'src/agent/runtime/cri/stream-client.ts':
    "the CRI streaming server's channel subprotocol, a wire identifier of the runtime's own server",
  'src/apiserver/authz/rbac/reference-policy.generated.ts':
    "the reference's bootstrap policy as read from a real 1.32 apiserver, translated by src/apiserver/authz/rbac/names.ts",
};

/**
 * Folders of the reference's own data: the protobuf package and message names of its .proto files
 * (k8s.io.api.core.v1...).
 */
const ALLOWED_FOLDERS: Readonly<Record<string, string>> = {
  'src/common/protobuf/':
    "the reference's generated.proto package and type names, fixed on the wire under every profile",
};

/**
 * KNOWN GAPS: files that still spell reserved names themselves:
 * the streaming subprotocols (`v5.channel.k8s.io`, `base64.channel.k8s.io`, `portforward.k8s.io`
 * prefixes) and the events recorder's mode label (`events.k8s.io`). Each must move them to
 * src/common/names.ts (WIRE_NAMES, namesFor) and leave this list.
 */
const KNOWN_GAPS: readonly string[] = [
  'src/agent/node/events/events-v1-sink.ts',
  'src/agent/server/streaming/exec.ts',
  'src/agent/server/streaming/ws-upgrade.ts',
  'src/apiserver/proxy/ws-exec.ts',
  'src/apiserver/proxy/ws-tunnel.ts',
];

const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (
    !existsSync(join(dir, 'package.json')) ||
    !existsSync(join(dir, 'src', 'common', 'names.ts'))
  ) {
    const up = dirname(dir);
    if (up === dir) throw new Error('repository root not found');
    dir = up;
  }
  return dir;
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

/** `file:line: literal` for each literal of `text` that spells a reserved name. */
export function reservedLiterals(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (LITERALS.has(n.kind)) {
      const literal = n.getText(sf);
      // Escapes aside (`node-role\\.kubernetes\\.io` in a regular expression is the same name).
      if (RESERVED.test(literal.replace(/\\/g, '')))
        out.push(
          `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${literal.slice(0, 120)}`,
        );
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the checker finds a reserved name in strings, templates and regular expressions, and not in comments or derived names', () => {
  const sample = [
    '// kubernetes.io in a comment is prose',
    "const a = 'kubernetes.io/hostname';",
    'const b = `certificates.${d}.k8s.io`;',
    'const c = /^node-role\\.platform\\.io\\//;',
    "const d = 'v4.channel.k8s.io';",
    "const e = 'kube-node-lease';",
    'const f = `${names.labelDomain}/hostname`;',
    "const g = 'mykubernetes.iox';",
  ].join('\n');
  assert.deepEqual(
    reservedLiterals('sample.ts', sample).map((l) => l.split(':')[1]),
    ['2', '3', '4', '5', '6'],
  );
});

test('no file of src/ outside src/common/names.ts spells a reserved domain or name', () => {
  const root = repoRoot();
  const found: string[] = [];
  let files = 0;
  for (const path of sources(join(root, 'src'))) {
    const rel = relative(root, path);
    files++;
    if (
      ALLOWED[rel] !== undefined ||
      KNOWN_GAPS.includes(rel) ||
      Object.keys(ALLOWED_FOLDERS).some((f) => rel.startsWith(f))
    )
      continue;
    const text = readFileSync(path, 'utf8');
    // Parsed only when the text holds a reserved name somewhere (most files do not).
    if (RESERVED.test(text.replace(/\\/g, ''))) found.push(...reservedLiterals(rel, text));
  }
  assert.ok(files > 100, `read ${files} source files`);
  assert.deepEqual(
    found,
    [],
    'route these through src/common/names.ts (namesFor, REFERENCE_NAMES, WIRE_NAMES)',
  );
});

test('each known gap still has a reserved name to move (a fixed one leaves the list)', () => {
  const root = repoRoot();
  for (const rel of KNOWN_GAPS) {
    assert.notDeepEqual(
      reservedLiterals(rel, readFileSync(join(root, rel), 'utf8')),
      [],
      `${rel} no longer spells a reserved name: take it off KNOWN_GAPS`,
    );
  }
});
