// Fuzzing the surfaces of server-side printing and the events.k8s.io view: any Accept header
// and includeObject value is either served or answered with a StatusError (400/406), never a
// crash; any stored Event (hostile shapes included) prints and converts without throwing, and
// converting to events.k8s.io/v1 and back keeps every field the mapping covers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { responseConversion } from '../../src/apiserver/handlers/table.js';
import { eventDef } from '../../src/apiserver/registry/resources/event.js';
import {
  eventFromStorage,
  eventToStorage,
} from '../../src/apiserver/registry/resources/events-v1-convert.js';
import { StatusError } from '../../src/apiserver/status.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const piece = fc.oneof(
  fc.constantFrom(
    'application/json',
    '*/*',
    'as=Table',
    'as=PartialObjectMetadata',
    'as=PartialObjectMetadataList',
    'g=meta.k8s.io',
    'v=v1',
    'v=v1beta1',
    'v=v2',
    ';',
    ',',
    '=',
    ' ',
  ),
  fc.string({ maxLength: 12 }),
);
const accept = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
const anyValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
);
const hostileEvent = fc.record(
  {
    metadata: fc.oneof(
      fc.record({ name: fc.string({ maxLength: 10 }), namespace: fc.string({ maxLength: 10 }) }),
      anyValue,
    ),
    involvedObject: fc.oneof(
      fc.record({ kind: fc.string({ maxLength: 8 }), name: fc.string({ maxLength: 8 }) }),
      anyValue,
    ),
    source: anyValue,
    series: anyValue,
    message: anyValue,
    count: anyValue,
    firstTimestamp: anyValue,
    lastTimestamp: anyValue,
    eventTime: anyValue,
    reportingComponent: anyValue,
  },
  { requiredKeys: [] },
);

test('any Accept header and includeObject: a conversion, nothing, or a 400/406 StatusError', () => {
  fc.assert(
    fc.property(accept, fc.option(fc.string({ maxLength: 12 })), hostileEvent, (a, include, ev) => {
      const search = new URLSearchParams(
        include === null ? '' : `includeObject=${encodeURIComponent(include)}`,
      );
      try {
        const c = responseConversion({
          headers: { accept: a },
          search,
          def: eventDef,
          platformDomain: 'k8s.io',
          now: () => new Date(0),
        });
        if (c === undefined) return;
        for (const call of [() => c.list([ev], {}), () => c.one(ev), () => c.watch()(ev)]) {
          try {
            call();
          } catch (err) {
            assert.ok(err instanceof StatusError && err.status === 406, String(err));
          }
        }
      } catch (err) {
        assert.ok(
          err instanceof StatusError && (err.status === 400 || err.status === 406),
          String(err),
        );
      }
    }),
    fuzzParams(300),
  );
});

test('events.k8s.io/v1 conversion: never throws; a round trip keeps the mapped fields', () => {
  fc.assert(
    fc.property(hostileEvent, (ev) => {
      const v1 = eventFromStorage(ev);
      const back = eventToStorage(v1);
      for (const f of [
        'involvedObject',
        'message',
        'source',
        'count',
        'firstTimestamp',
        'lastTimestamp',
        'series',
        'reportingComponent',
      ] as const) {
        const v = ev[f];
        const kept =
          v !== undefined &&
          v !== null &&
          v !== '' &&
          v !== 0 &&
          !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
        if (kept) assert.deepEqual(back[f], v, f);
      }
    }),
    fuzzParams(300),
  );
});
