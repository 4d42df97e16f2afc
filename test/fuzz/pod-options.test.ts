// Fuzz of the pod-option parsers: host resolv.conf text, a pod's dnsPolicy/dnsConfig and sysctls
// of any shape. Never a throw; the resolver config always within the reference's limits; a
// sysctl either admitted or refused with SysctlForbidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseResolvConf } from '../../src/agent/runtime/settings/resolv-conf.js';
import {
  MAX_DNS_NAMESERVERS,
  MAX_DNS_SEARCH_LIST_CHARS,
  MAX_DNS_SEARCH_PATHS,
  podDnsConfig,
} from '../../src/agent/runtime/settings/pod-dns.js';
import {
  admitSysctls,
  safeSysctls,
  SysctlAllowlist,
} from '../../src/agent/runtime/settings/sysctls.js';
import type { Pod } from '../../src/agent/pod/types.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const word = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.constantFrom(
    'nameserver',
    'search',
    'options',
    '#',
    'net.ipv4.tcp_syncookies',
    'kernel.msgmax',
    'a/b.c',
  ),
);

test('resolv.conf text of any shape parses without throwing', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.array(word, { maxLength: 6 }).map((ws) => ws.join(' ')),
        { maxLength: 60 },
      ),
      (lines) => {
        const p = parseResolvConf(lines.join('\n'));
        for (const s of p.searches) assert.equal(s.endsWith('.'), false);
      },
    ),
    fuzzParams(300),
  );
});

test('any dnsPolicy/dnsConfig gives a config within the limits; any sysctls get an answer', () => {
  const allow = new SysctlAllowlist(safeSysctls('6.1.0'));
  fc.assert(
    fc.property(
      fc.anything(),
      fc.anything(),
      fc.array(fc.string({ maxLength: 300 }), { maxLength: 60 }),
      // sysctls reach admission decoded (pod/lenient.ts): a list of name/value strings
      fc.array(fc.record({ name: fc.string({ maxLength: 80 }), value: fc.string() }), {
        maxLength: 20,
      }),
      (policy, dnsConfig, searches, sysctls) => {
        const pod = {
          metadata: { name: 'p', namespace: 'n', uid: 'u' },
          spec: {
            containers: [{ name: 'c' }],
            dnsPolicy: policy,
            dnsConfig,
            securityContext: { sysctls },
          },
        } as unknown as Pod;
        const cfg = podDnsConfig(
          pod,
          { servers: ['1.1.1.1'], searches, options: [] },
          {
            clusterDNS: ['10.0.0.10'],
            clusterDomain: 'cluster.local',
            resolvConf: '/etc/resolv.conf',
          },
          () => undefined,
        );
        assert.ok(cfg.servers.length <= MAX_DNS_NAMESERVERS);
        assert.ok(cfg.searches.length <= MAX_DNS_SEARCH_PATHS);
        assert.ok(cfg.searches.join(' ').length <= MAX_DNS_SEARCH_LIST_CHARS);
        const r = admitSysctls(pod, allow);
        assert.ok(r.admit || r.reason === 'SysctlForbidden');
      },
    ),
    fuzzParams(300),
  );
});
