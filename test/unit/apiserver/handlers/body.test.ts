// Reading a request body (handlers/body.ts): every chunk in order, 413 past the limit whether or
// not the length was declared, an error (never a hang) when the client goes away mid-body.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { readBodyBytes } from '../../../../src/apiserver/handlers/body.js';
import { StatusError } from '../../../../src/apiserver/status.js';

function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

test('a body in several chunks is read whole, in order', async () => {
  const req = request();
  const body = readBodyBytes(req, 100);
  req.push(Buffer.from('{"a":'));
  req.push(Buffer.from('1}'));
  req.push(null);
  assert.equal((await body).toString('utf8'), '{"a":1}');
});

test('a chunked body past the limit is the reference 413 RequestEntityTooLarge, and the rest is drained', async () => {
  const req = request();
  const body = readBodyBytes(req, 4);
  req.push(Buffer.from('abc'));
  req.push(Buffer.from('def'));
  req.push(Buffer.from('ghi'));
  req.push(null);
  await assert.rejects(
    body,
    (err: unknown) =>
      err instanceof StatusError &&
      err.toStatus().code === 413 &&
      err.toStatus().reason === 'RequestEntityTooLarge',
  );
  if (!req.readableEnded) await new Promise((resolve) => req.once('end', resolve));
  assert.equal(req.readableEnded, true);
});

test('a declared length past the limit is refused before reading', async () => {
  await assert.rejects(
    readBodyBytes(request({ 'content-length': '5' }), 4),
    (err: unknown) => err instanceof StatusError && err.toStatus().code === 413,
  );
});

test('a request that closes before its body ends is an error, not a wait', async () => {
  const req = request();
  const body = readBodyBytes(req, 100);
  req.push(Buffer.from('{"a":'));
  req.destroy();
  await assert.rejects(body);
});

test('an empty body and an already read one are empty', async () => {
  const req = request();
  const body = readBodyBytes(req, 100);
  req.push(null);
  assert.equal((await body).length, 0);
  assert.equal((await readBodyBytes(req, 100)).length, 0);
});
