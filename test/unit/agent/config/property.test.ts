// Random documents thrown at the loader: only ConfigError (one line per problem) may come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { decodeConfigText } from '../../../../src/agent/config/load.js';
import { loadShapeSchema, shapeOk } from '../../../../src/agent/config/shape-check.js';
import { nodeAgentConfigurationSchema } from '../../../../src/agent/config/schema.js';
import { ConfigError } from '../../../../src/common/util/errors.js';
import { goYamlWriteTags } from '../../../../src/common/util/go-yaml-tags.js';

const shape = loadShapeSchema();
const HEAD = { apiVersion: 'nodeagent.config.platform.io/v1beta1', kind: 'NodeAgentConfiguration' };
const opts = { defaultPlatformDomain: 'platform.io', shape };

async function onlyConfigErrors(text: string, isDropIn: boolean): Promise<void> {
  try {
    await decodeConfigText('/c.yaml', text, { ...opts, isDropIn });
  } catch (err) {
    assert.ok(
      err instanceof ConfigError,
      `not a ConfigError for ${JSON.stringify(text)}: ${String(err)}`,
    );
    for (const p of err.problems)
      assert.ok(!p.includes('\n') && p.length > 0, `one non-empty line: ${JSON.stringify(p)}`);
  }
}

const yamlChars = fc.constantFrom(
  ...'ab:- \n\t{}[],#&*!|>\'"%@`?0123456789.kindapiVersion'.split(''),
);

test('random text: only ConfigError', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: yamlChars, maxLength: 200 }), fc.boolean(), (text, d) =>
      onlyConfigErrors(text, d),
    ),
    { numRuns: 400 },
  );
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 200 }), (text) => onlyConfigErrors(text, false)),
    { numRuns: 200 },
  );
});

const fieldNames = fc.constantFrom(
  'port',
  'maxPods',
  'authentication',
  'featureGates',
  'evictionHard',
  'staticPodPath',
  'logging',
  'registerWithTaints',
  'reservedMemory',
  'bogus',
  'kind',
  'apiVersion',
);

test('random documents with real field names: only ConfigError', async () => {
  const doc = fc.dictionary(fieldNames, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
  await fc.assert(
    fc.asyncProperty(doc, fc.boolean(), fc.boolean(), async (d, withHead, dropIn) => {
      const body = withHead
        ? {
            apiVersion: 'nodeagent.config.platform.io/v1beta1',
            kind: 'NodeAgentConfiguration',
            ...d,
          }
        : d;
      await onlyConfigErrors(stringify(body), dropIn);
      await onlyConfigErrors(JSON.stringify(body), dropIn);
    }),
    { numRuns: 400 },
  );
});

// The fast pre-check may only say "fine" when zod agrees, and should say "problem" when zod does.
const leaf = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        'key',
        'effect',
        'value',
        'numaNode',
        'limits',
        'memory',
        'enabled',
        'x',
        'text',
        'splitStream',
      ),
      tie('v'),
      { maxKeys: 3 },
    ),
  ),
})).v;
const realFields = fc.constantFrom(
  'port',
  'maxPods',
  'platAPIQPS',
  'authentication',
  'featureGates',
  'evictionHard',
  'staticPodURLHeader',
  'logging',
  'registerWithTaints',
  'reservedMemory',
  'systemReserved',
  'clusterDNS',
  'tlsCipherSuites',
  'bogus',
);

