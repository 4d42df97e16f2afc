// A controller's per-pass read of the objects under a prefix: a row whose revision is unchanged
// gives its earlier facts without a decode; a changed row is decoded again; a row that cannot be
// decoded is left out (and tried again next pass), reported once per key and revision; a deleted
// key's facts are forgotten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RowFacts, type FactsStore } from '../../../../src/apiserver/controllers/row-facts.js';
import type { RawRevision, StoredObject } from '../../../../src/apiserver/storage/store.js';

class Rows implements FactsStore {
  rows: RawRevision[] = [];
  decoded: string[] = [];
  broken = new Set<string>();
  currentRevision(): number {
    return 100;
  }
  rangeRaw(from: string, to: string): RawRevision[] {
    return this.rows.filter((r) => r.key >= from && r.key < to);
  }
  decode(key: string, rv: number, value: Uint8Array): Promise<StoredObject> {
    this.decoded.push(`${key}@${rv}`);
    if (this.broken.has(key)) return Promise.reject(new Error('cannot decrypt'));
    return Promise.resolve(JSON.parse(Buffer.from(value).toString()) as StoredObject);
  }
}

const row = (key: string, rv: number, renew: string): RawRevision => ({
  key,
  rv,
  type: 'MODIFIED',
  value: Buffer.from(JSON.stringify({ spec: { renewTime: renew } })),
});

test('unchanged rows are not decoded again; changed, broken and deleted rows are handled per pass', async () => {
  const store = new Rows();
  const told: string[] = [];
  const facts = new RowFacts(
    store,
    '/l/',
    (o) => String((o['spec'] as { renewTime: string }).renewTime),
    (key, rv, err) => told.push(`${key}@${rv}: ${(err as Error).message}`),
  );
  store.rows = [row('/l/a', 1, 't1'), row('/l/b', 2, 't1'), row('/m/x', 3, 'other prefix')];
  assert.deepEqual(await facts.read(), ['t1', 't1']);
  assert.deepEqual(store.decoded, ['/l/a@1', '/l/b@2']);

  store.decoded = [];
  store.rows = [row('/l/a', 1, 't1'), row('/l/b', 5, 't2')];
  assert.deepEqual(await facts.read(), ['t1', 't2']);
  assert.deepEqual(store.decoded, ['/l/b@5'], 'only the row whose revision moved');

  store.decoded = [];
  store.broken.add('/l/a');
  store.rows = [row('/l/a', 6, 't3'), row('/l/b', 5, 't2')];
  assert.deepEqual(await facts.read(), ['t2'], 'a row that cannot be decoded is left out');
  assert.deepEqual(await facts.read(), ['t2']);
  assert.deepEqual(store.decoded, ['/l/a@6', '/l/a@6'], 'and tried again at the next pass');
  assert.deepEqual(told, ['/l/a@6: cannot decrypt'], 'said once for that revision');
  store.rows = [row('/l/a', 8, 't3'), row('/l/b', 5, 't2')];
  await facts.read();
  assert.deepEqual(
    told,
    ['/l/a@6: cannot decrypt', '/l/a@8: cannot decrypt'],
    'and again for a new revision',
  );

  store.decoded = [];
  store.broken.clear();
  store.rows = [row('/l/a', 7, 't4')];
  assert.deepEqual(await facts.read(), ['t4']);
  store.rows = [row('/l/a', 7, 't4'), row('/l/b', 5, 't2')];
  assert.deepEqual(await facts.read(), ['t4', 't2']);
  assert.deepEqual(
    store.decoded,
    ['/l/a@7', '/l/b@5'],
    'a deleted key is forgotten, then read anew',
  );
});
