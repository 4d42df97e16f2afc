// Properties: Go durations round-trip; every provider returns what it was given for any value and
// storage key; "*.*" never shares a resource list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatDurationNs, tryDurationMs } from '../../../../src/common/util/values/duration.js';
import { validateEncryption } from '../../../../src/apiserver/config/encryption.js';
import { IssueList } from '../../../../src/apiserver/config/issues.js';
import {
  aesCbcProvider,
  aesGcmProvider,
  secretboxProvider,
} from '../../../../src/apiserver/encryption/providers.js';

test('formatting then parsing a Go duration is the identity on whole milliseconds', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -1e10, max: 1e10 }),
      (ms) => tryDurationMs(formatDurationNs(BigInt(ms) * 1_000_000n)) === ms,
    ),
  );
});

test('providers round-trip any value under any storage key', async () => {
  const key = Buffer.alloc(32, 3);
  const providers = [
    aesGcmProvider('k', key),
    aesCbcProvider('k', key),
    secretboxProvider('k', key),
  ];
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.string(), async (data, ctx) => {
      for (const p of providers) {
        const back = await p.decrypt(await p.encrypt(data, ctx), ctx);
        assert.deepEqual(Buffer.from(back), Buffer.from(data));
      }
    }),
    { numRuns: 100 },
  );
});

test('a resource list with "*.*" and anything else is rejected', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,10}(\.[a-z][a-z0-9]{0,8})?$/);
  fc.assert(
    fc.property(name, (other) => {
      const issues = new IssueList();
      validateEncryption(issues, {
        apiVersion: 'x',
        kind: 'EncryptionConfiguration',
        resources: [{ resources: ['*.*', other], providers: [{ identity: {} }] }],
      });
      return issues.issues.some((i) => /overlaps with "\*\.\*"/.test(i.message));
    }),
  );
});
