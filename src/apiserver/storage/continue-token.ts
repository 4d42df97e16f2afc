// Continue tokens, in the reference's format: unpadded base64url of
// {"v":"meta.{domain}/v1","rv":N,"start":"<next key, relative to the list prefix>"}.

import { badRequest } from '../status.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import { recordOf } from '../../common/util/json-shape.js';

export interface ContinueToken {
  /** The snapshot revision; -1 means "from the latest" (the fresh token of an expired one). */
  readonly rv: number;
  readonly start: string;
}

export function encodeContinue(domain: string, token: ContinueToken): string {
  return Buffer.from(
    JSON.stringify({ v: `meta.${domain}/v1`, rv: token.rv, start: token.start }),
  ).toString('base64url');
}

export function decodeContinue(domain: string, text: string): ContinueToken {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new Error('illegal base64 data');
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch (err) {
    throw badRequest(`invalid continue token: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object')
    throw badRequest('invalid continue token: not an object');
  const p = recordOf(parsed);
  if (p['v'] !== `meta.${domain}/v1`) {
    throw badRequest(
      `invalid continue token: continue key is not valid: server does not recognize ` +
        `this encoded key`,
    );
  }
  const rv = p['rv'];
  const start = p['start'];
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv === 0 || rv < -1) {
    throw badRequest(
      `invalid continue token: continue key is not valid: incorrect encoded start ` +
        `resourceVersion (version ${REFERENCE_NAMES.groups.meta}/v1)`,
    );
  }
  if (typeof start !== 'string' || start === '') {
    throw badRequest('invalid continue token: continue key is not valid: encoded start key empty');
  }
  if (start.split('/').includes('..') || start.startsWith('/')) {
    throw badRequest(
      'invalid continue token: continue key is not valid: path traversal attempt detected',
    );
  }
  return { rv, start };
}
