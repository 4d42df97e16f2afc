// Where a subresource request goes, as the reference resolves it: the routes, the container
// (validateContainer's messages), the node's address by preferred type and its daemon port, and
// the status the stream translator writes for what the agent's v4 error stream said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusFromRefusal, statusFromV4 } from '../../../../src/apiserver/proxy/exec-status.js';
import { matchProxyPath } from '../../../../src/apiserver/proxy/handler.js';
import {
  checkAddressTypes,
  DEFAULT_PREFERRED_ADDRESS_TYPES,
  nodeConnection,
} from '../../../../src/apiserver/proxy/node-connection.js';
import { resolveContainer } from '../../../../src/apiserver/proxy/pod-target.js';
import { StatusError } from '../../../../src/apiserver/status.js';

test('routes: the four pod subresources and nodes/{name}/proxy[/path]; nothing else', () => {
  assert.deepEqual(matchProxyPath('/api/v1/namespaces/ns/pods/p/exec'), {
    kind: 'pod',
    namespace: 'ns',
    name: 'p',
    sub: 'exec',
  });
  assert.deepEqual(matchProxyPath('/api/v1/namespaces/ns/pods/p/log'), {
    kind: 'pod',
    namespace: 'ns',
    name: 'p',
    sub: 'log',
  });
  assert.deepEqual(matchProxyPath('/api/v1/nodes/n/proxy'), { kind: 'node', name: 'n', rest: '/' });
  assert.deepEqual(matchProxyPath('/api/v1/nodes/n/proxy/stats/summary'), {
    kind: 'node',
    name: 'n',
    rest: '/stats/summary',
  });
  for (const p of [
    '/api/v1/namespaces/ns/pods/p',
    '/api/v1/namespaces/ns/pods/p/status',
    '/api/v1/namespaces/ns/pods/p/exec/x',
    '/api/v1/nodes/n/status',
    '/apis/x/v1/namespaces/ns/pods/p/exec',
    '/api/v1/namespaces//pods/p/log',
  ]) {
    assert.equal(matchProxyPath(p), undefined, p);
  }
});

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return `${err.status} ${err.message}`;
  }
  return 'no error';
}

test("containers: validateContainer's choices and 400s", () => {
  const one = { spec: { containers: [{ name: 'a' }] } };
  const many = {
    spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b' }] },
  };
  assert.equal(resolveContainer(one, 'p', ''), 'a');
  assert.equal(resolveContainer(many, 'p', 'i'), 'i');
  assert.equal(
    message(() => resolveContainer(many, 'p', '')),
    '400 a container name must be specified for pod p, choose one of: [i a b]',
  );
  assert.equal(
    message(() => resolveContainer(one, 'p', 'x')),
    '400 container x is not valid for pod p',
  );
  assert.equal(
    message(() => resolveContainer({}, 'p', '')),
    '400 a container name must be specified for pod p',
  );
});

test("node address: the first preferred type present, the reported port or 10250, the reference's error", () => {
  const node = {
    status: {
      addresses: [
        { type: 'Hostname', address: 'n1' },
        { type: 'InternalIP', address: '10.0.0.1' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10300 } },
    },
  };
  assert.deepEqual(nodeConnection(node, DEFAULT_PREFERRED_ADDRESS_TYPES), {
    host: 'n1',
    port: 10300,
  });
  assert.deepEqual(nodeConnection(node, ['InternalIP', 'Hostname']), {
    host: '10.0.0.1',
    port: 10300,
  });
  assert.deepEqual(
    nodeConnection({ status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } }, [
      'InternalIP',
    ]),
    { host: '10.0.0.2', port: 10250 },
  );
  const err = (() => {
    try {
      nodeConnection(node, ['ExternalIP']);
    } catch (e) {
      return e as StatusError;
    }
    return undefined;
  })();
  assert.deepEqual(
    [err?.status, err?.message, err?.toStatus().reason],
    [
      500,
      'no preferred addresses found; known addresses: [{Hostname n1} {InternalIP 10.0.0.1}]',
      undefined,
    ],
  );
  assert.equal(
    checkAddressTypes(['InternalIP', 'Bogus']),
    'unknown address type "Bogus"; accepted: Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP',
  );
  assert.equal(
    checkAddressTypes(['InternalIP', 'InternalIP']),
    'address type "InternalIP" given more than once',
  );
  assert.equal(checkAddressTypes([...DEFAULT_PREFERRED_ADDRESS_TYPES]), undefined);
});

test("translator status: exit codes as client-go decodes them, then StreamTranslatorHandler's Status", () => {
  assert.deepEqual(statusFromV4(''), { metadata: {}, status: 'Success' });
  assert.deepEqual(statusFromV4('{"metadata":{},"status":"Success"}'), {
    metadata: {},
    status: 'Success',
  });
  assert.deepEqual(
    statusFromV4(
      '{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}',
    ),
    {
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: command terminated with exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    },
  );
  assert.equal(
    statusFromV4(
      '{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"300"}]}}',
    ).message,
    'Internal error occurred: error stream protocol error: invalid exit code value "300"',
  );
  assert.equal(
    statusFromV4('{"status":"Failure","message":"boom"}').message,
    'Internal error occurred: boom',
  );
  assert.equal(statusFromV4('not json').reason, 'InternalError');
  assert.equal(
    statusFromRefusal('container not found ("x")').message,
    'Internal error occurred: unable to upgrade connection: container not found ("x")',
  );
  assert.deepEqual(
    statusFromRefusal(
      '{"kind":"Status","status":"Failure","message":"m","reason":"NotFound","code":404}',
    ),
    { metadata: {}, status: 'Failure', message: 'm', reason: 'NotFound', code: 404 },
  );
});
