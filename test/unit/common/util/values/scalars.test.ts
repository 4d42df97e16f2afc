import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throwsFlagError } from '../../../../helpers/flag-error.js';
import { parseBool, goBool } from '../../../../../src/common/util/values/bool.js';
import { parseInt32, parseInt64 } from '../../../../../src/common/util/values/int.js';
import {
  formatDuration,
  formatDurationNs,
  normalizeDuration,
  parseDurationMs,
  parseDurationNs,
} from '../../../../../src/common/util/values/duration.js';
import { parseQuantity, servedQuantity } from '../../../../../src/common/util/values/quantity.js';

test('bool: every Go ParseBool form, and nothing else', () => {
  for (const t of ['1', 't', 'T', 'true', 'TRUE', 'True']) assert.equal(parseBool(t), true, t);
  for (const f of ['0', 'f', 'F', 'false', 'FALSE', 'False']) assert.equal(parseBool(f), false, f);
  for (const bad of ['', 'yes', 'tRUE', 'on', '2', ' true']) {
    assert.equal(goBool(bad), undefined);
    throwsFlagError(() => parseBool(bad, 'fail-swap-on'));
  }
  throwsFlagError(
    () => parseBool('yes', 'fail-swap-on'),
    'invalid argument "yes" for "--fail-swap-on" flag: strconv.ParseBool: parsing "yes": invalid syntax (accepted: 1, t, T, true, TRUE, True, 0, f, F, false, FALSE, False)',
  );
});

test('int32 and int: Go base-0 syntax and range checks', () => {
  const good: [string, number][] = [
    ['0', 0],
    ['110', 110],
    ['-999', -999],
    ['+5', 5],
    ['0x10', 16],
    ['0X1f', 31],
    ['010', 8],
    ['0o17', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['0x_ff', 255],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ];
  for (const [s, n] of good) assert.equal(parseInt32(s), n, s);
  for (const bad of ['', 'abc', '1.5', '08', '0x', '1__0', '1_', '_1', '--1', '1e3', ' 1'])
    throwsFlagError(() => parseInt32(bad, 'max-pods'), /invalid syntax/);
  throwsFlagError(
    () => parseInt32('2147483648', 'max-pods'),
    'invalid argument "2147483648" for "--max-pods" flag: strconv.ParseInt: parsing "2147483648": value out of range (accepted: an integer from -2147483648 to 2147483647 (decimal, 0x hex, 0o octal or 0b binary))',
  );
  throwsFlagError(() => parseInt32('-2147483649'), /out of range/);
  assert.equal(parseInt64('1000000000000'), 1e12);
  throwsFlagError(() => parseInt64('9007199254740992', 'max-open-files'), /out of range/);
});

test('duration: Go ParseDuration syntax, normalized to Go String()', () => {
  const cases: [string, string, number][] = [
    ['0', '0s', 0],
    ['20s', '20s', 20000],
    ['300ms', '300ms', 300],
    ['1.5h', '1h30m0s', 5400000],
    ['2m0s', '2m0s', 120000],
    ['4h0m0s', '4h0m0s', 14400000],
    ['1h2m3.5s', '1h2m3.5s', 3723500],
    ['-1.5s', '-1.5s', -1500],
    ['+5m', '5m0s', 300000],
    ['1us', '1µs', 0.001],
    ['1µs', '1µs', 0.001],
    ['1μs', '1µs', 0.001],
    ['3ns', '3ns', 0.000003],
    ['.5s', '500ms', 500],
    ['1.s', '1s', 1000],
    ['100ms', '100ms', 100],
    ['1h0m0s', '1h0m0s', 3600000],
    ['90m', '1h30m0s', 5400000],
    ['2562047h47m16.854775807s', '2562047h47m16.854775807s', 9223372036854.775],
  ];
  for (const [s, norm, ms] of cases) {
    assert.equal(normalizeDuration(s), norm, s);
    assert.equal(parseDurationMs(s), ms, s);
  }
  assert.equal(parseDurationNs('-2562047h47m16.854775808s'), -9223372036854775808n);
  const bad: [string, RegExp][] = [
    ['', /time: invalid duration ""/],
    ['1', /time: missing unit in duration "1"/],
    ['x', /time: invalid duration "x"/],
    ['1x', /time: unknown unit "x" in duration "1x"/],
    ['.s', /invalid duration/],
    ['-', /invalid duration/],
    ['1.2.3s', /missing unit/],
    ['2562047h47m16.854775808s', /invalid duration/],
    ['1 s', /unknown unit " s"/],
    ['1S', /unknown unit "S"/],
  ];
  for (const [s, re] of bad) throwsFlagError(() => parseDurationNs(s, 'sync-frequency'), re);
  throwsFlagError(
    () => normalizeDuration('1x', 'sync-frequency'),
    'invalid argument "1x" for "--sync-frequency" flag: time: unknown unit "x" in duration "1x" (accepted: a Go duration such as 300ms, 1.5h, 2m0s or 1h2m3.5s (units ns, us, µs, ms, s, m, h))',
  );
});

test('formatDuration gives Go String() for milliseconds', () => {
  assert.equal(formatDuration(120000), '2m0s');
  assert.equal(formatDuration(4 * 3600000), '4h0m0s');
  assert.equal(formatDuration(300), '300ms');
  assert.equal(formatDuration(1500), '1.5s');
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(60000), '1m0s');
  assert.equal(formatDuration(-30000), '-30s');
  assert.equal(formatDuration(0.0015), '1.5µs');
  assert.equal(formatDurationNs(1n), '1ns');
  assert.equal(formatDuration(1.25), '1.25ms');
});

