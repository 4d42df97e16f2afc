// The service-account token flags, named and checked as the reference's kube-apiserver checks
// them: --service-account-issuer (repeatable: the first signs, all are accepted; one with a ':'
// must be a URL; none twice), --service-account-signing-key-file, --service-account-key-file
// (repeatable; default: the signing key), --service-account-max-token-expiration (between 1 hour
// and 2^32 seconds) and --service-account-extend-token-expiration (default true). Without a
// signing key one is made into --cert-dir (service-account.key, 0600) and kept across restarts.

import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/util/atomic-file.js';
import { FlagError, userMessage } from '../../common/util/errors.js';
import { parseBool } from '../../common/util/values/bool.js';
import { parseDurationMs } from '../../common/util/values/duration.js';
import type { ExtraFlag } from '../flags.js';
import {
  EXPIRATION_EXTENSION_SECONDS,
  WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
} from './claims.js';
import {
  parseSigningKey,
  parseVerificationKeys,
  type SigningKey,
  type VerificationKey,
} from './keys.js';

/** The issuer when none is given: the one kubeadm sets. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const GENERATED_KEY_FILE = 'service-account.key';

export const SERVICE_ACCOUNT_FLAGS: readonly ExtraFlag[] = [
  {
    name: 'service-account-issuer',
    accumulates: true,
    help:
      `Identifier of the service account token issuer, asserted in the "iss" claim of ` +
      `issued tokens. Given several times (or comma-separated), the first is used to ` +
      `generate tokens and all are accepted. Default "${DEFAULT_SERVICE_ACCOUNT_ISSUER}".`,
  },
  {
    name: 'service-account-signing-key-file',
    help:
      `PEM RSA or ECDSA private key that signs service account tokens. When absent, an ` +
      `ECDSA P-256 key is generated into --cert-dir (${GENERATED_KEY_FILE}) and reused.`,
  },
  {
    name: 'service-account-key-file',
    accumulates: true,
    help:
      'Files of PEM RSA or ECDSA public keys, private keys or certificates that verify ' +
      'service account tokens (several keys per file; the flag may repeat). Default: the ' +
      'signing key.',
  },
  {
    name: 'service-account-max-token-expiration',
    help:
      'The maximum validity of a token created by the TokenRequest API; a longer request ' +
      'is shortened to it (with a warning). Between 1h and 2^32 seconds; 0 or absent: no ' +
      'maximum.',
  },
  {
    name: 'service-account-extend-token-expiration',
    bool: true,
    help:
      'Tokens the ServiceAccount admission plugin projects (3607 s, for the API ' +
      'audiences) are issued for one year, with a warnafter claim at 3607 s (default ' +
      'true).',
  },
];

export interface ServiceAccountTokenConfig {
  readonly issuers: readonly string[];
  readonly signingKey: SigningKey;
  readonly verificationKeys: readonly VerificationKey[];
  /** 0: no maximum. */
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  /** Warnings for the log (the reference's for a max expiration under the extension). */
  readonly warnings: readonly string[];
}

function listOfFlag(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The reference's issuer checks. */
export function checkIssuers(issuers: readonly string[]): void {
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (issuer.includes(':') && !URL.canParse(issuer))
      throw new FlagError(
        `service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`,
        { flag: 'service-account-issuer' },
      );
    if (seen.has(issuer))
      throw new FlagError(`service-account-issuer ${JSON.stringify(issuer)} is already specified`, {
        flag: 'service-account-issuer',
      });
    seen.add(issuer);
  }
}

function maxExpirationOf(v: string | undefined): number {
  if (v === undefined || v === '') return 0;
  const flag = 'service-account-max-token-expiration';
  const seconds = Math.floor(parseDurationMs(v, flag) / 1000);
  if (seconds !== 0 && (seconds < 3600 || seconds > 2 ** 32))
    throw new FlagError(
      'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
      { flag },
    );
  return seconds;
}

async function readFlagFile(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new FlagError(`--${flag} ${file}: ${userMessage(err)}`, { flag, cause: err });
  }
}

/** The signing key's PEM: the flag's file, else the generated one in --cert-dir. */
async function signingKeyText(
  file: string | undefined,
  certDir: string,
): Promise<{ text: string; file: string }> {
  if (file !== undefined)
    return { text: await readFlagFile(file, 'service-account-signing-key-file'), file };
  const generated = join(certDir, GENERATED_KEY_FILE);
  if (existsSync(generated)) return { text: await readFile(generated, 'utf8'), file: generated };
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const text = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await writeFileAtomic(generated, text, { mode: 0o600 });
  return { text, file: generated };
}

function expirationWarnings(max: number, extend: boolean): string[] {
  if (!extend || max === 0) return [];
  const out: string[] = [];
  if (max < WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS)
    out.push(
      `service-account-extend-token-expiration is true, in order to correctly trigger ` +
        `safe transition logic, service-account-max-token-expiration must be set longer ` +
        `than ${WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS} seconds (currently ${max}s)`,
    );
  if (max < EXPIRATION_EXTENSION_SECONDS)
    out.push(
      `service-account-extend-token-expiration is true, enabling tokens valid up to ` +
        `${EXPIRATION_EXTENSION_SECONDS} seconds, which is longer than ` +
        `service-account-max-token-expiration set to ${max}s`,
    );
  return out;
}

/** The token configuration from the flags' texts (flags.extra, by camelCase name). */
export async function serviceAccountTokenConfig(
  extra: Readonly<Record<string, string>>,
  certDir: string,
): Promise<ServiceAccountTokenConfig> {
  const issuers = listOfFlag(extra['serviceAccountIssuer']);
  checkIssuers(issuers);
  const signing = await signingKeyText(extra['serviceAccountSigningKeyFile'], certDir);
  const signingKey = parseSigningKey(signing.text, signing.file);
  const keyFiles = listOfFlag(extra['serviceAccountKeyFile']);
  const verificationKeys =
    keyFiles.length === 0
      ? parseVerificationKeys(signing.text, signing.file)
      : (
          await Promise.all(
            keyFiles.map(async (f) =>
              parseVerificationKeys(await readFlagFile(f, 'service-account-key-file'), f),
            ),
          )
        ).flat();
  const maxExpirationSeconds = maxExpirationOf(extra['serviceAccountMaxTokenExpiration']);
  const extendText = extra['serviceAccountExtendTokenExpiration'];
  const extendExpiration =
    extendText === undefined
      ? true
      : parseBool(extendText, 'service-account-extend-token-expiration');
  return {
    issuers: issuers.length > 0 ? issuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    signingKey,
    verificationKeys,
    maxExpirationSeconds,
    extendExpiration,
    warnings: expirationWarnings(maxExpirationSeconds, extendExpiration),
  };
}
