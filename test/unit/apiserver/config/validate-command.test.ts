// The --validate-config command line: files anywhere after the flag, the domain and the
// --anonymous-auth rule, exit codes and output.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  isValidateConfigInvocation,
  runValidateConfig,
} from '../../../../src/apiserver/config/validate-command.js';
import { authn, setAt, tempDir, tracing } from './fixtures.js';

const tmp = tempDir();
after(() => tmp.cleanup());

function run(argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runValidateConfig(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

test('recognises the flag in both spellings', () => {
  assert.equal(isValidateConfigInvocation(['--v=2', '--validate-config', 'a']), true);
  assert.equal(isValidateConfigInvocation(['--validate_config=a']), true);
  assert.equal(isValidateConfigInvocation(['--secure-port', '0']), false);
});

test('valid files exit 0 and are listed; other flags and their values are skipped', () => {
  const f = tmp.write('t.yaml', tracing());
  const r = run(['--secure-port', '6443', '--validate-config', f, '--v=3']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `${f}: valid TracingConfiguration\n`);
});

test('--platform-domain and --anonymous-auth change what is valid', () => {
  const k8s = tmp.write('k.yaml', setAt(tracing(), 'apiVersion', 'apiserver.config.k8s.io/v1'));
  assert.equal(run(['--validate-config', k8s]).code, 1);
  assert.equal(run(['--validate-config', k8s, '--platform-domain', 'k8s.io']).code, 0);
  const a = tmp.write('a.yaml', authn());
  assert.equal(run(['--validate-config', a]).code, 0);
  const r = run(['--anonymous-auth=false', '--validate-config', a]);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /anonymous: Forbidden: anonymous is not allowed to be configured if --anonymous-auth flag is set/,
  );
  assert.match(r.err, /plat-apiserver: 1 error\(s\) in 1 file\(s\)/);
});

test('no file is a usage error', () => {
  const r = run(['--validate-config']);
  assert.equal(r.code, 1);
  assert.match(r.err, /needs at least one file/);
});
