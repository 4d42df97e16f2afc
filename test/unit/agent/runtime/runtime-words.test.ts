// What a runtime's failure says on a pod: the runtime's own words (a CRI status message, the
// Docker engine's message) rather than the agent's context around them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImagePullError, runtimeWords } from '../../../../src/agent/runtime/types.js';

test('the runtime words of each kind of error', () => {
  assert.equal(runtimeWords(new Error('plain')), 'plain');
  assert.equal(
    runtimeWords(
      Object.assign(new Error('CRI X on /s.sock: UNKNOWN: words'), { runtimeWords: 'words' }),
    ),
    'words',
  );
  const docker = Object.assign(
    new Error(
      '(HTTP code 500) server error - Head "http://r/v2/x/manifests/1": no basic auth credentials ',
    ),
    {
      statusCode: 500,
      json: { message: 'Head "http://r/v2/x/manifests/1": no basic auth credentials' },
    },
  );
  assert.equal(runtimeWords(docker), 'Head "http://r/v2/x/manifests/1": no basic auth credentials');
  const pull = new ImagePullError('ErrImagePull', 'failed to pull image "x": ...', {
    cause: docker,
  });
  assert.equal(pull.runtimeWords, 'Head "http://r/v2/x/manifests/1": no basic auth credentials');
  assert.equal(runtimeWords(pull), pull.runtimeWords);
  assert.equal(runtimeWords(new ImagePullError('ErrImageNeverPull', 'never')), 'never');
  // dockerode's error when the engine answers no JSON body: the message after its HTTP status
  const bare = Object.assign(
    new Error(
      '(HTTP code 500) server error - Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused ',
    ),
    { statusCode: 500, json: null, reason: 'server error' },
  );
  assert.equal(
    runtimeWords(bare),
    'Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused',
  );
});
