// pods/log query parameters against the reference's decoding (Convert_Slice_string_To_bool,
// strconv.ParseInt, metav1.Time) and ValidatePodLogOptions, with its messages written out, and
// the kubelet query LogLocation builds (keys sorted as url.Values.Encode sorts them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentLogQuery, parsePodLogOptions } from '../../../../src/apiserver/proxy/log-options.js';
import { StatusError } from '../../../../src/apiserver/status.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

function refusal(s: string): [number, string] {
  try {
    parsePodLogOptions(q(s), 'web');
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return [err.status, err.message];
  }
  throw new Error(`accepted: ${s}`);
}

test('booleans as the reference converts them: anything but "false"/"0" is true, even empty', () => {
  const o = parsePodLogOptions(
    q('follow=&previous=FALSE&timestamps=yes&insecureSkipTLSVerifyBackend=0'),
    'web',
  );
  assert.deepEqual(
    [o.follow, o.previous, o.timestamps, o.insecureSkipTLSVerifyBackend],
    [true, false, true, false],
  );
});

test("integers as strconv.ParseInt: syntax and range errors are 400 with Go's text", () => {
  assert.deepEqual(refusal('tailLines=x'), [400, 'strconv.ParseInt: parsing "x": invalid syntax']);
  assert.deepEqual(refusal('limitBytes='), [400, 'strconv.ParseInt: parsing "": invalid syntax']);
  assert.deepEqual(refusal('sinceSeconds=9223372036854775808'), [
    400,
    'strconv.ParseInt: parsing "9223372036854775808": value out of range',
  ]);
  assert.equal(parsePodLogOptions(q('tailLines=%2B7'), 'web').tailLines, 7n);
});

test("ValidatePodLogOptions: 422 Invalid with the reference's field messages", () => {
  assert.deepEqual(refusal('tailLines=-1'), [
    422,
    'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
  ]);
  assert.deepEqual(refusal('limitBytes=0'), [
    422,
    'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0',
  ]);
  assert.deepEqual(refusal('sinceSeconds=0'), [
    422,
    'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
  ]);
  assert.deepEqual(refusal('sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z'), [
    422,
    'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
  ]);
  assert.deepEqual(refusal('sinceTime=yesterday'), [
    400,
    'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  ]);
});

test("the agent query: LogLocation's parameters, sorted, sinceTime in UTC", () => {
  const o = parsePodLogOptions(
    q(
      'container=c&tailLines=3&timestamps=true&follow=true&limitBytes=10&previous=1&sinceTime=2024-01-01T02:00:00%2B02:00&insecureSkipTLSVerifyBackend=true',
    ),
    'web',
  );
  assert.equal(
    agentLogQuery(o),
    '?follow=true&limitBytes=10&previous=true&sinceTime=2024-01-01T00%3A00%3A00Z&tailLines=3&timestamps=true',
  );
  assert.equal(agentLogQuery(parsePodLogOptions(q(''), 'web')), '');
  assert.equal(agentLogQuery(parsePodLogOptions(q('sinceSeconds=30'), 'web')), '?sinceSeconds=30');
});
