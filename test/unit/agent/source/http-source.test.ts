import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpSource } from '../../../../src/agent/source/http.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const podJson = (name: string): unknown => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox:local' }] },
});

test('the HTTP source: headers, Pod and PodList, errors keep pods, empty body removes them, throttled logs', async (t) => {
  let status = 200;
  let body = JSON.stringify(podJson('one'));
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.statusCode = status;
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods?token=secret`;
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const src = new HttpSource({
    url,
    headers: { 'X-Auth': ['s3cret'], Accept: ['application/json', 'application/yaml'] },
    checkFrequencyMs: 20_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: true, requireCommand: false },
    onSnapshot: (s) => snaps.push(s),
    logger,
    clock: new ManualClock(),
  });
  const signal = new AbortController().signal;
  const names = (): string[] => (snaps.at(-1)?.pods ?? []).map((p) => p.metadata.name);

  await src.poll(signal);
  assert.deepEqual(names(), ['one-n1']);
  assert.equal(seen[0]?.['x-auth'], 's3cret');
  assert.match(String(seen[0]?.accept), /application\/json.*application\/yaml/);
  assert.match(snaps[0]?.pods[0]?.metadata.uid ?? '', /^[0-9a-f]{32}$/);

  await src.poll(signal);
  assert.equal(snaps.length, 1, 'an unchanged body is skipped');

  body = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [podJson('a'), podJson('b')] });
  await src.poll(signal);
  assert.deepEqual(names(), ['a-n1', 'b-n1']);

  status = 500;
  for (let i = 0; i < 5; i++) await src.poll(signal);
  status = 200;
  body = '{"kind": "Pod", garbage';
  await src.poll(signal);
  assert.deepEqual(names(), ['a-n1', 'b-n1'], 'errors keep the current pods');
  const errors = logger.lines.filter((l) => l.level === 'error');
  assert.equal(errors.length, 3, 'after 3 logged failures the rest go to debug');
  assert.ok(logger.lines.filter((l) => l.level === 'debug').length >= 3);
  assert.match(String(errors[0]?.fields.err), /HTTP 500/);
  assert.ok(
    !JSON.stringify(logger.lines).includes('s3cret') &&
      !JSON.stringify(logger.lines).includes('token=secret'),
    'no secrets in logs',
  );

  body = '';
  await src.poll(signal);
  assert.deepEqual(names(), [], 'an empty 200 removes all pods');
});

test('the HTTP source: a server that is down is logged and keeps pods', async () => {
  const snaps: PodSnapshot[] = [];
  const logger = recordingLogger();
  const src = new HttpSource({
    url: 'http://127.0.0.1:9/none',
    headers: {},
    checkFrequencyMs: 20_000,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    validation: { requireImage: true, requireCommand: false },
    onSnapshot: (s) => snaps.push(s),
    logger,
    clock: new ManualClock(),
    timeoutMs: 2000,
  });
  await src.poll(new AbortController().signal);
  assert.equal(snaps.length, 0);
  assert.equal(logger.lines[0]?.level, 'error');
});
