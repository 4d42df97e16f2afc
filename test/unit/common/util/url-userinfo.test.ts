import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { maskUrlUserinfo, maskUrlUserinfoDeep } from '../../../../src/common/util/url-userinfo.js';

test('URL userinfo is masked with the reference marker (Go url.URL.Redacted writes xxxxx), user name included', () => {
  assert.equal(
    maskUrlUserinfo('https://alice:s3cret@host.test:8443/pods?a=1'),
    'https://xxxxx:xxxxx@host.test:8443/pods?a=1',
  );
  assert.equal(maskUrlUserinfo('http://tok3n@host/'), 'http://xxxxx@host/');
  assert.equal(
    maskUrlUserinfo('tcp://u:p%40ss@127.0.0.1:2375'),
    'tcp://xxxxx:xxxxx@127.0.0.1:2375',
  );
  assert.equal(
    maskUrlUserinfo('GET "https://a:b@h/x" failed; see http://c:d@e/'),
    'GET "https://xxxxx:xxxxx@h/x" failed; see http://xxxxx:xxxxx@e/',
  );
  assert.equal(maskUrlUserinfo('{"url":"http://a:b@h/p"}'), '{"url":"http://xxxxx:xxxxx@h/p"}');
  // no userinfo: unchanged, an @ after the host is not userinfo
  for (const s of [
    'https://host/pods',
    'unix:///run/docker.sock',
    'mailto:a@b',
    'https://host/a@b',
    'https://host?q=a@b',
    'plain text a@b',
  ])
    assert.equal(maskUrlUserinfo(s), s);
});

test('deep masking copies every string of a configuration-shaped value', () => {
  const input = {
    a: 'http://u:p@h/',
    b: ['x', 'https://q:r@h'],
    c: { d: 1, e: null, f: true, g: 'tcp://s@h:1' },
  };
  assert.deepEqual(maskUrlUserinfoDeep(input), {
    a: 'http://xxxxx:xxxxx@h/',
    b: ['x', 'https://xxxxx:xxxxx@h'],
    c: { d: 1, e: null, f: true, g: 'tcp://xxxxx@h:1' },
  });
  assert.equal(input.a, 'http://u:p@h/', 'the input is not changed');
});

test('property: no password survives masking of a URL built around it', () => {
  const secret = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=%-]{1,30}$/);
  fc.assert(
    fc.property(
      fc.constantFrom('http', 'https', 'tcp', 'git+ssh'),
      secret,
      secret,
      fc.constantFrom('h', 'host.test', '127.0.0.1:8080', '[::1]:443'),
      fc.constantFrom('', '/', '/pods', '/a/b?c=d@e', '#f'),
      (scheme, user, pass, host, path) => {
        const masked = maskUrlUserinfo(`prefix ${scheme}://${user}:${pass}@${host}${path} suffix`);
        assert.equal(masked, `prefix ${scheme}://xxxxx:xxxxx@${host}${path} suffix`);
      },
    ),
    { numRuns: 200, seed: 20261123 },
  );
});