test('quantity: the reference grammar, values and canonical form', () => {
  const cases: [string, number, string][] = [
    ['10Mi', 10485760, '10Mi'],
    ['1G', 1e9, '1G'],
    ['500m', 0.5, '500m'],
    ['1024Mi', 1073741824, '1Gi'],
    ['1.5Gi', 1610612736, '1536Mi'],
    ['0.1Ki', 102.4, '102400m'],
    ['1e3', 1000, '1e3'],
    ['1E3', 1000, '1e3'],
    ['0', 0, '0'],
    ['1000m', 1, '1'],
    ['0.5', 0.5, '500m'],
    ['1n', 1e-9, '1n'],
    ['5u', 5e-6, '5u'],
    ['-1Gi', -1073741824, '-1Gi'],
    ['512Ki', 524288, '512Ki'],
    ['1536', 1536, '1536'],
    ['1E', 1e18, '1E'],
    ['+2k', 2000, '2k'],
    ['1.', 1, '1'],
    ['.5', 0.5, '500m'],
    ['5e-3', 0.005, '5e-3'],
    ['100Mi', 104857600, '100Mi'],
    ['1000', 1000, '1k'],
    ['1T', 1e12, '1T'],
    ['2P', 2e15, '2P'],
    ['1Ei', 2 ** 60, '1Ei'],
    ['0.0000000001', 1e-9, '1n'],
    ['100Ki', 102400, '100Ki'],
    ['1023Ki', 1047552, '1023Ki'],
  ];
  for (const [s, v, c] of cases) assert.deepEqual(parseQuantity(s), { value: v, canonical: c }, s);
  for (const bad of [
    '',
    'abc',
    '1Kb',
    '1x',
    '.',
    '1e',
    '--1',
    '1e999',
    'Mi',
    '1 Mi',
    '1.5.5',
    '0x10',
  ]) {
    throwsFlagError(() => parseQuantity(bad, 'log-text-info-buffer-size'));
  }
  throwsFlagError(
    () => parseQuantity('1Kb', 'log-text-info-buffer-size'),
    /^invalid argument "1Kb" for "--log-text-info-buffer-size" flag: unable to parse quantity's suffix \(accepted: a quantity such as/,
  );
});

test('servedQuantity: the spelling the reference serves, resource lists rounded up to milli-units', () => {
  // The reference kube-apiserver 1.32.13's answers for a pod with these values.
  const cases: [string, boolean, string][] = [
    ['0.5', true, '500m'],
    ['0.0001', true, '1m'],
    ['1024Mi', true, '1Gi'],
    ['1e3', true, '1e3'],
    ['128974848', true, '128974848'],
    ['1000m', false, '1'],
    ['1073741824', false, '1073741824'],
    ['0', false, '0'],
  ];
  for (const [s, milli, served] of cases) assert.equal(servedQuantity(s, milli), served, s);
  assert.throws(() => servedQuantity('lots', false));
});
