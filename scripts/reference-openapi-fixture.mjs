// Writes test/fixtures/reference-1.32/openapi-v3-schemas.json: the reference's own definitions
// (a real kube-apiserver v1.32.13's /openapi/v3 documents, stored in
// ../shared/reference/kubernetes-1.32/openapi-v3) of every type plat-apiserver's documents name,
// descriptions removed; test/unit/apiserver/openapi/reference.test.ts compares our generated
// schemas against them. The file records the digests of its generator, input and schemas;
// `--check` generates again and compares when the input is at hand, and otherwise checks the
// recorded generator and schemas digests (as scripts/generated-file.mjs does for *.generated.ts).
// Usage: npm run build && node scripts/reference-openapi-fixture.mjs [--check] [openapiV3Dir]
//   (run it again after the schema table names new types; the types come from the build)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { allDefinitionNames } from '../dist/test/helpers/openapi-catalog.js';
import { ROOT, SHARED_REFERENCE, generatorDigest, inputDigest, sha256 } from './generated-file.mjs';

const OUT = join(ROOT, 'test', 'fixtures', 'reference-1.32', 'openapi-v3-schemas.json');
const HOW = 'npm run build && node scripts/reference-openapi-fixture.mjs [openapiV3Dir]';

const strip = (v) => {
  if (Array.isArray(v)) return v.map(strip);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'description')
      .map(([k, x]) => [k, strip(x)]),
  );
};

function text(dir) {
  const inputs = readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
  const reference = {};
  for (const [, t] of inputs) Object.assign(reference, JSON.parse(t).components.schemas);
  const schemas = {};
  for (const name of allDefinitionNames().sort())
    if (reference[name] !== undefined) schemas[name] = strip(reference[name]);
  return serialise(schemas, inputDigest(inputs));
}

function serialise(schemas, input) {
  const generated = {
    by: 'scripts/reference-openapi-fixture.mjs',
    from: "../shared/reference/kubernetes-1.32/openapi-v3 (kube-apiserver v1.32.13's /openapi/v3)",
    generator: generatorDigest(import.meta.url),
    input,
    schemas: sha256(JSON.stringify(schemas)),
  };
  return `${JSON.stringify({ generated, schemas }, null, 1)}\n`;
}

function fail(why) {
  process.stderr.write(`${relative(ROOT, OUT)} is stale: ${why}; run ${HOW}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const dir = args.find((a) => a !== '--check') ?? join(SHARED_REFERENCE, 'openapi-v3');
if (existsSync(dir)) {
  const fresh = text(dir);
  if (!check) {
    (await import('./generated-file.mjs')).write(OUT, fresh);
  } else if (readFileSync(OUT, 'utf8') !== fresh) fail('it differs from a fresh one');
  else process.stdout.write(`${relative(ROOT, OUT)}: current (generated again and compared)\n`);
} else {
  if (!check) throw new Error(`the reference's /openapi/v3 documents are not at ${dir}: ${HOW}`);
  const { generated, schemas } = JSON.parse(readFileSync(OUT, 'utf8'));
  if (serialise(schemas, generated.input) !== readFileSync(OUT, 'utf8'))
    fail('the generator or the schemas changed since it was written');
  process.stdout.write(`${relative(ROOT, OUT)}: digests hold (no reference data at ${dir})\n`);
}
