// The agent's Pod schema is generated from the reference's own OpenAPI (scripts/pod-schema.mjs
// over ../shared/reference/kubernetes-1.32/openapi-v3/api_v1.json): the committed file is what the
// generator writes now, and it holds every field of the reference's PodSpec and Container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  ContainerSchema,
  PodSpecSchema,
  VolumeSchema,
} from '../../../../src/agent/pod/pod-schema.generated.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';

test('src/agent/pod/pod-schema.generated.ts is what scripts/pod-schema.mjs writes (--check)', (t) => {
  const r = spawnSync(
    process.execPath,
    [join(process.cwd(), 'scripts', 'pod-schema.mjs'), '--check'],
    {
      encoding: 'utf8',
    },
  );
  if (r.status === 2) {
    t.skip(skipOutsideCi('the reference OpenAPI', r.stderr.trim()));
    return;
  }
  assert.equal(r.status, 0, r.stderr);
});

test("the schema has the reference's fields (1.32's PodSpec, Container and Volume)", () => {
  const spec = Object.keys(PodSpecSchema.shape);
  assert.equal(spec.length, 40);
  for (const f of ['ephemeralContainers', 'hostAliases', 'enableServiceLinks', 'resourceClaims'])
    assert.ok(spec.includes(f), f);
  const c = Object.keys(ContainerSchema.shape);
  assert.equal(c.length, 24);
  for (const f of [
    'envFrom',
    'lifecycle',
    'resizePolicy',
    'restartPolicy',
    'terminationMessagePolicy',
  ])
    assert.ok(c.includes(f), f);
  // name and the 30 volume sources of 1.32 (image is new in 1.31)
  assert.equal(Object.keys(VolumeSchema.shape).length, 31);
});
