// Fuzz of what the node's helpers read from outside: FlexVolume driver answers (any bytes on
// stdout), cgroup v2 memory.events text and the FlexVolume driver names of pods. Each answers a
// value or an Error naming the problem; nothing else is thrown, and nothing hangs.
// Inputs: fuzzParams() (FUZZ_RUNS; `npm run fuzz` for the long run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { driverPaths, driverResponse } from '../../../src/agent/volume/flexvolume.js';
import { parseMemoryEvents } from '../../../src/agent/eviction/memcg-notification.js';
import { fuzzParams } from '../../helpers/fuzz-runs.js';

const jsonish = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      status: fc.constantFrom('Success', 'Failure', 'Not supported', '', 'x'),
      message: fc.string({ maxLength: 40 }),
      capabilities: fc.jsonValue({ maxDepth: 3 }),
    })
    .map((v) => JSON.stringify(v)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `${'['.repeat(n)}`),
);

test('FlexVolume driver answers: a status or an Error, never another throw', () => {
  fc.assert(
    fc.property(fc.constantFrom('init', 'mount', 'unmount'), jsonish, (cmd, out) => {
      try {
        const s = driverResponse(cmd, out);
        assert.equal(s.status, 'Success');
      } catch (err) {
        assert.ok(
          err instanceof Error && err.message.length > 0 && err.message.length < 2000,
          String(err),
        );
      }
    }),
    fuzzParams(300),
  );
});

test('memory.events text and driver names: parsed or refused without a throw', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 600 }), (text) => {
      for (const v of parseMemoryEvents(text).values()) assert.ok(Number.isFinite(v));
      const p = driverPaths(text);
      if (typeof p !== 'string')
        assert.ok(!p.dir.includes('/') && p.dir !== '..' && p.exe !== '..' && p.exe !== '');
    }),
    fuzzParams(300),
  );
});
