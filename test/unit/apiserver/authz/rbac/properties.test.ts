// Fuzzing the RBAC surfaces with fast-check: any JSON as a role or binding body is validated
// without throwing (field errors, never a crash); rule matching and the escalation comparison
// accept any rules (a valid rule covers itself); impersonation headers never crash the filter (400, 403 or a user).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { impersonatedUser } from '../../../../../src/apiserver/authn/impersonation.js';
import { alwaysAllow, alwaysDeny } from '../../../../../src/apiserver/authz/modes.js';
import {
  ruleAllows,
  rulesOf,
  uncoveredRules,
} from '../../../../../src/apiserver/authz/rbac/rules.js';
import {
  validateBinding,
  validateRole,
} from '../../../../../src/apiserver/authz/rbac/validation.js';
import { StatusError } from '../../../../../src/apiserver/status.js';
import { fuzzParams } from '../../../../helpers/fuzz-runs.js';

const G = 'rbac.authorization.k8s.io';
const word = fc.constantFrom(
  '',
  '*',
  'get',
  'pods',
  'pods/status',
  '*/status',
  '/api',
  '/api/*',
  'x',
  'rbac.authorization.k8s.io',
);
const ruleArb = fc.record(
  {
    verbs: fc.array(word),
    apiGroups: fc.array(word),
    resources: fc.array(word),
    resourceNames: fc.array(word),
    nonResourceURLs: fc.array(word),
  },
  { requiredKeys: [] },
);

test('role and binding validation: any JSON gives field errors, never an exception', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (rules, subjects) => {
      const role = { metadata: { name: 'r', namespace: 'ns' }, rules };
      const binding = { metadata: { name: 'b', namespace: 'ns' }, roleRef: rules, subjects };
      assert.ok(Array.isArray(validateRole(role, true)));
      assert.ok(Array.isArray(validateRole(role, false)));
      assert.ok(Array.isArray(validateBinding(binding, true, G)));
    }),
    fuzzParams(300),
  );
});

test('rule matching and the escalation comparison take any rules; a valid rule covers itself', () => {
  fc.assert(
    fc.property(
      fc.array(ruleArb, { maxLength: 4 }),
      fc.array(ruleArb, { maxLength: 4 }),
      word,
      word,
      (owner, wanted, verb, resource) => {
        const o = rulesOf(owner);
        const w = rulesOf(wanted);
        for (const r of o)
          ruleAllows(
            {
              verb,
              isResourceRequest: true,
              path: '',
              apiGroup: '',
              resource,
              subresource: '',
              name: '',
            },
            r,
          );
        uncoveredRules(o, w);
        // (A URL rule with resourceNames, which validation refuses, does not cover itself in the reference either.)
        const valid = w.filter(
          (r) => r.nonResourceURLs.length === 0 || r.resourceNames.length === 0,
        );
        assert.deepEqual(uncoveredRules(valid, valid), []);
      },
    ),
    fuzzParams(300),
  );
});

test('impersonation: any headers give a user, a 400 or a 403, never another error', async () => {
  const name = fc.constantFrom(
    'impersonate-user',
    'impersonate-group',
    'impersonate-uid',
    'impersonate-extra-a%2Fb',
    'impersonate-extra-%zz',
    'impersonate-extra-',
    'other',
  );
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(name, fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 })),
      fc.boolean(),
      async (headers, allow) => {
        const req = { headersDistinct: headers } as unknown as IncomingMessage;
        try {
          const u = await impersonatedUser(
            req,
            { username: 'admin', groups: [] },
            allow ? alwaysAllow : alwaysDeny,
            'authentication.k8s.io',
          );
          assert.equal(typeof u.username, 'string');
        } catch (err) {
          assert.ok(err instanceof StatusError, String(err));
          assert.ok(err.status === 400 || err.status === 403, String(err.status));
        }
      },
    ),
    fuzzParams(300),
  );
});
