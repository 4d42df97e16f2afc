// enableSystemLogQuery (NodeLogQuery): /logs/?query=... as the reference's log server
// (kubelet_server_journal.go, kubelet.go logServer, Kubernetes 1.32): journalctl with the
// reference's arguments for services journald knows, the /var/log heuristics for the others, one
// file by path, and the reference's answers to bad queries (400 parse, 406 validation).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseNodeLogQuery,
  validateNodeLogQuery,
} from '../../../../src/agent/server/handlers/node-log-query/query.js';
import { journalArgs } from '../../../../src/agent/server/handlers/node-log-query/journal.js';
import { fetchText } from '../../../helpers/server-https-request.js';
import {
  startServerFixture,
  makeServerCerts,
  type ServerCerts,
} from '../../../helpers/server-fixture.js';

let certs: ServerCerts;
before(async () => {
  certs = await makeServerCerts();
});

/** A journalctl that knows kubelet.service and records its arguments. */
async function fakeJournalctl(
  dir: string,
): Promise<{ path: string; calls: () => Promise<string[][]> }> {
  const path = join(dir, 'journalctl');
  const record = join(dir, 'calls');
  await writeFile(
    path,
    `#!/bin/sh\nprintf '%s\\037' "$@" >> '${record}'\necho >> '${record}'\nif [ "$1" = "--field" ]; then printf 'kubelet.service\\nsshd.service\\n'; else echo "journal lines"; fi\n`,
  );
  await chmod(path, 0o755);
  return {
    path,
    calls: async () =>
      (await readFile(record, 'utf8').catch(() => ''))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\x1f').filter((a) => a !== '')),
  };
}

test('enableSystemLogQuery: /logs/?query= runs journalctl with the reference arguments, falls back to /var/log heuristics, serves one file; bad queries get 400/406 in the reference words', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-logquery-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const journal = await fakeJournalctl(dir);
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    systemLogQuery: { journalctl: journal.path },
  });
  t.after(() => f.stop());
  await writeFile(join(f.dir, 'log', 'kube-proxy.log'), 'proxy started\n');
  const ca = certs.ca.certPem;
  const get = (q: string, headers?: Record<string, string>) =>
    fetchText(`${f.base}/logs/${q}`, { ca, ...(headers ? { headers } : {}) });

  const svc = await get('?query=kubelet&tailLines=5&sinceTime=2026-09-24T01:02:03Z&pattern=err');
  assert.deepEqual(
    [svc.status, svc.headers['content-type'], svc.body],
    [200, 'text/plain;charset=UTF-8', 'journal lines\n'],
  );
  const calls = await journal.calls();
  assert.deepEqual(calls.at(-1), [
    '--utc',
    '--no-pager',
    '--output=short-precise',
    '--since=2026-9-24 1:2:3',
    '--pager-end',
    '--lines=5',
    '--unit=kubelet',
    '--grep=err',
  ]);
  assert.deepEqual(calls[0], ['--field', '_SYSTEMD_UNIT']);
  assert.equal(
    (await get('?query=kube-proxy')).body,
    'proxy started\n',
    'not in the journal: /var/log/<service>.log',
  );
  assert.equal((await get('?query=nothing')).body, '\nlog not found for nothing\n');
  assert.equal(
    (await get('?query=kube-proxy&tailLines=2')).body,
    '\noptions present and query resolved to log files for [kube-proxy]\ntry without specifying options\n',
  );
  assert.equal(
    (await get('?query=/syslog')).body,
    'hello from the node log\n',
    'a path is a file query',
  );
  assert.equal(
    (await get('syslog')).body,
    'hello from the node log\n',
    'without a query the files are served as before',
  );

  const answers: [string, number, string][] = [
    ['syslog?query=kubelet', 406, 'path not allowed in query mode\n'],
    [
      '?tailLines=x',
      400,
      'tailLines: Invalid value: "x": strconv.Atoi: parsing "x": invalid syntax\n',
    ],
    ['?query=%20', 400, 'query: Invalid value: []string{" "}: query cannot be empty\n'],
    [
      '?query=a&query=b/c',
      406,
      'query: Invalid value: "[b/c], [a]": cannot specify a file and service\n',
    ],
    ['?query=kubelet&boot=1', 406, 'boot: Invalid value: 1: must be less than 1\n'],
    [
      '?query=kubelet&tailLines=100001',
      406,
      'tailLines: Invalid value: 100001: must be between 0 and 100000, inclusive\n',
    ],
    ['?query=a;rm', 406, 'query: Invalid value: "a;rm": input contains unsupported characters\n'],
    [
      '?query=a&query=b&query=c&query=d&query=e',
      406,
      'query: Too many: 5: must have at most 4 items\n',
    ],
    ['?sinceTime=yesterday', 400, 'sinceTime: Invalid value: "yesterday": invalid time format\n'],
    ['?tailLines=3', 406, 'query: Required value: cannot be empty with options\n'],
    [
      '?query=/nope.log',
      406,
      `query: Invalid value: []string{"/nope.log"}: stat ${join(f.dir, 'log')}/nope.log: no such file or directory\n`,
    ],
    [
      '?query=kubelet&sinceTime=2026-01-02T00:00:00Z&untilTime=2026-01-01T00:00:00Z',
      406,
      'untilTime: Invalid value: 2026-01-01 00:00:00 +0000 UTC: must be after `sinceTime`\n',
    ],
    [
      '?query=kubelet&boot=1&tailLines=-1',
      406,
      '[boot: Invalid value: 1: must be less than 1, tailLines: Invalid value: -1: must be between 0 and 100000, inclusive]\n',
    ],
  ];
  for (const [q, status, body] of answers) {
    const r = await get(q);
    assert.deepEqual([r.status, r.body], [status, body], q);
  }
  const before = (await journal.calls()).length;
  await get('?query=a;rm');
  assert.equal(
    (await journal.calls()).length,
    before,
    'an unsafe service name never reaches journalctl',
  );

  const off = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => off.stop());
  const plain = await fetchText(`${off.base}/logs/?query=kubelet`, { ca });
  assert.equal(plain.status, 200);
  assert.match(plain.body, /syslog/, 'enableSystemLogQuery false: the directory listing, no query');
});

test('node log query with the host journalctl: a service journald does not know is read from the log directory', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-logquery-real-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    systemLogQuery: { journalctl: 'journalctl' },
  });
  t.after(() => f.stop());
  await writeFile(join(f.dir, 'log', 'nodeagent-test-service-xyz.log'), 'from the file\n');
  const r = await fetchText(`${f.base}/logs/?query=nodeagent-test-service-xyz`, {
    ca: certs.ca.certPem,
  });
  assert.deepEqual([r.status, r.body], [200, 'from the file\n']);
});

test('journalctl arguments: until, boot; the wall clock of the given offset, as the reference formats it', async () => {
  const { query } = parseNodeLogQuery(
    new URLSearchParams('query=kubelet&untilTime=2026-03-04T05:06:07%2B02:00&boot=-1'),
  );
  assert.ok(query !== undefined);
  assert.deepEqual(await validateNodeLogQuery(query, '/var/log'), []);
  assert.deepEqual(journalArgs(query, ['kubelet']), [
    '--utc',
    '--no-pager',
    '--output=short-precise',
    '--until=2026-3-4 5:6:7',
    '--unit=kubelet',
    '--boot',
    '-1',
  ]);
  assert.equal(
    parseNodeLogQuery(new URLSearchParams('other=1')).query,
    undefined,
    'no known parameter: the file server answers',
  );
});
