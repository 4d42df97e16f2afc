// plat-apiserver verifying the agent's serving certificate against --kubelet-certificate-authority
// when that CA did not sign it: exec and logs fail with the reference's x509 wording, and
// `kubectl logs --insecure-skip-tls-verify-backend` (pods/log insecureSkipTLSVerifyBackend) still
// reads the log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import { podRunning, startScene, type Scene } from './kubectl-streaming-harness.js';

const skip = kubectlSkipReason('the kubectl streaming TLS suite') ?? false;
const NODE = 'tls-node-1';
let s: Scene;

before(async () => {
  if (skip !== false) return;
  s = await startScene(NODE, { serving: 'mismatched' });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'quiet' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image: 'busybox:local',
          command: ['sh', '-c', 'echo hello from quiet; exec sleep 600'],
        },
      ],
    },
  };
  assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) })).code, 0);
  await podRunning(s, 'quiet');
});

after(async () => {
  await s?.stop();
});

test(
  'an agent certificate the given CA did not sign: refused, unless the log request skips verification',
  { skip },
  async () => {
    const ex = await s.kubectl(['exec', 'quiet', '--', 'true']);
    assert.notEqual(ex.code, 0);
    // The reference's translator: the SPDY executor's error (spdy.Negotiate wraps client.Do's *url.Error).
    assert.match(
      ex.stderr,
      /^error: Internal error occurred: error sending request: Post "https:\/\/127\.0\.0\.1:\d+\/exec\/default\/quiet\/c\?command=true&error=1&output=1": tls: failed to verify certificate: x509: certificate signed by unknown authority\n$/,
    );
    const spdy = await s.kubectl(['exec', 'quiet', '--', 'true'], {
      env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' },
    });
    assert.equal(
      spdy.stderr,
      'Error from server: error dialing backend: tls: failed to verify certificate: x509: certificate signed by unknown authority\n',
    );
    const log = await s.kubectl(['logs', 'quiet']);
    assert.notEqual(log.code, 0);
    assert.match(
      log.stderr,
      /tls: failed to verify certificate: x509: certificate signed by unknown authority/,
    );
    await waitFor(
      async () =>
        (await s.kubectl(['logs', 'quiet', '--insecure-skip-tls-verify-backend'])).stdout ===
        'hello from quiet\n',
      'the log read without verification',
      10_000,
      100,
    );
  },
);
