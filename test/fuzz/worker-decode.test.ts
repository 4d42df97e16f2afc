// Fuzz of body decoding on a worker thread (--worker-threads): for random, structural, deeply
// nested and pod-shaped bodies, as JSON and as YAML, decodeOnPool gives what decodeBody gives on
// the main thread: the same object, unknown and duplicate fields, or the same DecodeError with the
// same limit and YAML conversion words. Inputs: fuzzParams() (FUZZ_RUNS for the long run).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { decodeBody, DecodeError, type DecodeOptions } from '../../src/apiserver/decode.js';
import { ThreadPool } from '../../src/apiserver/workers/thread-pool.js';
import { decodeOnPool } from '../../src/apiserver/workers/decode-job.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';
import { nestedBody, structuralBody } from '../helpers/fuzz-bodies.js';

const ENTRY = fileURLToPath(new URL('../../src/apiserver/workers/thread-main.js', import.meta.url));
const pool = new ThreadPool({ count: 2, entry: ENTRY, logger: recordingLogger() });
after(() => pool.stop());

function settled(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (err) {
    if (!(err instanceof DecodeError)) return { thrown: String(err) };
    const l = err.limit;
    return {
      message: err.message,
      yamlConversion: err.yamlConversion,
      limit: l && [l.message, l.limit, l.max, l.offset, l.field, l.source],
    };
  }
}

const podish = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    extra: fc.jsonValue({ maxDepth: 6 }),
    meta: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  })
  .map(({ name, extra, meta }) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...meta, name },
      spec: { containers: [{ name: 'c', image: 'i', ports: extra }], x: extra },
    }),
  );
const body = fc.oneof(
  nestedBody,
  structuralBody,
  podish,
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 8 }),
);

test('a body decoded on a worker thread decodes as on the main thread', async () => {
  await fc.assert(
    fc.asyncProperty(
      body,
      fc.constantFrom('application/json', 'application/yaml'),
      fc.constantFrom('Pod', 'ConfigMap'),
      async (text, contentType, kind) => {
        const o: DecodeOptions = { body: text, contentType, kind, apiVersion: 'v1' };
        const here = settled(() => decodeBody(o));
        let there: unknown;
        try {
          there = { ok: await decodeOnPool(pool, o) };
        } catch (err) {
          there = settled(() => {
            throw err;
          });
        }
        assert.deepEqual(there, here);
      },
    ),
    fuzzParams(150),
  );
});
