// Pod resolv.conf against the reference's rules, limits and messages (pkg/kubelet/network/dns).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  podDnsConfig,
  type DnsWarning,
  type PodDnsSettings,
} from '../../../../../src/agent/runtime/settings/pod-dns.js';
import {
  formatResolvConf,
  parseResolvConf,
  type DnsConfig,
} from '../../../../../src/agent/runtime/settings/resolv-conf.js';
import type { Pod } from '../../../../../src/agent/pod/types.js';

const host: DnsConfig = {
  servers: ['192.168.0.1'],
  searches: ['corp.example'],
  options: ['edns0'],
};
const cluster: PodDnsSettings = {
  clusterDNS: ['10.0.0.10'],
  clusterDomain: 'cluster.local',
  resolvConf: '/etc/resolv.conf',
};

function pod(spec: Record<string, unknown> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { containers: [{ name: 'c' }], ...spec },
  };
}
function run(
  p: Pod,
  s: PodDnsSettings = cluster,
  h: DnsConfig = host,
): { cfg: DnsConfig; warnings: DnsWarning[] } {
  const warnings: DnsWarning[] = [];
  return { cfg: podDnsConfig(p, h, s, (w) => warnings.push(w)), warnings };
}

test('ClusterFirst: the cluster DNS only, the cluster search path then the host search, ndots:5', () => {
  const { cfg, warnings } = run(pod());
  assert.equal(
    formatResolvConf(cfg),
    'nameserver 10.0.0.10\nsearch shop.svc.cluster.local svc.cluster.local cluster.local corp.example\noptions ndots:5\n',
  );
  assert.deepEqual(warnings, []);
});

test('ClusterFirst on the host network falls back to Default; ClusterFirstWithHostNet keeps the cluster DNS', () => {
  assert.deepEqual(run(pod({ hostNetwork: true })).cfg, host);
  assert.deepEqual(
    run(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' })).cfg.servers,
    ['10.0.0.10'],
  );
  assert.deepEqual(run(pod({ dnsPolicy: 'Default' })).cfg, host);
});

test('None takes only dnsConfig; dnsConfig options override by name and add new ones', () => {
  const none = run(
    pod({
      dnsPolicy: 'None',
      dnsConfig: {
        nameservers: ['1.1.1.1'],
        searches: ['a.example'],
        options: [{ name: 'ndots', value: '2' }],
      },
    }),
  ).cfg;
  assert.equal(formatResolvConf(none), 'nameserver 1.1.1.1\nsearch a.example\noptions ndots:2\n');
  const merged = run(
    pod({
      dnsConfig: {
        nameservers: ['10.0.0.10', '8.8.8.8'],
        options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
      },
    }),
  ).cfg;
  assert.deepEqual(merged.servers, ['10.0.0.10', '8.8.8.8'], 'duplicates merged');
  assert.deepEqual(merged.options, ['ndots:2', 'edns0']);
});

test('no --cluster-dns: ClusterFirst falls back to Default with the reference MissingClusterDNS warning', () => {
  const { cfg, warnings } = run(pod(), { ...cluster, clusterDNS: [] });
  assert.deepEqual(cfg, host);
  assert.equal(warnings[0]?.reason, 'MissingClusterDNS');
  assert.match(
    warnings[0]?.message ?? '',
    /cannot create Pod using "ClusterFirst" policy\. Falling back to "Default" policy\.$/,
  );
});

test('--resolv-conf="" gives a loopback resolver and search "."', () => {
  const { cfg } = run(
    pod({ dnsPolicy: 'Default' }),
    { ...cluster, resolvConf: '' },
    { servers: [], searches: [], options: [] },
  );
  assert.equal(formatResolvConf(cfg), 'nameserver 127.0.0.1\nsearch .\n');
});

test('at most 3 nameservers, with the reference DNSConfigForming message', () => {
  const { cfg, warnings } = run(
    pod({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'] },
    }),
  );
  assert.deepEqual(cfg.servers, ['1.1.1.1', '2.2.2.2', '3.3.3.3']);
  assert.deepEqual(warnings, [
    {
      reason: 'DNSConfigForming',
      message:
        'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 1.1.1.1 2.2.2.2 3.3.3.3',
    },
  ]);
});

test('at most 32 search domains and 2048 characters, with the reference message', () => {
  const many = Array.from({ length: 35 }, (_, i) => `d${i}.example`);
  const { cfg, warnings } = run(pod({ dnsPolicy: 'None', dnsConfig: { searches: many } }));
  assert.equal(cfg.searches.length, 32);
  assert.equal(
    warnings[0]?.message,
    `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${many.slice(0, 32).join(' ')}`,
  );
  const long = Array.from(
    { length: 20 },
    (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(118)}`,
  );
  const r = run(pod({ dnsPolicy: 'None', dnsConfig: { searches: long } }));
  assert.equal(r.cfg.searches.length, 16, '16 x 121 - 1 = 1935 characters fit, 17 would be 2056');
  assert.equal(r.warnings[0]?.reason, 'DNSConfigForming');
});

test('parseResolvConf: nameservers accumulate, the last search and options lines win, trailing dots drop', () => {
  const p = parseResolvConf(
    '# c\nnameserver 1.1.1.1\nsearch a.example.\nsearch b.example. c.example\nnameserver 2.2.2.2\noptions ndots:1\noptions rotate\n',
  );
  assert.deepEqual(
    [p.servers, p.searches, p.options],
    [['1.1.1.1', '2.2.2.2'], ['b.example', 'c.example'], ['rotate']],
  );
  assert.deepEqual(parseResolvConf('nameserver\n').errors, ['nameserver list is empty ']);
});
