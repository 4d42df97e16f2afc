// Image pull secrets as the reference's MakeDockerKeyring / BasicDockerKeyring read them
// (pkg/credentialprovider/secrets/secrets.go, keyring.go, config.go): the secret types and keys,
// `auth` over username and password, scheme and /v1/ /v2/ stripped, most specific key first,
// index.docker.io for docker.io images, and the reference's error for a bad `auth`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  pullSecretCredentials as withTypes,
  pullSecretTypes,
  type PullSecret,
} from '../../../../../src/agent/runtime/credentials/pull-secrets.js';
import { REFERENCE_NAMES } from '../../../../../src/common/names.js';

// the kubernetes profile's types: kubernetes.io/dockerconfigjson and kubernetes.io/dockercfg
const pullSecretCredentials = (s: PullSecret[], image: string) =>
  withTypes(s, image, pullSecretTypes(REFERENCE_NAMES));

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function secret(name: string, type: string, key: string, doc: unknown): PullSecret {
  return { name, type, data: new Map([[key, Buffer.from(JSON.stringify(doc))]]) };
}

const json = (auths: unknown): PullSecret =>
  secret('j', 'kubernetes.io/dockerconfigjson', '.dockerconfigjson', { auths });

test('dockerconfigjson: auth (base64 user:password) wins over username and password; the key matches the registry', () => {
  const s = json({
    'https://reg.example:5000/v2/': { auth: b64('u:p:with:colons'), username: 'x' },
  });
  assert.deepEqual(pullSecretCredentials([s], 'reg.example:5000/team/app:1'), [
    { username: 'u', password: 'p:with:colons', serveraddress: 'reg.example:5000' },
  ]);
  assert.deepEqual(pullSecretCredentials([s], 'other.example/team/app:1'), []);
  // the port is part of the match
  assert.deepEqual(pullSecretCredentials([s], 'reg.example/team/app:1'), []);
});

test('dockercfg: the entries themselves; a secret of another type or an empty key gives nothing', () => {
  const cfg = secret('c', 'kubernetes.io/dockercfg', '.dockercfg', {
    'reg.example': { username: 'u', password: 'p', email: 'e@x' },
  });
  assert.deepEqual(pullSecretCredentials([cfg], 'reg.example/app'), [
    { username: 'u', password: 'p', serveraddress: 'reg.example' },
  ]);
  const opaque = secret('o', 'Opaque', '.dockercfg', { 'reg.example': { username: 'u' } });
  assert.deepEqual(pullSecretCredentials([opaque], 'reg.example/app'), []);
  const wrongKey = secret('w', 'kubernetes.io/dockerconfigjson', '.dockercfg', {
    auths: { 'reg.example': { username: 'u' } },
  });
  assert.deepEqual(pullSecretCredentials([wrongKey], 'reg.example/app'), []);
});

test('most specific key first; docker.io images use index.docker.io credentials', () => {
  const s = json({
    'reg.example': { username: 'host', password: '1' },
    'reg.example/team': { username: 'team', password: '2' },
    'index.docker.io': { username: 'hub', password: '3' },
  });
  assert.deepEqual(
    pullSecretCredentials([s], 'reg.example/team/app').map((c) => c.username),
    ['team', 'host'],
  );
  assert.deepEqual(pullSecretCredentials([s], 'busybox:1'), [
    { username: 'hub', password: '3', serveraddress: 'https://index.docker.io/v1/' },
  ]);
});

test('a bad auth field fails with the reference message', () => {
  const s = json({ 'reg.example': { auth: b64('no-colon') } });
  assert.throws(() => pullSecretCredentials([s], 'reg.example/app'), {
    message: 'unable to parse auth field, must be formatted as base64(username:password)',
  });
});

test("under the platform profile the reference's types are read too (kubectl create secret docker-registry writes them)", () => {
  const types = pullSecretTypes({
    secretTypes: {
      dockerConfigJson: 'platform.io/dockerconfigjson',
      dockercfg: 'platform.io/dockercfg',
    },
  });
  assert.deepEqual(types, {
    dockerConfigJson: ['platform.io/dockerconfigjson', 'kubernetes.io/dockerconfigjson'],
    dockercfg: ['platform.io/dockercfg', 'kubernetes.io/dockercfg'],
  });
  const auths = { 'reg.example': { username: 'u', password: 'p' } };
  for (const type of types.dockerConfigJson) {
    const s = secret('j', type, '.dockerconfigjson', { auths });
    assert.deepEqual(withTypes([s], 'reg.example/app:1', types), [
      { username: 'u', password: 'p', serveraddress: 'reg.example' },
    ]);
  }
});
