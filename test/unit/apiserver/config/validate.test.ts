// Every rule of the API server configuration types, broken once, with the message it gives.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { validateConfigFiles } from '../../../../src/apiserver/config/load.js';
import { AES32, admission, authn, authz, encryption, setAt, tempDir, tracing } from './fixtures.js';

const tmp = tempDir();
after(() => tmp.cleanup());

type Doc = Record<string, unknown>;
interface Case {
  readonly name: string;
  readonly doc: () => Doc;
  readonly edit: (d: Doc) => void;
  readonly expect: string;
  readonly anonymousAuthFlagSet?: boolean;
}

const set = (path: string, value: unknown) => (d: Doc) => void setAt(d, path, value);
const jwt0 = 'jwt.0';
const wh = 'authorizers.0.webhook';
const other = (extra: Doc) => ({
  issuer: { url: 'https://other.example.com', audiences: ['x'] },
  claimMappings: { username: { claim: 'sub', prefix: '' } },
  ...extra,
});

const cases: Case[] = [
  // common
  {
    name: 'wrong apiVersion',
    doc: tracing,
    edit: set('apiVersion', 'apiserver.config.k8s.io/v1'),
    expect:
      'apiVersion: Unsupported value: "apiserver.config.k8s.io/v1": supported values: "apiserver.config.platform.io/v1"',
  },
  {
    name: 'missing kind',
    doc: tracing,
    edit: set('kind', undefined),
    expect: 'kind: Required value',
  },
  {
    name: 'unknown kind',
    doc: tracing,
    edit: set('kind', 'Nope'),
    expect: 'kind: Unsupported value: "Nope"',
  },
  {
    name: 'unknown field',
    doc: tracing,
    edit: set('endpont', 'x:1'),
    expect: 'endpont: unknown field "endpont"',
  },
  // authentication
  {
    name: 'issuer url required',
    doc: authn,
    edit: set(`${jwt0}.issuer.url`, undefined),
    expect: 'jwt[0].issuer.url: Required value',
  },
  {
    name: 'issuer url https',
    doc: authn,
    edit: set(`${jwt0}.issuer.url`, 'http://issuer.example.com'),
    expect: 'jwt[0].issuer.url: Invalid value: "http://issuer.example.com": must use https scheme',
  },
  {
    name: 'issuer url no query',
    doc: authn,
    edit: set(`${jwt0}.issuer.url`, 'https://a.example.com/?x=1'),
    expect:
      'jwt[0].issuer.url: Invalid value: "https://a.example.com/?x=1": must not contain a query',
  },
  {
    name: 'discoveryURL differs from url',
    doc: authn,
    edit: set(`${jwt0}.issuer.discoveryURL`, 'https://issuer.example.com'),
    expect:
      'jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example.com": discoveryURL must be different from URL',
  },
  {
    name: 'issuer urls unique',
    doc: authn,
    edit: (d) =>
      (d.jwt as Doc[]).push(
        other({ issuer: { url: 'https://issuer.example.com', audiences: ['x'] } }),
      ),
    expect: 'jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"',
  },
  {
    name: 'discovery urls unique',
    doc: authn,
    edit: (d) => {
      setAt(
        d,
        `${jwt0}.issuer.discoveryURL`,
        'https://disc.example.com/.well-known/openid-configuration',
      );
      (d.jwt as Doc[]).push(
        other({
          issuer: {
            url: 'https://o.example.com',
            discoveryURL: 'https://disc.example.com/.well-known/openid-configuration',
            audiences: ['x'],
          },
        }),
      );
    },
    expect:
      'jwt[1].issuer.discoveryURL: Duplicate value: "https://disc.example.com/.well-known/openid-configuration"',
  },
  {
    name: 'certificateAuthority must parse',
    doc: authn,
    edit: set(`${jwt0}.issuer.certificateAuthority`, 'not a pem'),
    expect:
      'jwt[0].issuer.certificateAuthority: Invalid value: must contain PEM-encoded CERTIFICATE blocks',
  },
  {
    name: 'audiences non-empty',
    doc: authn,
    edit: set(`${jwt0}.issuer.audiences`, []),
    expect: 'jwt[0].issuer.audiences: Required value',
  },
  {
    name: 'audiences unique',
    doc: authn,
    edit: (d) => {
      setAt(d, `${jwt0}.issuer.audiences`, ['a', 'a']);
      setAt(d, `${jwt0}.issuer.audienceMatchPolicy`, 'MatchAny');
    },
    expect: 'jwt[0].issuer.audiences[1]: Duplicate value: "a"',
  },
  {
    name: 'MatchAny required for several audiences',
    doc: authn,
    edit: set(`${jwt0}.issuer.audiences`, ['a', 'b']),
    expect:
      'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
  },
  {
    name: 'single audience policy empty or MatchAny',
    doc: authn,
    edit: set(`${jwt0}.issuer.audienceMatchPolicy`, 'MatchAll'),
    expect:
      'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience',
  },
  {
    name: 'egressSelectorType values',
    doc: authn,
    edit: set(`${jwt0}.issuer.egressSelectorType`, 'etcd'),
    expect:
      'jwt[0].issuer.egressSelectorType: Unsupported value: "etcd": supported values: "controlplane", "cluster"',
  },
  {
    name: 'claim rule: claim and expression exclusive',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules.0.expression`, 'true'),
    expect:
      'jwt[0].claimValidationRules[0]: Invalid value: claim and expression are mutually exclusive',
  },
  {
    name: 'claim rule: message only with expression',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules.0.message`, 'm'),
    expect:
      'jwt[0].claimValidationRules[0].message: Invalid value: message can only be set when expression is set',
  },
  {
    name: 'claim rule: requiredValue only with claim',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules`, [{ expression: 'true', requiredValue: 'x' }]),
    expect:
      'jwt[0].claimValidationRules[0].requiredValue: Invalid value: requiredValue can only be set when claim is set',
  },
  {
    name: 'claim rule: one of claim or expression',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules`, [{}]),
    expect: 'jwt[0].claimValidationRules[0].claim: Required value',
  },
  {
    name: 'claim rule: duplicate claim',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules`, [
      { claim: 'hd' },
      { claim: 'hd', requiredValue: 'x' },
    ]),
    expect: 'jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"',
  },
  {
    name: 'claim rule: expression must be bool',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules`, [{ expression: '"yes"' }]),
    expect:
      'jwt[0].claimValidationRules[0].expression: Invalid value: must evaluate to bool, got string',
  },
  {
    name: 'claim rule: expression must compile',
    doc: authn,
    edit: set(`${jwt0}.claimValidationRules`, [{ expression: 'claims.a ==' }]),
    expect: 'jwt[0].claimValidationRules[0].expression: Invalid value: compilation failed',
  },
  {
    name: 'username required',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, undefined),
    expect: 'jwt[0].claimMappings.username: Required value',
  },
  {
    name: 'username claim or expression',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, {}),
    expect: 'jwt[0].claimMappings.username.claim: Required value',
  },
  {
    name: 'username prefix required with claim',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, { claim: 'sub' }),
    expect: 'jwt[0].claimMappings.username.prefix: Required value',
  },
  {
    name: 'username claim and expression exclusive',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, {
      claim: 'sub',
      prefix: '',
      expression: 'claims.sub',
    }),
    expect:
      'jwt[0].claimMappings.username: Invalid value: claim and expression are mutually exclusive',
  },
  {
    name: 'username prefix not with expression',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, { prefix: 'x:', expression: 'claims.sub' }),
    expect:
      'jwt[0].claimMappings.username.prefix: Invalid value: prefix can only be set when claim is set',
  },
  {
    name: 'username expression must be string',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, { expression: '1 + 2' }),
    expect:
      'jwt[0].claimMappings.username.expression: Invalid value: must evaluate to string, got int',
  },
  {
    name: 'email needs email_verified',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.username`, { expression: 'claims.email' }),
    expect:
      'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
  },
  {
    name: 'groups prefix required with claim',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.groups`, { claim: 'groups' }),
    expect: 'jwt[0].claimMappings.groups.prefix: Required value',
  },
  {
    name: 'groups expression string or list',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.groups`, { expression: 'true' }),
    expect:
      'jwt[0].claimMappings.groups.expression: Invalid value: must evaluate to string or list of strings, got bool',
  },
  {
    name: 'uid claim and expression exclusive',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.uid`, { claim: 'sub', expression: 'claims.sub' }),
    expect: 'jwt[0].claimMappings.uid: Invalid value: claim and expression are mutually exclusive',
  },
  {
    name: 'uid one of claim or expression',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.uid`, {}),
    expect: 'jwt[0].claimMappings.uid.claim: Required value',
  },
  {
    name: 'uid expression string',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.uid`, { expression: '[1]' }),
    expect:
      'jwt[0].claimMappings.uid.expression: Invalid value: must evaluate to string, got list<int>',
  },
  {
    name: 'extra key domain-prefixed',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.extra.0.key`, 'tenant'),
    expect:
      'jwt[0].claimMappings.extra[0].key: Invalid value: "tenant": must be a domain-prefixed path',
  },
  {
    name: 'extra key lowercase',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.extra.0.key`, 'example.com/Tenant'),
    expect:
      'jwt[0].claimMappings.extra[0].key: Invalid value: "example.com/Tenant": key must be lowercase',
  },
  {
    name: 'extra key domain valid',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.extra.0.key`, 'exa_mple.com/t'),
    expect: 'the part before "/" must be a DNS-1123 subdomain',
  },
  {
    name: 'extra key unique',
    doc: authn,
    edit: (d) =>
      setAt(d, `${jwt0}.claimMappings.extra`, [
        { key: 'a.io/x', valueExpression: '"1"' },
        { key: 'a.io/x', valueExpression: '"2"' },
      ]),
    expect: 'jwt[0].claimMappings.extra[1].key: Duplicate value: "a.io/x"',
  },
  {
    name: 'extra valueExpression required',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.extra.0.valueExpression`, ''),
    expect: 'jwt[0].claimMappings.extra[0].valueExpression: Required value',
  },
  {
    name: 'extra valueExpression type',
    doc: authn,
    edit: set(`${jwt0}.claimMappings.extra.0.valueExpression`, '1'),
    expect:
      'jwt[0].claimMappings.extra[0].valueExpression: Invalid value: must evaluate to string or list of strings, got int',
  },
  {
    name: 'user rule expression bool',
    doc: authn,
    edit: set(`${jwt0}.userValidationRules.0.expression`, "user.username + 'x'"),
    expect:
      'jwt[0].userValidationRules[0].expression: Invalid value: must evaluate to bool, got string',
  },
  {
    name: 'user rule expression required',
    doc: authn,
    edit: set(`${jwt0}.userValidationRules.0.expression`, ''),
    expect: 'jwt[0].userValidationRules[0].expression: Required value',
  },
  {
    name: 'anonymous vs --anonymous-auth',
    doc: authn,
    edit: () => undefined,
    anonymousAuthFlagSet: true,
    expect:
      'anonymous: Forbidden: anonymous is not allowed to be configured if --anonymous-auth flag is set',
  },
  {
    name: 'anonymous enabled required',
    doc: authn,
    edit: set('anonymous.enabled', undefined),
    expect: 'anonymous.enabled: Required value',
  },
  {
    name: 'anonymous conditions need enabled',
    doc: authn,
    edit: set('anonymous.enabled', false),
    expect:
      'anonymous.conditions: Invalid value: enabled should be set to true when conditions are defined',
  },
  {
    name: 'anonymous condition path required',
    doc: authn,
    edit: set('anonymous.conditions', [{}]),
    expect: 'anonymous.conditions[0].path: Required value',
  },
  {
    name: 'anonymous condition path unique',
    doc: authn,
    edit: set('anonymous.conditions', [{ path: '/a' }, { path: '/a' }]),
    expect: 'anonymous.conditions[1].path: Duplicate value: "/a"',
  },
  // authorization
  {
    name: 'authorizers at least one',
    doc: authz,
    edit: set('authorizers', []),
    expect: 'authorizers: Required value',
  },
  {
    name: 'authorizer type values',
    doc: authz,
    edit: set('authorizers.1.type', 'ABAC'),
    expect:
      'authorizers[1].type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
  },
  {
    name: 'authorizer name required',
    doc: authz,
    edit: set('authorizers.1.name', undefined),
    expect: 'authorizers[1].name: Required value',
  },
  {
    name: 'authorizer name DNS',
    doc: authz,
    edit: set('authorizers.1.name', 'Bad_Name'),
    expect:
      'authorizers[1].name: Invalid value: "Bad_Name": must be a valid DNS 1123 label or subdomain',
  },
  {
    name: 'authorizer names unique',
    doc: authz,
    edit: set('authorizers.1.name', 'sar-webhook'),
    expect: 'authorizers[1].name: Duplicate value: "sar-webhook"',
  },
  {
    name: 'webhook required for Webhook',
    doc: authz,
    edit: set(wh, undefined),
    expect: 'authorizers[0].webhook: Required value',
  },
  {
    name: 'webhook only for Webhook',
    doc: authz,
    edit: (d) => setAt(d, 'authorizers.1.webhook', (authz().authorizers as Doc[])[0]?.webhook),
    expect:
      'authorizers[1].webhook: Invalid value: non-null webhook config is only allowed when type is Webhook',
  },
  {
    name: 'timeout required',
    doc: authz,
    edit: set(`${wh}.timeout`, undefined),
    expect: 'authorizers[0].webhook.timeout: Required value',
  },
  {
    name: 'timeout at most 30s',
    doc: authz,
    edit: set(`${wh}.timeout`, '31s'),
    expect: 'authorizers[0].webhook.timeout: Invalid value: "31s": must not be greater than 30s',
  },
  {
    name: 'timeout positive',
    doc: authz,
    edit: set(`${wh}.timeout`, '0s'),
    expect: 'authorizers[0].webhook.timeout: Invalid value: "0s": must be greater than zero',
  },
  {
    name: 'authorizedTTL duration',
    doc: authz,
    edit: set(`${wh}.authorizedTTL`, '5 minutes'),
    expect: 'authorizers[0].webhook.authorizedTTL: Invalid value: "5 minutes": must be a duration',
  },
  {
    name: 'unauthorizedTTL positive when cached',
    doc: authz,
    edit: set(`${wh}.unauthorizedTTL`, '0s'),
    expect:
      'authorizers[0].webhook.unauthorizedTTL: Invalid value: "0s": must be greater than zero',
  },
  {
    name: 'subjectAccessReviewVersion values',
    doc: authz,
    edit: set(`${wh}.subjectAccessReviewVersion`, 'v2'),
    expect:
      'authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
  },
  {
    name: 'subjectAccessReviewVersion required',
    doc: authz,
    edit: set(`${wh}.subjectAccessReviewVersion`, undefined),
    expect: 'authorizers[0].webhook.subjectAccessReviewVersion: Required value',
  },
  {
    name: 'matchConditionSubjectAccessReviewVersion values',
    doc: authz,
    edit: set(`${wh}.matchConditionSubjectAccessReviewVersion`, 'v1beta1'),
    expect:
      'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"',
  },
  {
    name: 'failurePolicy values',
    doc: authz,
    edit: set(`${wh}.failurePolicy`, 'Allow'),
    expect:
      'authorizers[0].webhook.failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"',
  },
  {
    name: 'failurePolicy required',
    doc: authz,
    edit: set(`${wh}.failurePolicy`, undefined),
    expect: 'authorizers[0].webhook.failurePolicy: Required value',
  },
  {
    name: 'InClusterConfig not allowed',
    doc: authz,
    edit: set(`${wh}.connectionInfo`, { type: 'InClusterConfig' }),
    expect:
      'authorizers[0].webhook.connectionInfo.type: Invalid value: "InClusterConfig": InClusterConfig is not allowed for the API server itself',
  },
  {
    name: 'kubeConfigFile required',
    doc: authz,
    edit: set(`${wh}.connectionInfo`, { type: 'KubeConfigFile' }),
    expect: 'authorizers[0].webhook.connectionInfo.kubeConfigFile: Required value',
  },
  {
    name: 'kubeConfigFile absolute',
    doc: authz,
    edit: set(`${wh}.connectionInfo.kubeConfigFile`, 'rel/x'),
    expect:
      'authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "rel/x": must be an absolute path',
  },
  {
    name: 'connectionInfo type values',
    doc: authz,
    edit: set(`${wh}.connectionInfo.type`, 'URL'),
    expect:
      'authorizers[0].webhook.connectionInfo.type: Unsupported value: "URL": supported values: "KubeConfigFile", "InClusterConfig"',
  },
  {
    name: 'at most 64 match conditions',
    doc: authz,
    edit: set(
      `${wh}.matchConditions`,
      Array.from({ length: 65 }, (_, i) => ({ expression: `request.user == 'u${i}'` })),
    ),
    expect: 'authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items',
  },
  {
    name: 'match condition must be bool',
    doc: authz,
    edit: set(`${wh}.matchConditions`, [{ expression: "'x'" }]),
    expect:
      'authorizers[0].webhook.matchConditions[0].expression: Invalid value: must evaluate to bool, got string',
  },
  {
    name: 'match condition must compile',
    doc: authz,
    edit: set(`${wh}.matchConditions`, [{ expression: 'request.user ==' }]),
    expect:
      'authorizers[0].webhook.matchConditions[0].expression: Invalid value: compilation failed',
  },
  {
    name: 'match condition duplicate',
    doc: authz,
    edit: set(`${wh}.matchConditions`, [{ expression: 'true' }, { expression: 'true' }]),
    expect: 'authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "true"',
  },
  // encryption
  {
    name: 'resources required',
    doc: encryption,
    edit: set('resources', []),
    expect: 'resources: Required value',
  },
  {
    name: 'resource names required',
    doc: encryption,
    edit: set('resources.0.resources', []),
    expect: 'resources[0].resources: Required value',
  },
  {
    name: 'resource name format',
    doc: encryption,
    edit: set('resources.0.resources', ['Secrets']),
    expect:
      'resources[0].resources[0]: Invalid value: "Secrets": must be "*.*", "*.", "*.<group>", "<resource>" or "<resource>.<group>" in lower case',
  },
  {
    name: 'bare * not allowed',
    doc: encryption,
    edit: set('resources.0.resources', ['*']),
    expect:
      'resources[0].resources[0]: Invalid value: "*": use "*." for all resources in the core group',
  },
  {
    name: 'duplicate resource',
    doc: encryption,
    edit: set('resources.0.resources', ['events', 'events']),
    expect: 'resources[0].resources[1]: Duplicate value: "events"',
  },
  {
    name: 'wildcard overlap in one list',
    doc: encryption,
    edit: set('resources.0.resources', ['*.*', 'events']),
    expect:
      'resources[0].resources[1]: Invalid value: "events": resource overlaps with "*.*" in the same resource list',
  },
  {
    name: 'group wildcard overlap in one list',
    doc: encryption,
    edit: set('resources.0.resources', [
      'certificatesigningrequests.certificates.platform.io',
      '*.certificates.platform.io',
    ]),
    expect:
      'resources[0].resources[1]: Invalid value: "*.certificates.platform.io": resource overlaps with',
  },
  {
    name: 'masked by earlier wildcard',
    doc: encryption,
    edit: (d) => (d.resources as Doc[]).reverse(),
    expect:
      'resources[1].resources[1]: Invalid value: "events": resource is masked by earlier rule "*.*"',
  },
  {
    name: 'core wildcard masks core resource',
    doc: encryption,
    edit: set('resources.1.resources', ['*.', 'nodes']),
    expect: 'resources[1].resources[1]: Invalid value: "nodes": resource overlaps with "*."',
  },
  {
    name: 'providers required',
    doc: encryption,
    edit: set('resources.0.providers', []),
    expect: 'resources[0].providers: Required value',
  },
  {
    name: 'exactly one provider member (two)',
    doc: encryption,
    edit: set('resources.0.providers.1', {
      identity: {},
      aescbc: { keys: [{ name: 'k', secret: AES32 }] },
    }),
    expect:
      'resources[0].providers[1]: Invalid value: exactly one provider must be configured (one of aesgcm, aescbc, secretbox, identity, kms), found aescbc, identity',
  },
  {
    name: 'exactly one provider member (none)',
    doc: encryption,
    edit: set('resources.0.providers.1', {}),
    expect:
      'resources[0].providers[1]: Invalid value: exactly one provider must be configured (one of aesgcm, aescbc, secretbox, identity, kms), found none',
  },
  {
    name: 'keys required',
    doc: encryption,
    edit: set('resources.0.providers.0.aesgcm.keys', []),
    expect: 'resources[0].providers[0].aesgcm.keys: Required value',
  },
  {
    name: 'key name required',
    doc: encryption,
    edit: set('resources.0.providers.0.aesgcm.keys.0.name', ''),
    expect: 'resources[0].providers[0].aesgcm.keys[0].name: Required value',
  },
  {
    name: 'key names unique',
    doc: encryption,
    edit: set('resources.0.providers.0.aesgcm.keys', [
      { name: 'k', secret: AES32 },
      { name: 'k', secret: AES32 },
    ]),
    expect: 'resources[0].providers[0].aesgcm.keys[1].name: Duplicate value: "k"',
  },
  {
    name: 'secret must be base64',
    doc: encryption,
    edit: set('resources.0.providers.0.aesgcm.keys.0.secret', 'not*base64!'),
    expect:
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: REDACTED: secret is not a valid base64 string',
  },
  {
    name: 'aesgcm key length',
    doc: encryption,
    edit: set('resources.0.providers.0.aesgcm.keys.0.secret', Buffer.alloc(20).toString('base64')),
    expect:
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: REDACTED: secret is not of the expected length, got 20, expected one of 16, 24, 32 bytes',
  },
  {
    name: 'aescbc key length',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      aescbc: { keys: [{ name: 'k', secret: Buffer.alloc(16).toString('base64') }] },
    }),
    expect:
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: REDACTED: secret is not of the expected length, got 16, expected one of 32 bytes',
  },
  {
    name: 'secretbox key length',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      secretbox: { keys: [{ name: 'k', secret: Buffer.alloc(24).toString('base64') }] },
    }),
    expect:
      'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: REDACTED: secret is not of the expected length, got 24, expected one of 32 bytes',
  },
  {
    name: 'kms name required',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      kms: { apiVersion: 'v2', name: '', endpoint: 'unix:///tmp/k.sock' },
    }),
    expect: 'resources[0].providers[0].kms.name: Required value',
  },
  {
    name: 'kms endpoint unix',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      kms: { apiVersion: 'v2', name: 'k', endpoint: 'tcp://1.2.3.4:5' },
    }),
    expect:
      'resources[0].providers[0].kms.endpoint: Invalid value: "tcp://1.2.3.4:5": unsupported scheme for KMS provider endpoint',
  },
  {
    name: 'kms apiVersion values',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      kms: { apiVersion: 'v3', name: 'k', endpoint: 'unix:///tmp/k.sock' },
    }),
    expect:
      'resources[0].providers[0].kms.apiVersion: Unsupported value: "v3": supported values: "v1", "v2"',
  },
  {
    name: 'kms cachesize only for v1',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      kms: { apiVersion: 'v2', name: 'k', endpoint: 'unix:///tmp/k.sock', cachesize: 10 },
    }),
    expect:
      'resources[0].providers[0].kms.cachesize: Invalid value: "10": cachesize is not supported in v2',
  },
  {
    name: 'kms timeout positive',
    doc: encryption,
    edit: set('resources.0.providers.0', {
      kms: { apiVersion: 'v2', name: 'k', endpoint: 'unix:///tmp/k.sock', timeout: '-1s' },
    }),
    expect:
      'resources[0].providers[0].kms.timeout: Invalid value: "-1s": must be greater than zero',
  },
  {
    name: 'kms names unique',
    doc: encryption,
    edit: (d) => {
      setAt(d, 'resources.0.providers.0', {
        kms: { apiVersion: 'v2', name: 'k', endpoint: 'unix:///tmp/k.sock' },
      });
      setAt(d, 'resources.1.providers.0', {
        kms: { apiVersion: 'v2', name: 'k', endpoint: 'unix:///tmp/k2.sock' },
      });
    },
    expect: 'resources[1].providers[0].kms.name: Duplicate value: "k"',
  },
  // tracing
  {
    name: 'sampling rate above range',
    doc: tracing,
    edit: set('samplingRatePerMillion', 1_000_001),
    expect:
      'samplingRatePerMillion: Invalid value: "1000001": must be between 0 and 1000000, inclusive',
  },
  {
    name: 'sampling rate negative',
    doc: tracing,
    edit: set('samplingRatePerMillion', -1),
    expect: 'samplingRatePerMillion: Invalid value: "-1": must be between 0 and 1000000, inclusive',
  },
  {
    name: 'sampling rate integer',
    doc: tracing,
    edit: set('samplingRatePerMillion', 1.5),
    expect: 'samplingRatePerMillion: Invalid value: expected an integer, got number',
  },
  {
    name: 'endpoint host:port',
    doc: tracing,
    edit: set('endpoint', 'not an endpoint'),
    expect: 'endpoint: Invalid value: "not an endpoint": must be host:port',
  },
  // admission
  {
    name: 'plugin name required',
    doc: admission,
    edit: set('plugins.0.name', undefined),
    expect: 'plugins[0].name: Required value',
  },
  {
    name: 'plugin name registered',
    doc: admission,
    edit: set('plugins.0.name', 'AlwaysPullImages'),
    expect:
      'plugins[0].name: Unsupported value: "AlwaysPullImages": supported values: "ServiceAccount", "NodeRestriction", "DefaultTolerationSeconds", "CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction", "EventRateLimit"',
  },
  {
    name: 'plugin names unique',
    doc: admission,
    edit: (d) => (d.plugins as Doc[]).push({ name: 'EventRateLimit', path: 'x.yaml' }),
    expect: 'plugins[1].name: Duplicate value: "EventRateLimit"',
  },
  {
    name: 'EventRateLimit needs configuration',
    doc: admission,
    edit: set('plugins.0.configuration', undefined),
    expect: 'plugins[0].configuration: Required value',
  },
  {
    name: 'EventRateLimit path must exist',
    doc: admission,
    edit: (d) => {
      setAt(d, 'plugins.0.configuration', undefined);
      setAt(d, 'plugins.0.path', 'missing.yaml');
    },
    expect: 'plugins[0].path: Invalid value: "missing.yaml": file does not exist',
  },
  {
    name: 'EventRateLimit apiVersion',
    doc: admission,
    edit: set('plugins.0.configuration.apiVersion', 'v1'),
    expect:
      'plugins[0].configuration.apiVersion: Unsupported value: "v1": supported values: "eventratelimit.admission.platform.io/v1alpha1"',
  },
  {
    name: 'EventRateLimit limit type',
    doc: admission,
    edit: set('plugins.0.configuration.limits.0.type', 'Pod'),
    expect:
      'plugins[0].configuration.limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject"',
  },
  {
    name: 'EventRateLimit qps positive',
    doc: admission,
    edit: set('plugins.0.configuration.limits.0.qps', 0),
    expect: 'plugins[0].configuration.limits[0].qps: Invalid value: "0": must be positive',
  },
  {
    name: 'EventRateLimit burst positive',
    doc: admission,
    edit: set('plugins.0.configuration.limits.0.burst', -1),
    expect: 'plugins[0].configuration.limits[0].burst: Invalid value: "-1": must be positive',
  },
  {
    name: 'EventRateLimit cacheSize non-negative',
    doc: admission,
    edit: set('plugins.0.configuration.limits.0.cacheSize', -5),
    expect:
      'plugins[0].configuration.limits[0].cacheSize: Invalid value: "-5": must not be negative',
  },
  {
    name: 'EventRateLimit limits required',
    doc: admission,
    edit: set('plugins.0.configuration.limits', []),
    expect: 'plugins[0].configuration.limits: Required value',
  },
];

describe('apiserver configuration validation: every rule', () => {
  test('the valid fixtures validate', () => {
    const files = [authn(), authz(), encryption(), tracing(), admission()].map((d, i) =>
      tmp.write(`ok${i}.yaml`, d),
    );
    const r = validateConfigFiles(files, {});
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.kinds, [
      'AuthenticationConfiguration',
      'AuthorizationConfiguration',
      'EncryptionConfiguration',
      'TracingConfiguration',
      'AdmissionConfiguration',
    ]);
  });
  for (const c of cases) {
    test(c.name, () => {
      const d = c.doc();
      c.edit(d);
      const file = tmp.write('bad.yaml', d);
      const r = validateConfigFiles([file], {
        anonymousAuthFlagSet: c.anonymousAuthFlagSet ?? false,
      });
      assert.equal(r.ok, false, `expected an error for ${c.name}`);
      const hit = r.errors.find((e) => e.startsWith(`${file}: `) && e.includes(c.expect));
      assert.ok(
        hit,
        `expected an error containing\n  ${c.expect}\ngot\n  ${r.errors.join('\n  ')}`,
      );
    });
  }
});
