import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiError,
  ConfigError,
  isNotFound,
  isConflict,
  findCause,
} from '../../../../src/common/util/errors.js';

test('isNotFound walks the cause chain', () => {
  const inner = new ApiError('pods "x" not found', { status: 404, reason: 'NotFound' });
  const outer = new Error('sync failed', { cause: inner });
  assert.equal(isNotFound(outer), true);
  assert.equal(isConflict(outer), false);
});

test('ConfigError keeps every problem and the field facts', () => {
  const e = new ConfigError('two problems', {
    file: '/etc/x.yaml',
    field: 'a',
    flag: '--a',
    problems: ['p1', 'p2'],
  });
  assert.deepEqual(e.problems, ['p1', 'p2']);
  assert.equal(e.code, 'Config');
  assert.equal(
    findCause(e, (x): x is ConfigError => x instanceof ConfigError),
    e,
  );
});
