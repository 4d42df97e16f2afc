// matchImages semantics against the reference's URLsMatchStr examples (pkg/credentialprovider
// keyring_test.go and the CredentialProviderConfig documentation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  globRegExp,
  repoToPull,
  urlsMatch,
} from '../../../../../src/agent/runtime/credentials/match-image.js';

test('matchImages: globs per host label, equal ports and label counts, path prefix', () => {
  // the reference's documented examples
  assert.equal(urlsMatch('*.registry.io', 'abc.registry.io'), true);
  assert.equal(urlsMatch('*.*.registry.io', 'abc.registry.io'), false, 'label counts differ');
  assert.equal(urlsMatch('*.registry.io', 'registry.io'), false);
  assert.equal(urlsMatch('*.*.registry.io', 'a.b.registry.io'), true);
  assert.equal(urlsMatch('*.registry.io:8080/path', 'abc.registry.io:8080/path/image'), true);
  assert.equal(
    urlsMatch('*.registry.io:8080/path', 'abc.registry.io/path/image'),
    false,
    'ports differ',
  );
  assert.equal(
    urlsMatch(
      '123456789.dkr.ecr.us-east-1.amazonaws.com',
      '123456789.dkr.ecr.us-east-1.amazonaws.com/repo',
    ),
    true,
  );
  assert.equal(urlsMatch('*.azurecr.io', 'foo.azurecr.io/bar'), true);
  assert.equal(urlsMatch('gcr.io', 'gcr.io/project/image'), true);
  assert.equal(
    urlsMatch('gcr.io/other', 'gcr.io/project/image'),
    false,
    'the glob path must be a prefix',
  );
  assert.equal(urlsMatch('registry.io:5000', 'registry.io:5001/x'), false);
  assert.equal(urlsMatch('127.0.0.1:5000', '127.0.0.1:5000/hopt/busybox'), true);
  // Go's url.Parse reads `?` as the start of a query: the host is `reg`, one label against three
  assert.equal(urlsMatch('reg?.example.com', 'reg1.example.com/x'), false);
  assert.equal(urlsMatch('reg[0-9].example.com', 'reg1.example.com/x'), true);
  assert.equal(urlsMatch('reg[0-9].example.com', 'rega.example.com/x'), false);
  // `^` may not stand in a host for Go's url.Parse: the glob is invalid and matches nothing
  assert.equal(urlsMatch('reg[^a].example.com', 'regb.example.com/x'), false);
  assert.equal(
    urlsMatch('reg[!a].example.com', 'regb.example.com/x'),
    false,
    'Go negates with ^ only: [!a] is the set {!, a}',
  );
  assert.equal(urlsMatch('[.example.com', 'a.example.com'), false, 'a bad pattern matches nothing');
});

test('Go filepath.Match patterns: bad ones are errors, * never crosses a /', () => {
  assert.throws(() => globRegExp('a['), /syntax error in pattern/);
  assert.throws(() => globRegExp('a\\'), /syntax error in pattern/);
  assert.throws(() => globRegExp('[]a]'), /syntax error in pattern/);
  assert.equal(globRegExp('a*').test('a/b'), false);
  assert.equal(globRegExp('\\*').test('*'), true);
});

test('the image the plugin is asked about is the normalized repository, without tag or digest', () => {
  assert.equal(repoToPull('busybox'), 'docker.io/library/busybox');
  assert.equal(repoToPull('busybox:1.36'), 'docker.io/library/busybox');
  assert.equal(repoToPull('team/app:v1'), 'docker.io/team/app');
  assert.equal(repoToPull('127.0.0.1:5000/hopt/busybox:local'), '127.0.0.1:5000/hopt/busybox');
  assert.equal(repoToPull('localhost/app@sha256:abc'), 'localhost/app');
  assert.equal(repoToPull('index.docker.io/library/nginx'), 'docker.io/library/nginx');
});

test('matching never throws on hostile globs and images (fuzz)', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 60 }), (g, i) => {
      assert.equal(typeof urlsMatch(g, i), 'boolean');
      assert.equal(typeof repoToPull(i), 'string');
    }),
    { numRuns: 300 },
  );
});
