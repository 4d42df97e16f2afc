import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderHelp } from '../../../../src/agent/cli/help.js';
import { FLAGS, flagByName } from '../../../../src/agent/cli/flags.js';
import { defaultPhrase, flagUsage, markers } from '../../../../src/agent/cli/describe.js';
import { KNOWN_FEATURE_GATES } from '../../../../src/agent/cli/feature-gates.js';

// Wide enough that no usage wraps: the content checks read each flag on one line.
const UNWRAPPED = 100_000;

test('help has the usage line and every flag with its type, help text, default and markers', () => {
  const help = renderHelp(UNWRAPPED);
  assert.match(help, /^Usage:\n {2}nodeagent \[flags\]$/m);
  for (const f of FLAGS) {
    assert.ok(help.includes(`--${f.name}`), `--${f.name} in help`);
    assert.ok(help.includes(flagUsage(f).split('\n')[0] ?? ''), `--${f.name} usage in help`);
  }
  assert.match(help, /^ {6}--address string {3,}IP address .* \(default "0\.0\.0\.0"\) \[cfg\]$/m);
  assert.match(help, /^ {2}-v, --v int {3,}Log verbosity level\.$/m);
  assert.match(help, /^ {2}-h, --help {3,}Print this help and exit\.$/m);
  assert.match(help, /^ {6}--version version\[=true\] {3,}/m);
  assert.match(
    help,
    /^ {6}--fail-swap-on {3,}Refuse to start when swap is enabled on the host\. \(default true\) \[cfg\]$/m,
  );
  assert.match(
    help,
    /--maximum-dead-containers int32 .*\(default -1\) \[dep: Use --eviction-hard or --eviction-soft instead\. Will be removed in a future version\.\]$/m,
  );
  assert.match(help, /--lock-file string .* \[alpha\]$/m);
  assert.match(help, /--container-log-max-files int32 .*\(default 5\) \[cfg\] \[beta\]$/m);
  for (const g of KNOWN_FEATURE_GATES)
    assert.ok(
      help.includes(`${g.name}=true|false (${g.stage.toUpperCase()} - default=${g.default})`),
      g.name,
    );
});

test('flags are listed by name, as the reference sorts them', () => {
  const help = renderHelp(UNWRAPPED);
  const listed = [...help.matchAll(/^ {2}(?:-\w, | {4})--([a-z0-9-]+)/gm)].map((m) => m[1] ?? '');
  assert.equal(listed.length, FLAGS.length);
  assert.deepEqual(listed, [...listed].sort());
});

test('defaults and markers read as the spec shows them', () => {
  const get = (n: string) => {
    const f = flagByName(n);
    assert.ok(f, n);
    return f;
  };
  assert.equal(defaultPhrase(get('sync-frequency')), '(default 1m0s)');
  assert.equal(defaultPhrase(get('cgroup-root')), '(default: empty (runtime default))');
  assert.equal(defaultPhrase(get('authorization-mode')), '(default "AlwaysAllow")');
  assert.equal(defaultPhrase(get('config')), '');
  assert.deepEqual(markers(get('qos-reserved')), ['[cfg]', '[alpha]']);
  assert.deepEqual(markers(get('experimental-mounter-path')), [
    '[dep: will be removed in 1.25 or later, in favor of using CSI.]',
  ]);
  assert.deepEqual(markers(get('node-ip')), []);
});
