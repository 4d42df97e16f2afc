// Answers of the API server are decoded at the client (zod): a malformed Node, CSR, list or
// watched object is an error (or, in a watch, a skipped event with a warning) that names the
// call, the kind and the field at fault, never a value of the wrong shape handed on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { CsrClient } from '../../../../src/agent/client/csr-client.js';
import { createNodeClient, createPodClient } from '../../../../src/agent/client/typed-clients.js';
import { ApiNodeSchema } from '../../../../src/agent/node/api-node.js';
import { nodeApiFrom } from '../../../../src/agent/node/api-adapters.js';
import { ApiSubjectAccessReviewer } from '../../../../src/agent/server/api-reviewers.js';
import { namesFor } from '../../../../src/common/names.js';
import { NodeAgentError } from '../../../../src/common/util/errors.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function restFor(
  t: { after(fn: () => Promise<void> | void): void },
  handler: Handler,
  logger = recordingLogger(),
): Promise<RestClient> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const rest = new RestClient({
    connection: {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
    logger,
  });
  t.after(() => rest.close());
  return rest;
}

function answer(body: unknown): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

function apiError(pattern: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof NodeAgentError, `not a NodeAgentError: ${String(e)}`);
    assert.equal(e.code, 'Api');
    assert.match(e.message, pattern);
    return true;
  };
}

test('a Node whose metadata.name is a number: the call, the kind and the field in one error', async (t) => {
  const rest = await restFor(t, answer({ kind: 'Node', metadata: { name: 7 } }));
  const api = nodeApiFrom(createNodeClient({ client: rest, schema: ApiNodeSchema }));
  await assert.rejects(
    api.get('n1'),
    apiError(
      /^GET \/api\/v1\/nodes\/n1: the API server's answer is not a valid Node: metadata\.name: expected string, received number$/,
    ),
  );
});

test('a Node without metadata, and a taint without its key, are named by path', async (t) => {
  const rest = await restFor(
    t,
    answer({ kind: 'Node', spec: { taints: [{ effect: 'NoSchedule' }] } }),
  );
  const nodes = createNodeClient({ client: rest, schema: ApiNodeSchema });
  await assert.rejects(
    nodes.get('n1'),
    apiError(
      /not a valid Node: metadata: expected object, received undefined; spec\.taints\[0\]\.key: expected string, received undefined$/,
    ),
  );
});

test('a well-formed Node passes through whole, fields the agent does not read included', async (t) => {
  const body = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', uid: 'u1', managedFields: [{ manager: 'x' }] },
    spec: { taints: [{ key: 'k', effect: 'NewEffect' }] },
    status: { phase: 'whatever' },
  };
  const rest = await restFor(t, answer(body));
  assert.deepEqual(await createNodeClient({ client: rest, schema: ApiNodeSchema }).get('n1'), body);
});

test('an empty answer where an object was due is an error, not undefined handed on', async (t) => {
  const rest = await restFor(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end();
  });
  await assert.rejects(
    createNodeClient({ client: rest, schema: ApiNodeSchema }).get('n1'),
    apiError(/not a valid Node: \(the answer itself\): expected object, received undefined$/),
  );
});

test('a CSR without its spec, or with a condition status outside True/False/Unknown', async (t) => {
  let body: unknown = { kind: 'CertificateSigningRequest', metadata: { name: 'c1' } };
  const rest = await restFor(t, (req, res) => answer(body)(req, res));
  const csrs = new CsrClient({ client: rest, names: namesFor('platform') });
  await assert.rejects(
    csrs.get('c1'),
    apiError(
      /^GET \/apis\/certificates\.platform\.io\/v1\/certificatesigningrequests\/c1: the API server's answer is not a valid CertificateSigningRequest: spec: expected object, received undefined$/,
    ),
  );
  body = {
    metadata: { name: 'c1' },
    spec: { request: 'eA==', signerName: 's' },
    status: { conditions: [{ type: 'Approved', status: 'Yes' }] },
  };
  await assert.rejects(
    csrs.get('c1'),
    apiError(/status\.conditions\[0\]\.status: .*"True"\|"False"\|"Unknown"/),
  );
});

test('a list whose items are not a list is an error naming the list kind; items: null is an empty list', async (t) => {
  let body: unknown = { kind: 'PodList', metadata: { resourceVersion: '5' }, items: { a: 1 } };
  const rest = await restFor(t, (req, res) => answer(body)(req, res));
  const pods = createPodClient({ client: rest });
  await assert.rejects(
    pods.list({ namespace: 'ns' }),
    apiError(
      /^GET \/api\/v1\/namespaces\/ns\/pods: the API server's answer is not a valid PodList: items: expected array, received object$/,
    ),
  );
  body = { kind: 'PodList', metadata: { resourceVersion: '5' }, items: null };
  assert.deepEqual((await pods.list({ namespace: 'ns' })).items, []);
});

test('a watched object of the wrong shape is skipped with a warning; the watch goes on', async (t) => {
  const logger = recordingLogger();
  const rest = await restFor(
    t,
    (req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (u.searchParams.get('watch') !== 'true') {
        res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] }));
        return;
      }
      res.write(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'bad', labels: { a: 1 } } } })}\n`,
      );
      res.write(`${JSON.stringify(['not', 'an', 'event'])}\n`);
      res.end(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'good', resourceVersion: '2' } } })}\n`,
      );
    },
    logger,
  );
  const seen: string[] = [];
  for await (const ev of createPodClient({ client: rest, logger }).watch({ namespace: 'n' })) {
    seen.push(ev.type === 'RELIST' ? 'RELIST' : `${ev.type}:${ev.object.metadata?.name ?? ''}`);
    if (ev.type === 'ADDED') break;
  }
  assert.deepEqual(seen, ['RELIST', 'ADDED:good']);
  const warnings = logger.lines
    .filter((l) => l.level === 'warn')
    .map((l) => `${l.msg} | ${String(l.fields['err'])}`);
  assert.deepEqual(warnings, [
    "watch event skipped: its object cannot be decoded | watch /api/v1/namespaces/n/pods: the API server's answer is not a valid Pod: metadata.labels.a: expected string, received number",
    'watch line skipped: it is not a watch event | (the answer itself): expected object, received array',
  ]);
});

test('a SubjectAccessReview answered without status.allowed is an error naming the field', async (t) => {
  const rest = await restFor(
    t,
    answer({ kind: 'SubjectAccessReview', status: { reason: 'no allowed here' } }),
  );
  const reviewer = new ApiSubjectAccessReviewer({ rest, names: namesFor() });
  await assert.rejects(
    reviewer.review({
      user: 'u',
      groups: [],
      extra: {},
      uid: '',
      resourceAttributes: {
        namespace: '',
        verb: 'get',
        group: '',
        version: 'v1',
        resource: 'nodes',
        subresource: 'proxy',
        name: 'n1',
      },
    }),
    apiError(
      /^POST \/apis\/authorization\.platform\.io\/v1\/subjectaccessreviews: the API server's answer is not a valid SubjectAccessReview: status\.allowed: expected boolean, received undefined$/,
    ),
  );
});