test('the shape pre-check agrees with zod', () => {
  assert.ok(shape !== undefined);
  fc.assert(
    fc.property(fc.dictionary(realFields, value, { maxKeys: 4 }), (fields) => {
      const d = { ...HEAD, ...fields };
      assert.equal(
        shapeOk(shape, d),
        nodeAgentConfigurationSchema.safeParse(d).success,
        JSON.stringify(d),
      );
    }),
    { numRuns: 2000 },
  );
  const good = {
    ...HEAD,
    registerWithTaints: [{ key: 'a', effect: 'NoSchedule' }],
    reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }],
    logging: { options: { text: { splitStream: true } } },
    staticPodURLHeader: { A: ['b'] },
    systemReserved: { cpu: 1 },
  };
  assert.equal(shapeOk(shape, good), true);
  assert.equal(nodeAgentConfigurationSchema.safeParse(good).success, true);
  for (const bad of [
    { port: 1.5 },
    { port: 3000000000 },
    { reservedMemory: [{ numaNode: -1, limits: {} }] },
    { platAPIQPS: Number.POSITIVE_INFINITY },
    { registerWithTaints: [{ key: 'a' }] },
    { logging: { options: { text: { x: 1 } } } },
    { featureGates: { A: 'true' } },
  ].map((b) => ({ ...HEAD, ...b }))) {
    assert.equal(shapeOk(shape, bad), false, JSON.stringify(bad));
    assert.equal(nodeAgentConfigurationSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

// The fast path (js-yaml + shape check) and the full path (yaml + zod) must decode every clean
// document to the same content. Documents are written as the programs write YAML: a string that
// YAML 1.1 (how config files are read) could take for another type, such as `on`, is quoted.
test('fast and full decoding agree on clean documents', async () => {
  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer({ min: -1000, max: 100000 }),
    fc.boolean(),
  );
  const docArb = fc.record(
    {
      port: fc.integer({ min: 0, max: 70000 }),
      staticPodPath: fc.constantFrom('pods', '/etc/pods', './x y', ''),
      clusterDNS: fc.array(fc.constantFrom('10.0.0.10', 'fd00::a', 'x'), { maxLength: 3 }),
      featureGates: fc.dictionary(
        fc.constantFrom('QOSReserved', 'LoggingAlphaOptions', 'Foo'),
        fc.boolean(),
      ),
      evictionHard: fc.dictionary(
        fc.constantFrom('memory.available', 'nodefs.available'),
        fc.constantFrom('100Mi', '10%', 'true', 'null', '0x1F', '1e3', 'yes', '2001-01-01'),
      ),
      systemReserved: fc.dictionary(
        fc.constantFrom('cpu', 'memory'),
        fc.oneof(fc.constantFrom('1', '500m', '1Gi'), fc.integer({ min: 0, max: 8 })),
      ),
      registerWithTaints: fc.array(
        fc.record({
          key: fc.constantFrom('a', 'b/c'),
          value: fc.constantFrom('x', '1', 'on'),
          effect: fc.constantFrom('NoSchedule', 'NoExecute'),
        }),
        { maxLength: 2 },
      ),
      platAPIQPS: fc.integer({ min: 0, max: 100 }),
      clusterDomain: scalar.map(String),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(
      docArb,
      fc.constantFrom<'yaml' | 'json'>('yaml', 'json'),
      async (d, format) => {
        const body = { ...HEAD, ...d };
        const text =
          format === 'json'
            ? JSON.stringify(body)
            : stringify(body, { customTags: goYamlWriteTags });
        const fast = await decodeConfigText('/etc/na/c.yaml', text, { ...opts });
        const full = await decodeConfigText('/etc/na/c.yaml', text, {
          defaultPlatformDomain: 'platform.io',
        });
        assert.deepEqual(fast.content, full.content, text);
      },
    ),
    { numRuns: 300 },
  );
});

test('a KubeletConfiguration (kubernetes profile) decodes to the same document, warnings and refusals with the shape check as with zod alone', async () => {
  const kube = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
  const field = fc.constantFrom(
    ['kubeAPIQPS', fc.integer({ min: -1, max: 100 })],
    ['kubeAPIBurst', fc.constantFrom(10, '10', true)],
    ['kubeReserved', fc.constantFrom({ cpu: '100m' }, { cpu: 1 }, 'x')],
    ['clusterDNS', fc.constantFrom(['10.96.0.10'], [], 'x')],
    ['cgroupDriver', fc.constantFrom('systemd', 'cgroupfs', '')],
    ['staticPodPath', fc.constantFrom('/etc/kubernetes/manifests', '', 5)],
    ['nodeStatusUpdateFrequency', fc.constantFrom('0s', '10s', 'soon')],
    [
      'logging',
      fc.constantFrom({ format: 'text' }, { options: { json: { infoBufferSize: '0' } } }),
    ],
    ['userNamespaces', fc.constantFrom({}, { idsPerPod: 131072 })],
    ['notAField', fc.constantFrom(1, 'x')],
    ['platAPIQPS', fc.constantFrom(5)],
    // names an object literal answers from its prototype: never a known field
    ['constructor', fc.constantFrom(1, { a: 1 })],
    ['toString', fc.constantFrom('x')],
    ['__proto__', fc.constantFrom({ staticPodPath: '/evil' }, 1)],
  );
  const docArb = fc
    .array(
      field.chain(([k, v]) => v.map((x: unknown) => [k, x] as const)),
      { maxLength: 6 },
    )
    .map((kvs) => Object.fromEntries(kvs));
  const decode = async (text: string, withShape: boolean): Promise<unknown> => {
    try {
      const r = await decodeConfigText('/etc/na/config.yaml', text, {
        defaultPlatformDomain: 'platform.io',
        profile: 'kubernetes',
        ...(withShape ? { shape } : {}),
      });
      return { content: r.content, warnings: r.warnings };
    } catch (err) {
      assert.ok(err instanceof ConfigError, String(err));
      return { problems: err.problems };
    }
  };
  await fc.assert(
    fc.asyncProperty(docArb, async (d) => {
      const text = stringify({ ...kube, ...d }, { customTags: goYamlWriteTags });
      assert.deepEqual(await decode(text, true), await decode(text, false), text);
    }),
    { numRuns: 300 },
  );
});
