import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { makeCa, makeLeaf } from '../../../helpers/server-tls-certs.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ClientCertificateWatch } from '../../../../src/agent/node/events/client-certificate.js';

test('a new client certificate in the API client is reported as CertificateRotated, with its time left', async () => {
  const ca = await makeCa('c');
  const notAfter1 = new Date(Date.now() + 3600_000);
  const first = await makeLeaf(ca, {
    subject: 'CN=system:node:n1',
    usage: 'client',
    notAfter: notAfter1,
  });
  const second = await makeLeaf(ca, {
    subject: 'CN=system:node:n1',
    usage: 'client',
    notAfter: new Date(Date.now() + 7200_000),
  });
  const clock = new ManualClock(Date.now());
  const rest = { connectionConfig: { certPem: first.certPem } };
  const events: string[] = [];
  const w = new ClientCertificateWatch({
    rest,
    clock,
    logger: silentLogger(),
    nodeName: 'n1',
    events: {
      event: (o, type, reason, message) =>
        events.push(`${o.kind}/${o.name} ${type} ${reason}: ${message}`),
    },
  });
  const ttl = w.ttlSeconds();
  assert.ok(ttl !== undefined && Math.abs(ttl - 3600) < 2, `ttl ${ttl}`);
  w.check();
  assert.deepEqual(events, []);
  rest.connectionConfig = { certPem: second.certPem };
  w.check();
  assert.equal(events.length, 1);
  assert.match(
    events[0]!,
    /^Node\/n1 Normal CertificateRotated: Rotated the client certificate; the new one expires \d{4}-/,
  );
  assert.ok(Math.abs((w.ttlSeconds() ?? 0) - 7200) < 2);
});
