// YAML request bodies read as the reference reads them (sigs.k8s.io/yaml's YAMLToJSON over go-yaml
// v2). The reference's answers, from its decoder (test/oracle/yaml-to-json): `hostNetwork: yes` is
// true and `0644` is 420; `~: a` is `Unsupported map key of type: %!s(<nil>), key: <nil>, value:
// "a"`; `.inf` is `json: unsupported value: +Inf`; `*nope` is `yaml: unknown anchor 'nope'
// referenced`; `%YAML 1.2` is `yaml: found incompatible YAML document`. Each refusal is 400 with
// `error converting YAML to JSON: ` and the reference's words (the value part of the key error left
// out), then where and what is accepted, wrapped by a create as the reference wraps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, DecodeError } from '../../../../src/apiserver/decode.js';

const HEAD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: y11}\n';

test('a YAML body reads YAML 1.1 forms as the reference does: yes is true, 0644 is 420', () => {
  const body = `${HEAD}spec:\n  hostNetwork: yes\n  activeDeadlineSeconds: 0644\nstatus:\n  message: x\n`;
  const r = decodeBody({ body, contentType: 'application/yaml', kind: 'Pod', apiVersion: 'v1' });
  const spec = r.object['spec'] as Record<string, unknown>;
  assert.equal(spec['hostNetwork'], true);
  assert.equal(spec['activeDeadlineSeconds'], 420);
});

const refusals: [string, string, string][] = [
  [
    '~: a\n',
    'Unsupported map key of type: %!s(<nil>), key: <nil>',
    'request body line 1, column 1: a mapping key that is null has no JSON form',
  ],
  [
    'x: .inf\n',
    'json: unsupported value: +Inf',
    'request body line 1, column 4: .inf is not a JSON number; accepted: a finite number, or a quoted string',
  ],
  [
    'x: *nope\n',
    "yaml: unknown anchor 'nope' referenced",
    'request body line 1, column 4: the alias *nope names no anchor before it',
  ],
];

for (const [extra, reference, ours] of refusals) {
  test(`a YAML create body with ${JSON.stringify(extra.trim())}: 400 with the reference's words (${reference}), then line, column and what is accepted`, () => {
    assert.throws(
      () =>
        decodeBody({
          body: `${HEAD}${extra}`,
          contentType: 'application/yaml',
          kind: 'Pod',
          apiVersion: 'v1',
        }),
      (e: unknown) => {
        assert.ok(e instanceof DecodeError, String(e));
        assert.equal(e.status, 400);
        const line = Number(/line (\d+)/.exec(ours)?.[1]) + 3;
        const conversion = `error converting YAML to JSON: ${reference} (${ours.replace(/line \d+/, `line ${line}`)}`;
        assert.ok(
          e.yamlConversion?.startsWith(conversion),
          `${e.yamlConversion ?? ''}\nwanted: ${conversion}`,
        );
        assert.ok(
          e.message.startsWith(
            `the object provided is unrecognized (must be of type Pod): ${conversion}`,
          ),
          e.message,
        );
        return true;
      },
    );
  });
}

test('a YAML body under %YAML 1.2: refused as go-yaml refuses it (found incompatible YAML document)', () => {
  assert.throws(
    () =>
      decodeBody({
        body: `%YAML 1.2\n---\n${HEAD}`,
        contentType: 'application/yaml',
        kind: 'Pod',
        apiVersion: 'v1',
      }),
    (e: unknown) => {
      assert.ok(e instanceof DecodeError, String(e));
      assert.ok(
        e.message.includes(
          'error converting YAML to JSON: yaml: found incompatible YAML document (request body line 1, column 1: a %YAML 1.2 directive: accepted: %YAML 1.1, or no %YAML directive)',
        ),
        e.message,
      );
      return true;
    },
  );
});
