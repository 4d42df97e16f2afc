// Unsafe serving defaults are loud: the reference's legacy flag defaults (anonymous on,
// AlwaysAllow, 0.0.0.0) stay, and the agent names the flags that close them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import {
  isLoopbackAddress,
  unsafeServingWarning,
} from '../../../../src/agent/config/unsafe-serving.js';
import { renderPrintConfig } from '../../../../src/agent/config/print.js';
import { buildNodeAgentFlags } from '../../../../src/agent/config/flags-type.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import jsyaml from 'js-yaml';

const flagDefaults = (over: Partial<NodeAgentConfiguration> = {}): NodeAgentConfiguration => ({
  ...defaultConfiguration('flags'),
  ...over,
});

test('the flag defaults stay the reference legacy ones (anonymous on, AlwaysAllow, 0.0.0.0) and are named unsafe with the flags that close them', () => {
  const c = flagDefaults();
  assert.equal(c.authentication.anonymous.enabled, true);
  assert.equal(c.authorization.mode, 'AlwaysAllow');
  assert.equal(c.address, '0.0.0.0');
  const w = unsafeServingWarning(c) ?? '';
  assert.match(w, /serves \/exec, \/run, \/attach and \/portForward on 0\.0\.0\.0:10250/);
  assert.match(w, /anonymous requests are accepted .* every request is allowed/);
  for (const flag of ['--anonymous-auth=false', '--authorization-mode=Webhook', '--address'])
    assert.ok(w.includes(flag), `${flag} named in: ${w}`);
});

test('each opening alone is named; a loopback address, Webhook without anonymous, or no command endpoints is quiet', () => {
  const anonOnly =
    unsafeServingWarning(
      flagDefaults({ authorization: { ...flagDefaults().authorization, mode: 'Webhook' } }),
    ) ?? '';
  assert.match(anonOnly, /anonymous requests are accepted/);
  assert.doesNotMatch(anonOnly, /every request is allowed/);
  const allowOnly =
    unsafeServingWarning(
      flagDefaults({
        authentication: { ...flagDefaults().authentication, anonymous: { enabled: false } },
      }),
    ) ?? '';
  assert.match(allowOnly, /every request is allowed/);
  assert.doesNotMatch(allowOnly, /anonymous requests/);
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', 'localhost'])
    assert.equal(unsafeServingWarning(flagDefaults({ address })), undefined, address);
  assert.equal(
    unsafeServingWarning(defaultConfiguration('file')),
    undefined,
    'file-mode defaults: anonymous off, Webhook',
  );
  assert.equal(unsafeServingWarning(flagDefaults({ enableDebuggingHandlers: false })), undefined);
  assert.equal(unsafeServingWarning(flagDefaults({ enableServer: false })), undefined);
  assert.equal(isLoopbackAddress('10.0.0.1'), false);
  assert.equal(isLoopbackAddress('::'), false);
});

test('--print-config marks an unsafe configuration with a comment first; the output still loads as the same two documents', () => {
  const flags = buildNodeAgentFlags(FLAGS, new Map());
  const unsafe = renderPrintConfig(flagDefaults(), flags);
  assert.match(
    unsafe.split('\n')[0] ?? '',
    /^# WARNING \(unsafe\): the agent serves \/exec, \/run, \/attach and \/portForward .*--anonymous-auth=false, --authorization-mode=Webhook, --address=127\.0\.0\.1/,
  );
  const docs = jsyaml.loadAll(unsafe) as { kind: string }[];
  assert.deepEqual(
    docs.map((d) => d.kind),
    ['NodeAgentConfiguration', 'NodeAgentFlags'],
  );
  const safe = renderPrintConfig(flagDefaults({ address: '127.0.0.1' }), flags);
  assert.ok(!safe.includes('WARNING'), safe.slice(0, 200));
});
