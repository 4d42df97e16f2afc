// The container environment on process:// (env-scene.ts says what is shown): the same values as
// on Docker, the pod's IP being the host's.
import { test } from 'node:test';
import { envScenario } from './env-scene.js';

test(
  'env on process://: fieldRef, resourceFieldRef with a divisor, configMapKeyRef, secretKeyRef, envFrom with a prefix, $(VAR) expansion with $$ escapes; a missing ConfigMap is CreateContainerConfigError until it exists',
  { timeout: 240_000 },
  async (t) => envScenario(t, 'process'),
);
