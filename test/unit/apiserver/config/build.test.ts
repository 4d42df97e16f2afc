// loadApiserverConfigFiles: what each flag builds, and the errors of files that validate but
// cannot be used (missing platconfig, KMS v1, Webhook mode without its file).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  admissionPluginsEnabled,
  loadApiserverConfigFiles,
  loadEncryptionConfig,
} from '../../../../src/apiserver/config/build.js';
import { alwaysDeny } from '../../../../src/apiserver/authz/modes.js';
import { namesFor } from '../../../../src/common/names.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { ConfigError, FlagError } from '../../../../src/common/util/errors.js';
import { admission, authz, encryption, setAt, tempDir, tracing } from './fixtures.js';

const tmp = tempDir();
after(() => tmp.cleanup());
const base = {
  platformDomain: 'platform.io',
  names: namesFor('platform', 'platform.io'),
  anonymousAuthFlagSet: false,
  authorizationModes: ['AlwaysAllow'],
  // The storage's authorizers; only the AlwaysAllow and Webhook modes are asked for here.
  modes: { rbac: alwaysDeny, node: alwaysDeny },
  clock: systemClock,
  logger: silentLogger(),
};

test('no files: default certificate admission plugins and DefaultTolerationSeconds, nothing else', async () => {
  const r = await loadApiserverConfigFiles(base);
  assert.deepEqual(r.authenticators, []);
  // Without --authorization-config the chain is the --authorization-mode list.
  assert.equal(r.authorizers.length, 1);
  assert.deepEqual(r.authorizerModes, ['AlwaysAllow']);
  assert.deepEqual(
    r.admission.map((p) => p.name),
    [
      'DefaultTolerationSeconds',
      'CertificateApproval',
      'CertificateSigning',
      'CertificateSubjectRestriction',
    ],
  );
  assert.equal(r.tracer, undefined);
  assert.equal((await loadEncryptionConfig(base)).transformers, undefined);
  await r.close();
});

test('admission, encryption and tracing files build their parts', async () => {
  const r = await loadApiserverConfigFiles({
    ...base,
    admissionControlConfigFile: tmp.write('adm.yaml', admission()),
    enableAdmissionPlugins: 'EventRateLimit',
    tracingConfigFile: tmp.write('tr.yaml', setAt(tracing(), 'endpoint', '127.0.0.1:1')),
  });
  assert.deepEqual(
    r.admission.map((p) => p.name),
    [
      'DefaultTolerationSeconds',
      'EventRateLimit',
      'CertificateApproval',
      'CertificateSigning',
      'CertificateSubjectRestriction',
    ],
  );
  assert.ok(r.tracer !== undefined);
  await r.close();
  const enc = await loadEncryptionConfig({
    ...base,
    encryptionProviderConfig: tmp.write('enc.yaml', encryption()),
  });
  assert.ok(enc.transformers !== undefined);
  enc.close();
});

test('a webhook platconfig that cannot be read names the field', async () => {
  const file = tmp.write(
    'authz.yaml',
    setAt(
      authz(),
      'authorizers.0.webhook.connectionInfo.kubeConfigFile',
      `${tmp.dir}/missing.platconfig`,
    ),
  );
  await assert.rejects(
    loadApiserverConfigFiles({ ...base, authorizationConfig: file }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(
        err.message,
        /--authorization-config: .*authz\.yaml: authorizers\[0\]\.webhook\.connectionInfo\.kubeConfigFile: .*missing\.platconfig/,
      );
      return true;
    },
  );
});

test('KMS v1 validates but is refused at start; Webhook mode needs its file', async () => {
  const d = setAt(encryption(), 'resources.0.providers.0', {
    kms: { name: 'old', endpoint: 'unix:///tmp/none.sock' },
  });
  await assert.rejects(
    loadEncryptionConfig({ ...base, encryptionProviderConfig: tmp.write('kms.yaml', d) }),
    /--encryption-provider-config: .*kms\.yaml: resources\[0\]\.providers\[0\]\.kms\.apiVersion: Unsupported value: KMS v1 is not supported by plat-apiserver: set apiVersion: v2/,
  );
  await assert.rejects(
    loadApiserverConfigFiles({ ...base, authorizationModes: ['Webhook'] }),
    (err: unknown) =>
      err instanceof FlagError &&
      /--authorization-mode=Webhook needs --authorization-webhook-config-file/.test(err.message),
  );
});

test('admission plugins: the defaults include ServiceAccount and DefaultTolerationSeconds (as the reference) and NodeRestriction (as kubeadm enables it); --disable-admission-plugins removes any, and a plugin named by both flags or an unknown name is an error', () => {
  assert.deepEqual(admissionPluginsEnabled(undefined, undefined, true), [
    'ServiceAccount',
    'DefaultTolerationSeconds',
    'CertificateApproval',
    'CertificateSigning',
    'CertificateSubjectRestriction',
    'NodeRestriction',
  ]);
  assert.deepEqual(
    admissionPluginsEnabled('EventRateLimit', 'NodeRestriction,CertificateSigning', true),
    [
      'ServiceAccount',
      'DefaultTolerationSeconds',
      'CertificateApproval',
      'CertificateSubjectRestriction',
      'EventRateLimit',
    ],
  );
  // --validate-config has no cluster objects: NodeRestriction and ServiceAccount are not defaults there.
  assert.deepEqual(admissionPluginsEnabled(undefined, undefined, false), [
    'DefaultTolerationSeconds',
    'CertificateApproval',
    'CertificateSigning',
    'CertificateSubjectRestriction',
  ]);
  assert.throws(
    () => admissionPluginsEnabled('NodeRestriction', ' NodeRestriction ', true),
    /--enable-admission-plugins and --disable-admission-plugins both name "NodeRestriction"/,
  );
  assert.throws(
    () => admissionPluginsEnabled(undefined, 'NodeRestrictions', true),
    /--disable-admission-plugins: unknown admission plugin\(s\) "NodeRestrictions"; supported: /,
  );
});

test('--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds set the tolerations DefaultTolerationSeconds adds; a value that is not an int64 is a flag error', async () => {
  const r = await loadApiserverConfigFiles({
    ...base,
    defaultNotReadyTolerationSeconds: '60',
    defaultUnreachableTolerationSeconds: '-1',
  });
  const plugin = r.admission.find((p) => p.name === 'DefaultTolerationSeconds');
  assert.ok(plugin !== undefined);
  const object: Record<string, unknown> = { spec: {} };
  await plugin.admit({
    operation: 'CREATE',
    resource: 'pods',
    apiGroup: '',
    subresource: '',
    namespace: 'ns',
    name: 'p',
    object,
    oldObject: undefined,
    user: { username: 'u', groups: [] },
    dryRun: false,
  });
  assert.deepEqual((object['spec'] as Record<string, unknown>)['tolerations'], [
    {
      key: 'node.platform.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 60,
    },
    {
      key: 'node.platform.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: -1,
    },
  ]);
  await r.close();
  await assert.rejects(
    loadApiserverConfigFiles({ ...base, defaultNotReadyTolerationSeconds: '5m' }),
    (err: unknown) =>
      err instanceof FlagError &&
      /^invalid argument "5m" for "--default-not-ready-toleration-seconds" flag: /.test(
        err.message,
      ),
  );
});
