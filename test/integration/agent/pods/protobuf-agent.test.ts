// The agent speaking protobuf (--plat-api-content-type=application/vnd.kubernetes.protobuf) to
// the real plat-apiserver: it registers its Node, runs a bound pod and reports its status; the
// agent logs that the server took protobuf bodies and answered in protobuf, with no fallback to
// JSON on either side (built plat-apiserver, in-process agent, process://).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { waitFor } from './agent-harness.js';
import { joinedAgentScene } from './joined-agent.js';

test('the agent registers and reports pod status over protobuf', { timeout: 90_000 }, async (t) => {
  const { api, start } = await joinedAgentScene(t, 'na-pb-');
  const node = 'pb-node';
  const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pb-pod' },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', image: 'none', command: ['sleep', '60'] }],
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  const logger = recordingLogger();
  start({ node, config: { platAPIContentType: 'application/vnd.kubernetes.protobuf' }, logger });
  await waitFor(
    'the node to register',
    async () => (await api.request('GET', `/api/v1/nodes/${node}`)).status === 200,
    30_000,
  );
  await waitFor(
    'the pod to report Running',
    async () => {
      const r = await api.request('GET', '/api/v1/namespaces/default/pods/pb-pod');
      return (r.json?.['status'] as { phase?: string } | undefined)?.phase === 'Running';
    },
    30_000,
  );
  const pod = (await api.request('GET', '/api/v1/namespaces/default/pods/pb-pod')).json as {
    status: {
      containerStatuses: {
        name: string;
        ready: boolean;
        state: { running?: { startedAt: string } };
      }[];
    };
  };
  assert.equal(pod.status.containerStatuses[0]?.name, 'c');
  assert.match(
    pod.status.containerStatuses[0]?.state.running?.startedAt ?? '',
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
  );
  const msgs = logger.lines.map((l) => l.msg);
  assert.ok(
    msgs.includes('the API server takes protobuf request bodies'),
    'a protobuf body was taken',
  );
  assert.ok(msgs.includes('the API server answers in protobuf'), 'a protobuf answer was decoded');
  assert.deepEqual(
    msgs.filter((m) => /as JSON|for JSON/.test(m)),
    [],
    'no fallback to JSON',
  );
  assert.equal(
    api.logs().includes('answering a protobuf request with JSON'),
    false,
    'the server never fell back to JSON',
  );
});
