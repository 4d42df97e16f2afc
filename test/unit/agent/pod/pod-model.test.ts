import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeManifest, checkPod } from '../../../../src/agent/pod/decode.js';
import { applyStaticPodDefaults } from '../../../../src/agent/pod/static.js';
import { ManifestError } from '../../../../src/common/util/errors.js';

const opts = {
  nodeName: 'Node-A',
  sourceKey: 'file:/etc/pods/web.yaml',
  sourceName: 'file' as const,
  names: namesFor('platform', 'platform.io'),
};
const docker = { requireImage: true, requireCommand: false };
const proc = { requireImage: false, requireCommand: true };

const web = `
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: web
    image: busybox:local
    command: [httpd]
    futureField: {kept: true}
  somethingNew: 42
`;

test('decodes a Pod as the reference does: unknown fields dropped and named, static defaults applied', () => {
  const dropped: string[][] = [];
  const [d] = decodeManifest(web, 'web.yaml', (where, fields) => {
    assert.equal(where, 'web.yaml');
    dropped.push([...fields]);
  });
  assert.ok(d);
  // the reference's UniversalDecoder (pkg/kubelet/config/common.go tryDecodeSinglePod) is not
  // strict: fields its types lack are dropped; we also say which, once
  assert.deepEqual(dropped, [['spec.containers[0].futureField', 'spec.somethingNew']]);
  assert.equal('somethingNew' in d.spec, false);
  assert.equal('futureField' in (d.spec.containers[0] ?? {}), false);
  const pod = applyStaticPodDefaults(d, opts);
  assert.equal(pod.metadata.name, 'web-node-a');
  assert.equal(pod.metadata.namespace, 'default');
  assert.equal(pod.spec.nodeName, 'Node-A');
  assert.match(pod.metadata.uid, /^[0-9a-f]{32}$/);
  assert.equal(pod.metadata.annotations?.['platform.io/config.hash'], pod.metadata.uid);
  assert.deepEqual(pod.spec.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
  assert.deepEqual(pod.status, { phase: 'Pending' });
  checkPod(pod, 'web.yaml', docker);
});

test('a JSON null is the field left unset; a value of the wrong JSON type is refused with its path', () => {
  const [d] = decodeManifest(
    '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n","creationTimestamp":null},' +
      '"spec":{"hostNetwork":null,"containers":[{"name":"c","image":"i","env":null}]}}',
    'n.json',
  );
  assert.equal(d?.metadata.creationTimestamp, undefined);
  assert.equal(d?.spec.hostNetwork, undefined);
  assert.throws(
    () =>
      decodeManifest(
        'apiVersion: v1\nkind: Pod\nmetadata: {name: pp}\nspec:\n  containers:\n  - {name: c, image: i, ports: [{containerPort: "80"}]}\n',
        'p.yaml',
      ),
    /p\.yaml: invalid pod: spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: "80": must be a 32-bit integer/,
  );
  assert.throws(
    () =>
      decodeManifest(
        'apiVersion: v1\nkind: Pod\nmetadata: {name: pp}\nspec: {dnsPolicy: Sometimes, containers: [{name: c, image: i}]}\n',
        'p.yaml',
      ),
    // the enum of the reference's OpenAPI, in its validation's words
    /spec\.dnsPolicy: Unsupported value: "Sometimes": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"/,
  );
});

test('the UID is stable for the same manifest, node and source, and changes otherwise', () => {
  const uid = (text: string, o = opts): string =>
    applyStaticPodDefaults(decodeManifest(text, 'x')[0]!, o).metadata.uid;
  assert.equal(uid(web), uid(web));
  assert.notEqual(uid(web), uid(web.replace('httpd', 'httpd2')));
  assert.notEqual(uid(web), uid(web, { ...opts, nodeName: 'other' }));
  assert.notEqual(uid(web), uid(web, { ...opts, sourceKey: 'url:http://x' }));
  // a uid given in the manifest is kept (its form is checked by the validation, see static-manifest tests)
  assert.equal(
    uid(
      web.replace(
        'metadata: {name: web,',
        'metadata: {name: web, uid: 0123456789abcdef0123456789abcdef,',
      ),
    ),
    '0123456789abcdef0123456789abcdef',
  );
});

test('a PodList gives several pods; an empty body none', () => {
  const list = JSON.stringify({
    apiVersion: 'v1',
    kind: 'PodList',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'b' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
    ],
  });
  assert.deepEqual(
    decodeManifest(list, 'u').map((p) => p.metadata.name),
    ['a', 'b'],
  );
  assert.deepEqual(decodeManifest('  \n', 'u'), []);
});

test('malformed manifests give one clear ManifestError naming the file and field', () => {
  const bad = (text: string, re: RegExp, v = docker): void => {
    assert.throws(
      () => {
        for (const d of decodeManifest(text, 'f.yaml'))
          checkPod(applyStaticPodDefaults(d, opts), 'f.yaml', v);
      },
      (err: unknown) =>
        err instanceof ManifestError && re.test(err.message) && err.message.startsWith('f.yaml'),
    );
  };
  bad('apiVersion: v1\nkind: Pod\nmetadata: {name: x\n', /not valid YAML or JSON/);
  bad(
    'apiVersion: v1\nkind: Deployment\nmetadata: {name: x}\nspec: {}',
    /no kind "Deployment" is registered for version "v1" \(accepted: apiVersion: v1 with kind: Pod or PodList\)/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: c, image: i}]}',
    /metadata.name: Required value/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\nspec: {containers: [{name: c, image: i}]}',
    /metadata.name: Invalid value/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}',
    /spec.containers: Required value/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i}, {name: c, image: i}]}',
    /spec.containers\[1\].name: Duplicate value: "c"/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {initContainers: [{name: c, image: i}], containers: [{name: c, image: i}]}',
    /Duplicate value: "c"/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c}]}',
    /spec.containers\[0\].image: Required value/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i}]}',
    /command: Required value/,
    proc,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {restartPolicy: Sometimes, containers: [{name: c, image: i}]}',
    /restartPolicy/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i, livenessProbe: {periodSeconds: 1}}]}',
    /spec.containers\[0\].livenessProbe: Required value: must specify a handler type/,
  );
  bad(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i, volumeMounts: [{name: v, mountPath: /x}]}]}',
    /volumeMounts\[0\].name: Not found: "v"/,
  );
});

test('process:// pods need no image', () => {
  const [d] = decodeManifest(
    'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, command: [sleep, "1"]}]}',
    'f',
  );
  checkPod(applyStaticPodDefaults(d!, opts), 'f', proc);
});

test('$(VAR) in command and args expands to env values; $$ escapes; unknown names stay', async () => {
  const { expandedCommand, containerEnv } = await import('../../../../src/agent/pod/expand.js');
  const c = {
    name: 'c',
    command: ['echo', '$(GREETING)', '$$(GREETING)'],
    args: ['$(MISSING)', 'x$(NAME)y'],
    env: [
      { name: 'NAME', value: 'web' },
      { name: 'GREETING', value: 'hi $(NAME)' },
    ],
  };
  assert.deepEqual(containerEnv(c), { NAME: 'web', GREETING: 'hi web' });
  assert.deepEqual(expandedCommand(c), {
    command: ['echo', 'hi web', '$(GREETING)'],
    args: ['$(MISSING)', 'xweby'],
  });
});
