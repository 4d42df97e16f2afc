// The access reviews on the built plat-apiserver, with the reference's (1.32) answers:
// - AuthorizeWithSelectors (beta, on): the field and label selectors of SubjectAccessReview and
//   SelfSubjectAccessReview reach the authorizers (the Node authorizer lets a node list pods only
//   with spec.nodeName=<itself>, as "Using Node Authorization" documents) and are validated with
//   the reference's messages; the selectors of a list request are sent to an authorization webhook
//   as requirements;
// - LocalSubjectAccessReview (namespaced) with the reference's checks of its namespace;
// - SelfSubjectRulesReview under Node,RBAC: incomplete only for a node (the Node authorizer's RulesFor).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { startSarWebhook, type TestSarWebhook } from '../../helpers/sar-webhook.js';

const D = 'platform.io';
const SAR = `/apis/authorization.${D}/v1/subjectaccessreviews`;
const SSAR = `/apis/authorization.${D}/v1/selfsubjectaccessreviews`;
const NODE = { user: 'system:node:node-a', groups: ['system:nodes', 'system:authenticated'] };
let dir: string;
let api: StartedApiServer;
let hooked: StartedApiServer;
let hook: TestSarWebhook;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'review-selectors-'));
  writeFileSync(
    join(dir, 'tokens.csv'),
    'tok-node-a,system:node:node-a,ua,system:nodes\ntok-paul,paul,up,\n',
  );
  hook = await startSarWebhook({ dir });
  [api, hooked] = await Promise.all([
    startApiServer({ args: [`--token-auth-file=${join(dir, 'tokens.csv')}`] }),
    startApiServer({
      args: [
        '--authorization-mode=Webhook',
        `--authorization-webhook-config-file=${hook.platconfigPath}`,
        '--authorization-webhook-version=v1',
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
      ],
    }),
  ]);
});
after(async () => {
  await Promise.all([api?.stop(), hooked?.stop()]);
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;
const listPods = (extra: Obj = {}): Obj => ({
  verb: 'list',
  resource: 'pods',
  version: 'v1',
  ...extra,
});
async function sar(
  resourceAttributes: Obj,
  subject: Obj = NODE,
): Promise<{ status: number; body: Obj }> {
  const r = await api.request('POST', SAR, {
    body: {
      apiVersion: `authorization.${D}/v1`,
      kind: 'SubjectAccessReview',
      spec: { ...subject, resourceAttributes },
    },
  });
  return { status: r.status, body: r.json ?? {} };
}
const statusOf = (b: Obj): Obj => (b['status'] ?? {}) as Obj;

test('SubjectAccessReview: a node may list pods only with spec.nodeName=<itself>, as a raw selector or as requirements', async () => {
  const without = await sar(listPods());
  assert.equal(without.status, 201);
  assert.deepEqual(statusOf(without.body), {
    allowed: false,
    reason: 'can only list/watch pods with spec.nodeName field selector',
  });
  const raw = await sar(listPods({ fieldSelector: { rawSelector: 'spec.nodeName=node-a' } }));
  assert.deepEqual(statusOf(raw.body), { allowed: true });
  assert.deepEqual(
    ((raw.body['spec'] as Obj)['resourceAttributes'] as Obj)['fieldSelector'],
    { rawSelector: 'spec.nodeName=node-a' },
    'the spec is echoed as sent',
  );
  assert.deepEqual(
    statusOf(
      (
        await sar(
          listPods({
            fieldSelector: {
              requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['node-a'] }],
            },
          }),
        )
      ).body,
    ),
    { allowed: true },
  );
  assert.equal(
    statusOf(
      (await sar(listPods({ fieldSelector: { rawSelector: 'spec.nodeName=node-b' } }))).body,
    )['allowed'],
    false,
  );
  // two values cannot be a field requirement: dropped, so the broader request is asked about
  assert.equal(
    statusOf(
      (
        await sar(
          listPods({
            fieldSelector: {
              requirements: [
                { key: 'spec.nodeName', operator: 'In', values: ['node-a', 'node-b'] },
              ],
            },
          }),
        )
      ).body,
    )['allowed'],
    false,
  );
});

test('SelfSubjectAccessReview as the node: the same answer for its own selector', async () => {
  const ask = async (ra: Obj): Promise<Obj> =>
    (
      await api.request('POST', SSAR, {
        token: 'tok-node-a',
        body: {
          apiVersion: `authorization.${D}/v1`,
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: ra },
        },
      })
    ).json ?? {};
  assert.deepEqual(
    statusOf(
      await ask(
        listPods({
          fieldSelector: {
            requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['node-a'] }],
          },
        }),
      ),
    ),
    { allowed: true },
  );
  assert.equal(statusOf(await ask(listPods()))['allowed'], false);
});

test("invalid selectors: 422 with the reference's messages (SubjectAccessReview and SelfSubjectAccessReview)", async () => {
  const r = await sar(listPods({ fieldSelector: {} }));
  assert.equal(r.status, 422);
  assert.equal(
    r.body['message'],
    `SubjectAccessReview.authorization.${D} "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required`,
  );
  const self = await api.request('POST', SSAR, {
    token: 'tok-paul',
    body: {
      apiVersion: `authorization.${D}/v1`,
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: listPods({ labelSelector: { rawSelector: 'foo', requirements: [{}] } }),
      },
    },
  });
  assert.equal(self.status, 422);
  assert.match(
    String(self.json?.['message']),
    new RegExp(
      `^SelfSubjectAccessReview.authorization.${D.replace('.', '\\.')} "" is invalid: \\[spec\\.resourceAttributes\\.labelSelector\\.rawSelector: Invalid value: "foo": may not specified at the same time as requirements, `,
    ),
  );
  const notObject = await sar(listPods({ fieldSelector: 'spec.nodeName=node-a' }));
  assert.equal(notObject.status, 400);
});

