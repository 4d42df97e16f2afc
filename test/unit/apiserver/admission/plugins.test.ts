// Admission plugins: EventRateLimit buckets and message, the certificate plugins' checks.
import { namesFor } from '../../../../src/common/names.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { buildAdmissionPlugins } from '../../../../src/apiserver/admission/plugins.js';
import { EventRateLimit } from '../../../../src/apiserver/admission/event-rate-limit.js';
import {
  CertificateApproval,
  CertificateSigning,
  CertificateSubjectRestriction,
} from '../../../../src/apiserver/admission/certificates.js';
import type {
  AdmissionRequest,
  Authorizer,
  RequestAttributes,
} from '../../../../src/apiserver/interfaces.js';
import { ApiError, ConfigError } from '../../../../src/common/util/errors.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const event = (
  over: Partial<AdmissionRequest> = {},
  obj: Record<string, unknown> = {},
): AdmissionRequest => ({
  operation: 'CREATE',
  resource: 'events',
  apiGroup: '',
  subresource: '',
  namespace: 'ns1',
  name: 'e',
  object: {
    source: { component: 'agent', host: 'node-a' },
    involvedObject: { kind: 'Pod', namespace: 'ns1', name: 'p', uid: 'u', apiVersion: 'v1' },
    ...obj,
  },
  oldObject: undefined,
  user: { username: 'alice', groups: [] },
  dryRun: false,
  ...over,
});

async function rejection(p: Promise<void>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('expected a rejection');
}

describe('EventRateLimit', () => {
  test('a burst is throttled with 429 and the reference message, then refills at qps', async () => {
    const clock = new ManualClock();
    const p = new EventRateLimit({
      config: {
        apiVersion: 'x',
        kind: 'Configuration',
        limits: [{ type: 'Namespace', qps: 2, burst: 3 }],
      },
      clock,
    });
    for (let i = 0; i < 3; i++) await p.admit(event());
    const err = await rejection(p.admit(event()));
    assert.equal(err.status, 429);
    assert.equal(err.reason, 'TooManyRequests');
    assert.equal(err.message, 'Too many requests: limit reached on type Namespace for key ns1');
    await p.admit(event({ namespace: 'ns2' }));
    clock.advance(500);
    await p.admit(event());
    await assert.rejects(p.admit(event()), /limit reached on type Namespace for key ns1/);
  });

  test('Server, User and SourceAndObject keys; several limits report together', async () => {
    const clock = new ManualClock();
    const p = new EventRateLimit({
      config: {
        apiVersion: 'x',
        kind: 'Configuration',
        limits: [
          { type: 'Server', qps: 1, burst: 1 },
          { type: 'User', qps: 1, burst: 1 },
        ],
      },
      clock,
    });
    await p.admit(event());
    const err = await rejection(p.admit(event()));
    assert.equal(
      err.message,
      'Too many requests: [limit reached on type Server for key , limit reached on type User for key alice]',
    );
    const s = new EventRateLimit({
      config: {
        apiVersion: 'x',
        kind: 'Configuration',
        limits: [{ type: 'SourceAndObject', qps: 1, burst: 1 }],
      },
      clock,
    });
    await s.admit(event());
    await assert.rejects(
      s.admit(event()),
      /limit reached on type SourceAndObject for key agentnode-aPodns1pu/,
    );
    await s.admit(event({}, { involvedObject: { kind: 'Pod', name: 'other' } }));
  });

  test('cacheSize bounds the buckets (least recently used forgotten), dry runs and other resources pass', async () => {
    const clock = new ManualClock();
    const p = new EventRateLimit({
      config: {
        apiVersion: 'x',
        kind: 'Configuration',
        limits: [{ type: 'Namespace', qps: 1, burst: 1, cacheSize: 1 }],
      },
      clock,
    });
    await p.admit(event({ namespace: 'a' }));
    await p.admit(event({ namespace: 'b' }));
    // a was evicted, so it starts again with a full bucket.
    await p.admit(event({ namespace: 'a' }));
    await p.admit(event({ namespace: 'a', dryRun: true }));
    await p.admit(event({ namespace: 'a', resource: 'pods' }));
  });
});

const DOMAIN = 'platform.io';
const GROUP = `certificates.${DOMAIN}`;

function recordingAuthorizer(
  allow: (a: RequestAttributes) => boolean,
): Authorizer & { seen: RequestAttributes[] } {
  const seen: RequestAttributes[] = [];
  return {
    seen,
    authorize: (a) => (
      seen.push(a),
      Promise.resolve({ decision: allow(a) ? 'allow' : 'no-opinion' })
    ),
  };
}

const csrReq = (
  over: Partial<AdmissionRequest>,
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = {},
): AdmissionRequest => ({
  operation: 'UPDATE',
  resource: 'certificatesigningrequests',
  apiGroup: GROUP,
  subresource: 'approval',
  namespace: '',
  name: 'csr-1',
  object: { spec: { signerName: 'example.com/my-signer', ...spec }, status },
  oldObject: { spec: { signerName: 'example.com/my-signer', ...spec }, status: {} },
  user: { username: 'bob', groups: [] },
  dryRun: false,
  ...over,
});

