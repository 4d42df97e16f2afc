// The container environment on a real Docker engine (env-scene.ts says what is shown).
import { test } from 'node:test';
import { dockerSkipReason } from './runtimes.js';
import { envScenario } from './env-scene.js';

const skip = await dockerSkipReason();

test(
  'env on Docker: fieldRef, resourceFieldRef with a divisor, configMapKeyRef, secretKeyRef, envFrom with a prefix, $(VAR) expansion with $$ escapes; a missing ConfigMap is CreateContainerConfigError until it exists',
  { skip, timeout: 240_000 },
  async (t) => envScenario(t, 'docker'),
);
