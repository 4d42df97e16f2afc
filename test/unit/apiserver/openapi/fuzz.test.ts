// The /openapi answers under hostile input: any Accept, If-None-Match, If-Modified-Since, hash and
// path gives one of the answers kube-openapi gives (200, 301, 304, 406, or no document: 404),
// never a throw; a 304 only when the client sent a validator; a 200 body is JSON unless it is
// /openapi/v2 answered as gnostic's protobuf.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { openApiFor } from '../../../helpers/openapi-catalog.js';

const o = openApiFor('kubernetes', new ManualClock());
const keys = Object.keys(o.index().paths);
const hashes = Object.values(o.index().paths).map(
  (p) => p.serverRelativeURL.split('hash=')[1] ?? '',
);

const mediaTypes = fc.constantFrom(
  'application/json',
  '*/*',
  'application/*',
  'text/html',
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
  ';;',
  ',',
  'application/json;q=0',
  'application/json;q=abc',
);
const accept = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(mediaTypes, { maxLength: 6 }).map((xs) => xs.join(', ')),
  fc.constant(undefined),
);
const path = fc.oneof(
  fc.constantFrom('/openapi/v2', '/openapi/v3', ...keys.map((k) => `/openapi/v3/${k}`)),
  fc.string({ maxLength: 80 }).map((s) => `/openapi/v3/${s}`),
);

test('any request headers and paths: one of the reference answers, never a throw', () => {
  fc.assert(
    fc.property(
      path,
      accept,
      fc.option(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.constantFrom(...hashes.map((h) => `"${h}"`), '*'),
        ),
      ),
      fc.option(fc.string({ maxLength: 60 })),
      fc.option(fc.oneof(fc.string({ maxLength: 130 }), fc.constantFrom(...hashes))),
      (p, a, inm, ims, hash) => {
        const search = new URLSearchParams(hash === null ? '' : `hash=${encodeURIComponent(hash)}`);
        const r = o.answer(p, {
          method: 'GET',
          search,
          accept: a,
          ifNoneMatch: inm ?? undefined,
          ifModifiedSince: ims ?? undefined,
        });
        if (r === undefined) return;
        assert.ok([200, 301, 304, 406].includes(r.status), `status ${r.status}`);
        if (r.status === 304)
          assert.ok(inm !== null || ims !== null, '304 without If-None-Match or If-Modified-Since');
        if (r.status === 200 && r.headers['Content-Type'] === 'application/json')
          JSON.parse(r.body.toString('utf8'));
        else if (r.status === 200)
          assert.ok(
            p === '/openapi/v2' &&
              String(r.headers['Content-Type']).includes('proto-openapi.spec.v2'),
            `${p}: ${r.headers['Content-Type']}`,
          );
      },
    ),
    fuzzParams(300),
  );
});
