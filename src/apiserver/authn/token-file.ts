// --token-auth-file: a CSV of `token,user,uid,"group1,group2"` lines; requests carry
// `Authorization: Bearer <token>`.

import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { FlagError, userMessage } from '../../common/util/errors.js';
import { bearerToken } from '../../common/auth/bearer-token.js';

/** Splits one CSV record (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (quoted) throw new Error('unterminated quoted field');
  out.push(cur);
  return out;
}

export function parseTokenFile(text: string, file: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let fields: string[];
    try {
      fields = csvFields(line);
    } catch (err) {
      throw new FlagError(`--token-auth-file ${file}: line ${i + 1}: ${userMessage(err)}`, {
        flag: 'token-auth-file',
      });
    }
    if (fields.length < 3) {
      throw new FlagError(
        `--token-auth-file ${file}: line ${i + 1}: want at least 3 columns (token,user,` +
          `uid[,"group1,group2"]), got ${fields.length}`,
        {
          flag: 'token-auth-file',
        },
      );
    }
    const [token = '', user = '', uid = '', groups = ''] = fields;
    if (token === '' || user === '') {
      throw new FlagError(
        `--token-auth-file ${file}: line ${i + 1}: token and user name must not be empty`,
        { flag: 'token-auth-file' },
      );
    }
    if (tokens.has(token)) {
      throw new FlagError(`--token-auth-file ${file}: line ${i + 1}: duplicate token`, {
        flag: 'token-auth-file',
      });
    }
    tokens.set(token, {
      username: user,
      uid,
      groups: groups
        .split(',')
        .map((g) => g.trim())
        .filter((g) => g !== ''),
    });
  });
  return tokens;
}

export function loadTokenFile(file: string): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new FlagError(`--token-auth-file ${file}: ${userMessage(err)}`, {
      flag: 'token-auth-file',
    });
  }
  return parseTokenFile(text, file);
}

export function tokenFileAuthenticator(tokens: ReadonlyMap<string, UserInfo>): Authenticator {
  const entries = [...tokens.entries()].map(([t, u]) => ({ token: Buffer.from(t), user: u }));
  return {
    authenticate: (req): Promise<AuthenticationResult> => {
      const token = bearerToken(req);
      if (token === undefined) return Promise.resolve({ kind: 'no-opinion' });
      const given = Buffer.from(token);
      for (const e of entries) {
        if (e.token.length === given.length && timingSafeEqual(e.token, given))
          return Promise.resolve({ kind: 'authenticated', user: e.user });
      }
      return Promise.resolve({ kind: 'no-opinion' });
    },
  };
}
