// enableDebugFlagsHandler: /debug/flags/v on the secure server with the debugging handlers, in
// the reference's words (routes.StringFlagPutHandler, logs.GlogSetter, klog's Level.Set).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../../src/common/log/logger.js';
import { parseVerbosity } from '../../../../src/agent/server/handlers/debug-flags.js';
import { goQuote } from '../../../../src/common/util/go-quote.js';
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

test('enableDebugFlagsHandler: PUT /debug/flags/v changes the verbosity at run time; a bad value is 400, another method 406, the field false 405', async (t) => {
  const lines: string[] = [];
  const handle = createLogger({ verbosity: 0, stderr: { write: (l: string) => lines.push(l) } });
  const logger = handle.logger;
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    debugFlags: { setVerbosity: (v) => logger.setVerbosity?.(v) },
  });
  t.after(() => f.stop());
  const ca = certs.ca.certPem;
  logger.debug({}, 'hidden at 0');
  logger.info({ v: 4 }, 'V(4) hidden at 0');
  const ok = await fetchText(`${f.base}/debug/flags/v`, { ca, method: 'PUT', body: '4' });
  assert.deepEqual(
    [ok.status, ok.body, ok.headers['content-type']],
    [200, 'successfully set klog.logging.verbosity to 4\n', 'text/plain'],
  );
  logger.debug({}, 'shown at 4');
  logger.info({ v: 4 }, 'V(4) shown at 4');
  logger.info({ v: 5 }, 'V(5) hidden at 4');
  handle.flush();
  const text = lines.join('');
  assert.ok(!text.includes('hidden'), text);
  assert.ok(text.includes('shown at 4') && text.includes('V(4) shown at 4'), text);

  const bad = await fetchText(`${f.base}/debug/flags/v`, { ca, method: 'PUT', body: 'abc' });
  assert.deepEqual(
    [bad.status, bad.body],
    [
      400,
      'failed set klog.logging.verbosity abc: strconv.ParseInt: parsing "abc": invalid syntax\n',
    ],
  );
  const big = await fetchText(`${f.base}/debug/flags/v`, { ca, method: 'PUT', body: '4294967296' });
  assert.deepEqual(
    [big.status, big.body],
    [
      400,
      'failed set klog.logging.verbosity 4294967296: strconv.ParseInt: parsing "4294967296": value out of range\n',
    ],
  );
  const huge = await fetchText(`${f.base}/debug/flags/v`, {
    ca,
    method: 'PUT',
    body: '9'.repeat(5000),
  });
  assert.equal(huge.status, 400);
  const get = await fetchText(`${f.base}/debug/flags/v`, { ca });
  assert.deepEqual([get.status, get.body], [406, 'unsupported http method\n']);

  const off = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => off.stop());
  const disabled = await fetchText(`${off.base}/debug/flags/v`, { ca, method: 'PUT', body: '4' });
  assert.deepEqual([disabled.status, disabled.body], [405, 'flags endpoint is disabled.\n']);
});

test('klog Level.Set: signed base-10 int32 only; Go quoting of the value in the error', () => {
  assert.deepEqual(parseVerbosity('+3'), { verbosity: 3 });
  assert.deepEqual(parseVerbosity('-1'), { verbosity: -1 });
  assert.deepEqual(parseVerbosity('2147483647'), { verbosity: 2147483647 });
  assert.deepEqual(parseVerbosity('2147483648'), {
    error: 'strconv.ParseInt: parsing "2147483648": value out of range',
  });
  assert.deepEqual(parseVerbosity('4\n'), {
    error: 'strconv.ParseInt: parsing "4\\n": invalid syntax',
  });
  assert.deepEqual(parseVerbosity(''), { error: 'strconv.ParseInt: parsing "": invalid syntax' });
  assert.equal(goQuote('a"b\\\x00'), '"a\\"b\\\\\\x00"');
});
