import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigDocument } from '../../../../src/apiserver/config/load.js';

test('a configuration file whose apiVersion and kind are objects names them as JSON', () => {
  assert.throws(
    () => parseConfigDocument('/etc/x.yaml', { apiVersion: { v: 1 }, kind: ['Tracing'] }),
    (err: unknown) =>
      err instanceof Error &&
      err.message.includes('apiVersion: Unsupported value: "{\\"v\\":1}"') &&
      err.message.includes('kind: Unsupported value: "[\\"Tracing\\"]"') &&
      !err.message.includes('[object Object]'),
  );
});
