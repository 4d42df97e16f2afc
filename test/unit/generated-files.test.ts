// Every generated file is current: each generator's `--check` passes. Where a generator's input
// is at hand (the reference's data in ../shared/reference) the check generates again and compares
// byte for byte; where it is not (the published .proto files, never committed) it checks the
// digests the file records of its generator and body (scripts/generated-file.mjs), and the
// protobuf goldens prove the descriptors on the wire. The check is shown to fail on a hand edit
// and on a changed generator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.cwd();
const GENERATORS = [
  'gen-proto.mjs',
  'gen-rbac-policy.mjs',
  'reference-core-schema.mjs',
  'reference-openapi-fixture.mjs',
];

function run(args: readonly string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

for (const g of GENERATORS)
  test(`scripts/${g} --check: the committed output is current`, () => {
    const r = run([join('scripts', g), '--check']);
    assert.equal(r.status, 0, r.out);
  });

/** Runs recordedProblems of scripts/generated-file.mjs on a text, as a generator would. */
function problems(text: string, generator: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'generated-'));
  try {
    const file = join(dir, 'out.ts');
    writeFileSync(file, text);
    const helper = pathToFileURL(join(ROOT, 'scripts', 'generated-file.mjs')).href;
    const code = `const m = await import(${JSON.stringify(helper)});
      const fs = await import('node:fs');
      process.stdout.write(JSON.stringify(m.recordedProblems(fs.readFileSync(${JSON.stringify(file)}, 'utf8'), ${JSON.stringify(generator)})));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the recorded-digest check fails on a hand edit and on another generator', () => {
  const file = join(ROOT, 'src', 'apiserver', 'authz', 'rbac', 'reference-policy.generated.ts');
  const generator = pathToFileURL(join(ROOT, 'scripts', 'gen-rbac-policy.mjs')).href;
  const other = pathToFileURL(join(ROOT, 'scripts', 'gen-proto.mjs')).href;
  const text = readFileSync(file, 'utf8');
  assert.deepEqual(problems(text, generator), []);
  assert.deepEqual(problems(text.replace('"cluster-admin"', '"cluster-admim"'), generator), [
    'the body was edited after it was generated',
  ]);
  assert.deepEqual(problems(text, other), ['the generator changed since the file was written']);
  assert.deepEqual(problems(text.replace(/^\/\/ input sha256.*\n/m, ''), generator), [
    'no "input sha256" line in the header',
  ]);
});
