// --data-dir: nothing acknowledged is lost on kill -9, resourceVersions continue after a
// restart, and a watch resumes across the restart from a resourceVersion of before it.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'pa-persist-'));
const dataDir = join(root, 'data');
const certDir = join(root, 'certs');
let api: StartedApiServer | undefined;
after(async () => {
  await api?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('acknowledged writes survive kill -9; rv continues; watch resumes from before the restart', async () => {
  const first = await startApiServer({ dataDir, certDir });
  api = first;
  const base = '/api/v1/namespaces/default/events';
  const start = await first.request('GET', base);
  const rv0 = String((start.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  let lastRv = 0;
  for (let i = 0; i < 30; i++) {
    const r = await first.request('POST', base, { body: eventBody(`p${i}`, 'default') });
    assert.equal(r.status, 201);
    lastRv = Number((r.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  }
  await first.request('DELETE', `${base}/p3`);
  await first.kill();
  const second = await startApiServer({ dataDir, certDir });
  api = second;
  const list = await second.request('GET', base);
  const names = (list.json?.['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name);
  for (let i = 0; i < 30; i++) assert.equal(names.includes(`p${i}`), i !== 3, `p${i}`);
  const next = await second.request('POST', base, { body: eventBody('after-restart', 'default') });
  assert.ok(Number((next.json?.['metadata'] as Record<string, unknown>)['resourceVersion']) > lastRv + 1);
  const w = await second.watch(`${base}?watch=true&resourceVersion=${rv0}`);
  try {
    const seen: string[] = [];
    for (let i = 0; i < 32; i++) {
      const e = await w.next();
      seen.push(`${e.type}:${String((e.object['metadata'] as Record<string, unknown>)['name'])}`);
    }
    assert.equal(seen[0], 'ADDED:p0');
    assert.equal(seen[30], 'DELETED:p3');
    assert.equal(seen[31], 'ADDED:after-restart');
  } finally {
    w.close();
  }
});