test('a list with field and label selectors: the webhook is sent them as requirements', async () => {
  const r = await hooked.request(
    'GET',
    `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=n1')}&labelSelector=${encodeURIComponent('app=web,!canary')}`,
    { token: 'tok-paul' },
  );
  assert.equal(r.status, 200, r.text);
  const sent = hook.requests
    .map((x) => x.spec['resourceAttributes'] as Obj | undefined)
    .find((a) => a?.['verb'] === 'list' && a['resource'] === 'pods');
  assert.deepEqual(sent?.['fieldSelector'], {
    requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }],
  });
  assert.deepEqual(sent?.['labelSelector'], {
    requirements: [
      { key: 'app', operator: 'In', values: ['web'] },
      { key: 'canary', operator: 'DoesNotExist' },
    ],
  });
});

test("LocalSubjectAccessReview: answered in its namespace; the reference's namespace checks", async () => {
  const LOCAL = `/apis/authorization.${D}/v1/namespaces/default/localsubjectaccessreviews`;
  const body = (spec: Obj, metadata: Obj = {}): Obj => ({
    apiVersion: `authorization.${D}/v1`,
    kind: 'LocalSubjectAccessReview',
    metadata,
    spec,
  });
  const ok = await api.request('POST', LOCAL, {
    body: body({
      user: 'paul',
      resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' },
    }),
  });
  assert.equal(ok.status, 201, ok.text);
  assert.equal(ok.json?.['kind'], 'LocalSubjectAccessReview');
  assert.deepEqual(ok.json?.['metadata'], { namespace: 'default', creationTimestamp: null });
  assert.deepEqual(ok.json?.['status'], { allowed: false });
  const other = await api.request('POST', LOCAL, {
    body: body({
      user: 'paul',
      resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'kube-system' },
    }),
  });
  assert.equal(other.status, 422);
  assert.equal(
    other.json?.['message'],
    `LocalSubjectAccessReview.authorization.${D} "" is invalid: spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace`,
  );
  const nonResource = await api.request('POST', LOCAL, {
    body: body({ user: 'paul', nonResourceAttributes: { path: '/healthz', verb: 'get' } }),
  });
  assert.equal(nonResource.status, 422);
  assert.match(
    String(nonResource.json?.['message']),
    /spec\.nonResourceAttributes: Invalid value: .*: disallowed on this kind of request$/,
  );
  const mismatch = await api.request('POST', LOCAL, {
    body: body(
      { user: 'paul', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
      { namespace: 'kube-system' },
    ),
  });
  assert.equal(mismatch.status, 400);
  assert.equal(
    mismatch.json?.['message'],
    'the namespace of the provided object does not match the namespace sent on the request',
  );
  // The strict decoder knows the kind (the schema table): unknown fields as for any create.
  const unknown = {
    ...body({
      user: 'paul',
      resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' },
    }),
    bogus: 1,
  };
  const strict = await api.request('POST', `${LOCAL}?fieldValidation=Strict`, { body: unknown });
  assert.equal(strict.status, 400);
  assert.equal(
    strict.json?.['message'],
    'LocalSubjectAccessReview in version "v1" cannot be handled as a LocalSubjectAccessReview: strict decoding error: unknown field "bogus"',
  );
  const warned = await api.request('POST', LOCAL, { body: unknown });
  assert.equal(warned.status, 201, warned.text);
  assert.equal(warned.headers['warning'], '299 - "unknown field \\"bogus\\""');
  const typed = await api.request('POST', LOCAL, { body: body({ user: 7 }) });
  assert.equal(typed.status, 400);
  assert.match(
    String(typed.json?.['message']),
    /^LocalSubjectAccessReview in version "v1" cannot be handled as a LocalSubjectAccessReview: /,
  );
  // a node may ask (the static node rules), a plain user may not (admin and edit have it, view does not)
  assert.equal(
    (
      await api.request('POST', LOCAL, {
        token: 'tok-node-a',
        body: body({
          user: 'paul',
          resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' },
        }),
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await api.request('POST', LOCAL, {
        token: 'tok-paul',
        body: body({
          user: 'paul',
          resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' },
        }),
      })
    ).status,
    403,
  );
});

test("SelfSubjectRulesReview under Node,RBAC: a node's list is incomplete (the reference's Node authorizer cannot list it), a plain user's is complete", async () => {
  const rules = async (token: string): Promise<Obj> =>
    ((
      await api.request('POST', `/apis/authorization.${D}/v1/selfsubjectrulesreviews`, {
        token,
        body: {
          apiVersion: `authorization.${D}/v1`,
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: 'default' },
        },
      })
    ).json?.['status'] ?? {}) as Obj;
  const node = await rules('tok-node-a');
  assert.equal(node['incomplete'], true);
  assert.equal(node['evaluationError'], 'node authorizer does not support user rule resolution');
  const paul = await rules('tok-paul');
  assert.equal(paul['incomplete'], false);
  assert.equal(paul['evaluationError'], undefined);
});
