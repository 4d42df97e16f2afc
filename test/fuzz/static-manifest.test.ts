// Property: the static pod manifest parser and validator (what the file and HTTP sources run on
// every manifest) throws nothing but ManifestError, and every pod it lets through has identifiers
// that are safe as path segments (UID, namespace, name, container and volume names). Runs
// fuzzParams(n) inputs per property: FUZZ_RUNS for a long run, FUZZ_SEED to replay one.
import { namesFor } from '../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { manifestText, staticPodsFromManifest } from '../../src/agent/pod/static-manifest.js';
import type { Pod } from '../../src/agent/pod/types.js';
import { ManifestError } from '../../src/common/util/errors.js';
import { pathSegmentProblem } from '../../src/common/util/safe-path.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';
import { HOSTILE_SEGMENTS } from '../helpers/hostile-names.js';

const opts = {
  defaults: {
    nodeName: 'fuzz-node',
    sourceKey: 'file:/m/x.yaml',
    sourceName: 'file' as const,
    names: namesFor('platform', 'platform.io'),
  },
  validation: { requireImage: false, requireCommand: false },
};

function assertPathSafe(pod: Pod): void {
  const ids = [
    pod.metadata.uid,
    pod.metadata.namespace,
    pod.metadata.name,
    ...[...pod.spec.containers, ...(pod.spec.initContainers ?? [])].flatMap((c) => [
      c.name,
      `${c.name}.log`,
    ]),
    ...(pod.spec.volumes ?? []).map((v) => v.name),
  ];
  for (const id of ids)
    assert.equal(
      pathSegmentProblem(id),
      undefined,
      `path-unsafe identifier ${JSON.stringify(id)} let through`,
    );
  assert.match(
    pod.metadata.uid,
    /^([0-9a-f]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
  );
}

/** Inputs that gave pods: a property that rejects everything would prove nothing. */
let accepted = 0;

function check(text: string): void {
  let pods: Pod[];
  try {
    pods = staticPodsFromManifest(text, '/m/x.yaml', opts);
  } catch (err) {
    assert.ok(
      err instanceof ManifestError,
      `not a ManifestError for ${JSON.stringify(text.slice(0, 300))}: ${String(err)}`,
    );
    assert.ok(err.message.startsWith('/m/x.yaml'), err.message);
    return;
  }
  pods.forEach(assertPathSafe);
  if (pods.length > 0) accepted++;
}

const identifier = fc.oneof(
  fc.constantFrom(
    ...HOSTILE_SEGMENTS,
    'web',
    'default',
    'kube-system',
    'a.b',
    'UPPER',
    'x-',
    '0123456789abcdef0123456789abcdef',
    '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a',
  ),
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,10}[a-z0-9])?$/),
  fc.stringMatching(/^[0-9a-f]{32}$/),
  fc.uuid(),
);

const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(a, { nil: undefined, freq: 3 });
/** Mostly a valid value, sometimes a hostile one: so that many pods pass and get checked. */
const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<T | string> =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: identifier });
const validName = fc.stringMatching(/^[a-z]([-a-z0-9]{0,8}[a-z0-9])?$/);
const uid = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{32}$/) },
  { weight: 2, arbitrary: identifier },
);

const container = fc.record(
  {
    name: mostly(validName),
    command: fc.oneof(
      { weight: 5, arbitrary: fc.constant(['sleep', '1']) },
      { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }) },
    ),
    ports: maybe(
      fc.array(
        fc.record({
          containerPort: fc.integer({ min: -5, max: 70000 }),
          name: maybe(mostly(validName)),
          protocol: maybe(fc.constantFrom('TCP', 'UDP', 'HTTP')),
        }),
        { maxLength: 2 },
      ),
    ),
    resources: maybe(
      fc.record({
        limits: maybe(
          fc.dictionary(
            fc.constantFrom('cpu', 'memory', 'x/y'),
            fc.oneof(fc.constantFrom('1', '100m', '1Gi', 'lots'), fc.integer()),
          ),
        ),
      }),
    ),
    volumeMounts: maybe(
      fc.array(
        fc.record({
          name: mostly(fc.constant('v')),
          mountPath: fc.constantFrom('/m', '', '../x'),
          subPath: maybe(fc.constantFrom('a', '../..', '/etc')),
        }),
        { maxLength: 2 },
      ),
    ),
    livenessProbe: maybe(
      fc.record({
        exec: fc.record({ command: fc.constant(['true']) }),
        periodSeconds: maybe(fc.integer({ min: -3, max: 30 })),
      }),
    ),
  },
  { requiredKeys: ['name', 'command'] },
);

const podObject = fc.record(
  {
    apiVersion: fc.oneof(
      { weight: 8, arbitrary: fc.constant('v1') },
      { weight: 1, arbitrary: fc.constantFrom('v2', 'apps/v1', '') },
    ),
    kind: fc.oneof(
      { weight: 8, arbitrary: fc.constant('Pod') },
      { weight: 1, arbitrary: fc.constantFrom('PodList', 'Deployment') },
    ),
    metadata: fc.record(
      {
        name: mostly(validName),
        namespace: maybe(mostly(validName)),
        uid,
        labels: maybe(fc.dictionary(mostly(validName), mostly(validName), { maxKeys: 3 })),
        annotations: maybe(
          fc.dictionary(mostly(validName), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
        ),
      },
      { requiredKeys: ['name', 'uid'] },
    ),
    spec: fc.record(
      {
        containers: fc.array(container, { minLength: 1, maxLength: 3 }),
        initContainers: maybe(fc.array(container, { maxLength: 2 })),
        volumes: maybe(
          fc.array(fc.record({ name: mostly(fc.constant('v')), emptyDir: fc.constant({}) }), {
            maxLength: 2,
          }),
        ),
        restartPolicy: maybe(fc.constantFrom('Always', 'Never', 'Sometimes')),
      },
      { requiredKeys: ['containers'] },
    ),
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata', 'spec'] },
);

const yamlChars = fc.constantFrom(
  ...'ab:- \n\t{}[],#&*!|>\'"%@`?0123456789.kindapiVersionPodv1uid/\\\0'.split(''),
);

test('random text: only ManifestError, never a path-unsafe pod', () => {
  fc.assert(fc.property(fc.string({ unit: yamlChars, maxLength: 300 }), check), fuzzParams(300));
  fc.assert(fc.property(fc.string({ maxLength: 300 }), check), fuzzParams(150));
});

test('random pod objects with hostile identifiers, as JSON, YAML and PodLists: only ManifestError, never a path-unsafe pod', () => {
  const before = accepted;
  fc.assert(
    fc.property(podObject, fc.constantFrom('json', 'yaml', 'list'), (obj, form) => {
      if (form === 'json') check(JSON.stringify(obj));
      else if (form === 'yaml') check(stringify(obj));
      else check(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [obj, obj] }));
    }),
    fuzzParams(400),
  );
  assert.ok(accepted - before > 0, 'some generated pods were valid and checked');
  process.stdout.write(`# ${accepted - before} of the generated manifests gave pods\n`);
});

test('random bytes: UTF-8 is checked first, then only ManifestError', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      let text: string;
      try {
        text = manifestText(bytes, '/m/x.yaml');
      } catch (err) {
        assert.ok(err instanceof ManifestError);
        return;
      }
      check(text);
    }),
    fuzzParams(200),
  );
});