describe('certificate plugins', () => {
  test('CertificateApproval needs approve on the signer or the domain wildcard', async () => {
    const none = recordingAuthorizer(() => false);
    const err = await rejection(
      new CertificateApproval({ platformDomain: DOMAIN, authorizer: none }).admit(csrReq({})),
    );
    assert.equal(err.status, 403);
    assert.match(
      err.message,
      /user not permitted to approve requests with signerName "example.com\/my-signer"/,
    );
    assert.deepEqual(
      none.seen.map((a) => [a.verb, a.resource, a.name, a.apiGroup]),
      [
        ['approve', 'signers', 'example.com/my-signer', GROUP],
        ['approve', 'signers', 'example.com/*', GROUP],
      ],
    );
    const wildcard = recordingAuthorizer((a) => a.name === 'example.com/*');
    await new CertificateApproval({ platformDomain: DOMAIN, authorizer: wildcard }).admit(
      csrReq({}),
    );
    await new CertificateApproval({ platformDomain: DOMAIN, authorizer: none }).admit(
      csrReq({ subresource: 'status' }),
    );
  });

  test('CertificateSigning needs sign when /status changes the certificate', async () => {
    const none = recordingAuthorizer(() => false);
    const plugin = new CertificateSigning({ platformDomain: DOMAIN, authorizer: none });
    const err = await rejection(
      plugin.admit(csrReq({ subresource: 'status' }, {}, { certificate: 'Q0VSVA==' })),
    );
    assert.match(
      err.message,
      /user not permitted to sign requests with signerName "example.com\/my-signer"/,
    );
    await plugin.admit(csrReq({ subresource: 'status' }, {}, { conditions: [] }));
    const ok = recordingAuthorizer((a) => a.verb === 'sign');
    await new CertificateSigning({ platformDomain: DOMAIN, authorizer: ok }).admit(
      csrReq({ subresource: 'status' }, {}, { certificate: 'Q0VSVA==' }),
    );
  });

  test('CertificateSubjectRestriction refuses system:masters for the API-server client signer', async () => {
    const csrPem = (subj: string): string =>
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          '/dev/null',
          '-subj',
          subj,
        ],
        { encoding: 'utf8' },
      );
    const plugin = new CertificateSubjectRestriction({
      platformDomain: DOMAIN,
      names: namesFor('platform', DOMAIN),
    });
    const create = (subj: string, signer: string): AdmissionRequest =>
      csrReq(
        { operation: 'CREATE', subresource: '', oldObject: undefined },
        { signerName: signer, request: Buffer.from(csrPem(subj)).toString('base64') },
      );
    const err = await rejection(
      plugin.admit(create('/O=system:masters/CN=admin', `${DOMAIN}/plat-apiserver-client`)),
    );
    assert.equal(err.status, 403);
    assert.match(
      err.message,
      /use of platform.io\/plat-apiserver-client signer with system:masters group is not allowed/,
    );
    await plugin.admit(create('/O=devs/CN=alice', `${DOMAIN}/plat-apiserver-client`));
    await plugin.admit(create('/O=system:masters/CN=admin', 'example.com/other'));
    const garbage = csrReq(
      { operation: 'CREATE', subresource: '', oldObject: undefined },
      {
        signerName: `${DOMAIN}/plat-apiserver-client`,
        request: Buffer.from('nope').toString('base64'),
      },
    );
    assert.match(
      (await rejection(plugin.admit(garbage))).message,
      /failed to parse CSR: PEM block type must be CERTIFICATE REQUEST/,
    );
  });

  test('buildAdmissionPlugins: unknown names and EventRateLimit without configuration are config errors', () => {
    const authorizer = recordingAuthorizer(() => true);
    const clock = new ManualClock();
    assert.throws(
      () =>
        buildAdmissionPlugins({
          enabled: ['Nope'],
          config: undefined,
          platformDomain: DOMAIN,
          names: namesFor('platform', DOMAIN),
          authorizer,
          clock,
        }),
      (e: unknown) =>
        e instanceof ConfigError && /unknown admission plugin\(s\) "Nope"/.test(e.message),
    );
    assert.throws(
      () =>
        buildAdmissionPlugins({
          enabled: ['EventRateLimit'],
          config: undefined,
          platformDomain: DOMAIN,
          names: namesFor('platform', DOMAIN),
          authorizer,
          clock,
        }),
      /EventRateLimit needs its configuration/,
    );
    const ps = buildAdmissionPlugins({
      enabled: ['CertificateSubjectRestriction', 'CertificateApproval'],
      config: undefined,
      platformDomain: DOMAIN,
      names: namesFor('platform', DOMAIN),
      authorizer,
      clock,
    });
    assert.deepEqual(
      ps.map((p) => p.name),
      ['CertificateApproval', 'CertificateSubjectRestriction'],
    );
  });
});
