// The agent's event recorder against the built plat-apiserver (kubernetes profile): discovery
// lists events.k8s.io/v1, so events are written through it as the reference's newer recorder
// writes them (create, then a series patch for a repeat), and read back through both groups.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { negotiatedEventSinkFrom } from '../../../../src/agent/node/api-adapters.js';
import { EventRecorder } from '../../../../src/agent/node/events/recorder.js';

let api: StartedApiServer;
let rest: RestClient;

before(async () => {
  api = await startApiServer({ platformDomain: 'k8s.io', args: ['--platform-profile=kubernetes'] });
  rest = new RestClient({
    connection: await loadConnection(api.adminPlatconfig),
    retry: { maxRetries: 0 },
  });
});
after(async () => {
  await rest?.close();
  await api?.stop();
});

test('the recorder writes through events.k8s.io/v1 when discovery lists it: eventTime, reporting fields, a series for a repeat', async () => {
  const logger = recordingLogger();
  const sink = negotiatedEventSinkFrom({
    rest,
    group: 'events.k8s.io',
    clock: systemClock,
    logger,
  });
  const recorder = new EventRecorder({
    sink,
    clock: systemClock,
    logger,
    host: 'node-1',
    component: 'kubelet',
    qps: 0,
    burst: 0,
  });
  const ac = new AbortController();
  recorder.start(ac.signal);
  try {
    const pod = {
      kind: 'Pod',
      namespace: 'default',
      name: 'web',
      uid: 'uid-web',
      apiVersion: 'v1',
    };
    recorder.event(pod, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    await recorder.drained();
    recorder.event(pod, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    await recorder.drained();
    assert.equal(sink.mode, 'events.k8s.io');
    assert.deepEqual(
      [recorder.stats.created, recorder.stats.patched, recorder.stats.droppedFailed],
      [1, 1, 0],
    );
    assert.ok(logger.lines.some((l) => l.msg === 'recording events through the events API group'));

    const list = await api.request(
      'GET',
      '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb',
    );
    const items = list.json?.['items'] as Record<string, unknown>[];
    assert.equal(items.length, 1, list.text);
    const e = items[0] ?? {};
    assert.match(String(e['eventTime']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual(
      [
        e['reportingController'],
        e['reportingInstance'],
        e['action'],
        e['reason'],
        e['note'],
        e['type'],
        (e['series'] as Record<string, unknown>)['count'],
      ],
      [
        'kubelet',
        'node-1',
        'NoKind',
        'Pulled',
        'Container image "nginx" already present on machine',
        'Normal',
        2,
      ],
    );
    const name = String((e['metadata'] as Record<string, unknown>)['name']);
    const core = (await api.request('GET', `/api/v1/namespaces/default/events/${name}`)).json ?? {};
    assert.deepEqual(
      [core['reportingComponent'], core['message'], core['count'], core['source']],
      ['kubelet', 'Container image "nginx" already present on machine', undefined, undefined],
    );
  } finally {
    ac.abort();
    await recorder.stopped();
  }
});
