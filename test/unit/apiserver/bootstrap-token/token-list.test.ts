// The pieces of `token list` against the reference's: duration.ShortHumanDuration's buckets, Go's
// tabwriter alignment (minwidth 10, padding 3, last cell unpadded), kubeadm's
// BootstrapTokenFromSecret messages and its reading of usages and groups (written out here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  shortHumanDuration,
  tabwrite,
  tokenFromSecret,
  tokenRow,
} from '../../../../src/apiserver/bootstrap-token/list-command.js';
import { tokenIdOf } from '../../../../src/apiserver/bootstrap-token/delete-command.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const secret = (name: string, data: Record<string, string>): Record<string, unknown> => ({
  metadata: { name },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

test("ShortHumanDuration: the reference's buckets", () => {
  const cases: [number, string][] = [
    [-2500, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [3_599_999, '59m'],
    [3_600_000, '1h'],
    [2 * 3_600_000 - 1000, '1h'],
    [24 * 3_600_000, '1d'],
    [364 * 24 * 3_600_000, '364d'],
    [366 * 24 * 3_600_000, '1y'],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, String(ms));
});

test('tabwriter: columns as wide as their widest cell plus 3, at least 10; the last cell unpadded', () => {
  assert.equal(
    tabwrite([
      ['A', 'BB', 'last'],
      ['CCCCCCCCCCCC', 'D', 'x'],
    ]),
    'A              BB        last\nCCCCCCCCCCCC   D         x\n',
  );
});

test('BootstrapTokenFromSecret: its messages, sorted usages, groups, placeholders in a row', () => {
  assert.deepEqual(tokenFromSecret(secret('bootstrap-token-abcdef', {})), {
    problem: 'bootstrap Token Secret has no token-id data: bootstrap-token-abcdef',
  });
  assert.deepEqual(tokenFromSecret(secret('bootstrap-token-x', { 'token-id': 'abcdef' })), {
    problem: `bootstrap token name is not of the form 'bootstrap-token-(token-id)'. Actual: "bootstrap-token-x". Expected: "bootstrap-token-abcdef"`,
  });
  assert.deepEqual(tokenFromSecret(secret('bootstrap-token-abcdef', { 'token-id': 'abcdef' })), {
    problem: 'bootstrap Token Secret has no token-secret data: bootstrap-token-abcdef',
  });
  assert.deepEqual(
    tokenFromSecret(
      secret('bootstrap-token-abcdef', {
        'token-id': 'abcdef',
        'token-secret': '0123456789abcdef',
        expiration: 'tomorrow',
      }),
    ),
    { problem: `can't parse expiration time of bootstrap token "bootstrap-token-abcdef"` },
  );
  const t = tokenFromSecret(
    secret('bootstrap-token-abcdef', {
      'token-id': 'abcdef',
      'token-secret': '0123456789abcdef',
      expiration: '2030-01-02T03:04:05.123Z',
      'usage-bootstrap-signing': 'true',
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-other': 'false',
      'auth-extra-groups': 'system:bootstrappers:a,system:bootstrappers:b',
    }),
  );
  assert.ok(!('problem' in t));
  assert.deepEqual(tokenRow(t, new Date('2030-01-02T01:04:05Z')), [
    'abcdef.0123456789abcdef',
    '2h',
    '2030-01-02T03:04:05Z',
    'authentication,signing',
    '<none>',
    'system:bootstrappers:a,system:bootstrappers:b',
  ]);
  const bare = tokenFromSecret(
    secret('bootstrap-token-abcdef', { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' }),
  );
  assert.ok(!('problem' in bare));
  assert.deepEqual(tokenRow(bare, new Date()), [
    'abcdef.0123456789abcdef',
    '<forever>',
    '<never>',
    '<none>',
    '<none>',
    '<none>',
  ]);
});

test('token delete arguments: an id, or a whole token (its id)', () => {
  assert.equal(tokenIdOf('abcdef'), 'abcdef');
  assert.equal(tokenIdOf('abcdef.0123456789abcdef'), 'abcdef');
  assert.throws(() => tokenIdOf('abcdef.short'), /given token didn't match pattern/);
});
