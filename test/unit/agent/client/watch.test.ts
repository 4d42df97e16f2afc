import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { createPodClient } from '../../../../src/agent/client/typed-clients.js';
import { readJsonLines } from '../../../../src/agent/client/watch.js';
import { type WatchEvent, type ApiObject } from '../../../../src/agent/client/types.js';
import { ApiError } from '../../../../src/common/util/errors.js';

test('readJsonLines splits chunks at newlines, across chunk borders', async () => {
  const chunks = ['{"a":', '1}\n{"b"', ':2}\n\n', '{"c":3}'];
  const out: unknown[] = [];
  for await (const v of readJsonLines(Readable.from(chunks.map((c) => Buffer.from(c)))))
    out.push(v);
  assert.deepEqual(out, [{ a: 1 }, { b: 2 }, { c: 3 }]);
});

function line(res: ServerResponse, type: string, object: unknown): void {
  res.write(JSON.stringify({ type, object }) + '\n');
}

test('watch lists first, resumes from the last resourceVersion (bookmarks too), relists on 410', async (t) => {
  const watchRvs: (string | null)[] = [];
  let lists = 0;
  let opens = 0;
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.searchParams.get('watch') !== 'true') {
      lists++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          metadata: { resourceVersion: lists === 1 ? '10' : '50' },
          items: [{ metadata: { name: `p${lists}`, resourceVersion: '9' } }],
        }),
      );
      return;
    }
    opens++;
    watchRvs.push(u.searchParams.get('resourceVersion'));
    assert.equal(u.searchParams.get('allowWatchBookmarks'), 'true');
    assert.equal(u.searchParams.get('fieldSelector'), 'metadata.name=p1');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (opens === 1) {
      line(res, 'ADDED', { metadata: { name: 'p1', resourceVersion: '11' } });
      line(res, 'BOOKMARK', { metadata: { resourceVersion: '15' } });
      res.end(); // disconnect: resume from 15
    } else if (opens === 2) {
      line(res, 'MODIFIED', { metadata: { name: 'p1', resourceVersion: '16' } });
      line(res, 'ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
      res.end();
    } else if (opens === 3) {
      res.destroy(); // connection broken mid-way: reopen from the relist's RV
    } else if (opens === 4) {
      line(res, 'DELETED', { metadata: { name: 'p1', resourceVersion: '51' } });
    } else {
      res.writeHead(403);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const rest = new RestClient({
    connection: {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
  });
  t.after(() => rest.close());
  const pods = createPodClient({ client: rest });
  const seen: string[] = [];
  const ac = new AbortController();
  for await (const ev of pods.watch({
    namespace: 'n',
    fieldSelector: 'metadata.name=p1',
    signal: ac.signal,
  }) as AsyncGenerator<WatchEvent<ApiObject>>) {
    seen.push(
      ev.type === 'RELIST'
        ? `RELIST:${ev.object.items.length}@${ev.object.metadata?.resourceVersion ?? ''}`
        : `${ev.type}:${ev.object.metadata?.resourceVersion ?? ''}`,
    );
    if (ev.type === 'DELETED') break;
  }
  assert.deepEqual(seen, [
    'RELIST:1@10',
    'ADDED:11',
    'BOOKMARK:15',
    'MODIFIED:16',
    'RELIST:1@50',
    'DELETED:51',
  ]);
  assert.deepEqual(watchRvs, ['10', '15', '50', '50']);
  assert.equal(lists, 2);
});

test('a watch refused with 403 ends with the ApiError; an HTTP 410 relists', async (t) => {
  let opens = 0;
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.searchParams.get('watch') !== 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: '3' }, items: [] }));
      return;
    }
    opens++;
    if (opens === 1) {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'gone' }));
    } else {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'nope' }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const rest = new RestClient({
    connection: {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
  });
  t.after(() => rest.close());
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const ev of createPodClient({ client: rest }).watch({
        namespace: 'n',
        resourceVersion: '1',
      }))
        seen.push(ev.type);
    })(),
    (e: unknown) => e instanceof ApiError && e.status === 403,
  );
  assert.deepEqual(seen, ['RELIST']);
});

test("a watch from a resourceVersion the server has not reached (plat-apiserver's and the reference's 504 ResourceVersionTooLarge, as an answer or an ERROR event) lists again from the latest", async (t) => {
  // kube-apiserver's words, written as it sends them once its store is behind the client's cursor.
  const tooLarge = {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: 'Too large resource version: 165, current: 147',
    reason: 'Timeout',
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
    code: 504,
  };
  let opens = 0;
  const listRvs: (string | null)[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.searchParams.get('watch') !== 'true') {
      listRvs.push(u.searchParams.get('resourceVersion'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: '147' }, items: [] }));
      return;
    }
    opens++;
    if (opens === 1) {
      res.writeHead(504, { 'content-type': 'application/json' });
      res.end(JSON.stringify(tooLarge));
    } else if (opens === 2) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: tooLarge })}\n`);
    } else {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'nope' }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const rest = new RestClient({
    connection: {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
  });
  t.after(() => rest.close());
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const ev of createPodClient({ client: rest }).watch({
        namespace: 'n',
        resourceVersion: '165',
      }))
        seen.push(ev.type);
    })(),
    (e: unknown) => e instanceof ApiError && e.status === 403,
  );
  assert.deepEqual(seen, ['RELIST', 'RELIST']);
  assert.deepEqual(listRvs, [null, null], 'each list asks for the latest, not the old cursor');
});
