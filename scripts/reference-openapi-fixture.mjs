// Writes test/fixtures/reference-1.32/openapi-v3-schemas.json: the reference's own definitions
// (from a real kube-apiserver 1.32's /openapi/v3 documents, /work/shared/reference/kubernetes-1.32/
// openapi-v3) of every type plat-apiserver's documents name, descriptions removed. The test
// test/unit/apiserver/openapi/reference.test.ts compares our generated schemas against them.
// Usage: npx tsc -p tsconfig.json && node scripts/reference-openapi-fixture.mjs [referenceDir]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { allDefinitionNames } from '../dist/test/helpers/openapi-catalog.js';

const dir = process.argv[2] ?? '/work/shared/reference/kubernetes-1.32/openapi-v3';
const reference = {};
for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
  Object.assign(reference, JSON.parse(readFileSync(join(dir, f), 'utf8')).components.schemas);
}
const strip = (v) => {
  if (Array.isArray(v)) return v.map(strip);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'description').map(([k, x]) => [k, strip(x)]));
};
const out = {};
for (const name of allDefinitionNames().sort()) if (reference[name] !== undefined) out[name] = strip(reference[name]);
writeFileSync('test/fixtures/reference-1.32/openapi-v3-schemas.json', `${JSON.stringify(out, null, 1)}\n`);
process.stdout.write(`${Object.keys(out).length} definitions\n`);
