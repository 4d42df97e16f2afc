// A pod's image pull secrets as registry credentials, as the reference's MakeDockerKeyring and
// BasicDockerKeyring make them: a Secret of type <label domain>/dockerconfigjson (or the
// reference's kubernetes.io/dockerconfigjson, which kubectl writes under any profile) with a
// non-empty
// `.dockerconfigjson` ({"auths": {...}}), or of type <label domain>/dockercfg with a non-empty
// `.dockercfg` (the entries themselves); other secrets give nothing. Each entry's `auth`
// (base64 of user:password) wins over its username and password. The keys lose their scheme and
// a /v1/ or /v2/ path prefix; they are tried most specific first (reverse order) against the
// image's repository with the credential providers' matcher, and a key `index.docker.io` serves
// images of docker.io when no key matched. Bad JSON or a bad `auth` fails the pull, as the
// reference's keyring error does.
import { REFERENCE_NAMES, type Names } from '../../../common/names.js';
import { parseJsonBounded } from '../../../common/util/bounded-json.js';
import { isRecord } from '../../../common/util/json-shape.js';
import { DEFAULT_PARSE_LIMITS } from '../../../common/util/parse-limits.js';
import type { RegistryCredential } from '../types.js';
import { registryOf, repoToPull, urlsMatch } from './match-image.js';

export const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
export const DOCKERCFG_KEY = '.dockercfg';

/**
 * The Secret types read as each layout: the profile's (names.secretTypes) and, under another
 * profile, the reference's too, since kubectl create secret docker-registry always writes those.
 */
export interface PullSecretTypes {
  readonly dockerConfigJson: readonly string[];
  readonly dockercfg: readonly string[];
}

/** The profile's pull secret types and the reference's. */
export function pullSecretTypes(names: Pick<Names, 'secretTypes'>): PullSecretTypes {
  const own = names.secretTypes;
  const ref = REFERENCE_NAMES.secretTypes;
  return {
    dockerConfigJson: [...new Set([own.dockerConfigJson, ref.dockerConfigJson])],
    dockercfg: [...new Set([own.dockercfg, ref.dockercfg])],
  };
}

const DEFAULT_REGISTRY_HOST = 'index.docker.io';

/** What the keyring reads of a Secret. */
export interface PullSecret {
  readonly name: string;
  readonly type?: string;
  readonly data: ReadonlyMap<string, Buffer>;
}

interface Entry {
  key: string;
  username: string;
  password: string;
}

/** decodeDockerConfigFieldAuth: base64(user:password). */
function decodeAuth(auth: string): { username: string; password: string } {
  const text = Buffer.from(auth, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0)
    throw new Error('unable to parse auth field, must be formatted as base64(username:password)');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The keyring key of a config location (BasicDockerKeyring.Add); undefined when it is no URL. */
function keyOf(location: string): string | undefined {
  const value = /^https?:\/\//.test(location) ? location : `https://${location}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  let path = decodeURIComponent(url.pathname);
  if (path.startsWith('/v2/') || path.startsWith('/v1/')) path = path.slice(3);
  // URL gives "/" for a bare host, as Go's "" or "/": the key is the host alone
  return path !== '' && path !== '/' ? `${url.host}${path}` : url.host;
}

function entriesOf(config: unknown, secret: string): Entry[] {
  if (!isRecord(config)) throw new Error(`image pull secret ${secret}: not a JSON object`);
  const out: Entry[] = [];
  for (const [location, v] of Object.entries(config)) {
    const key = keyOf(location);
    if (key === undefined || !isRecord(v)) continue;
    const auth = str(v['auth']);
    const who =
      auth !== ''
        ? decodeAuth(auth)
        : { username: str(v['username']), password: str(v['password']) };
    out.push({ key, ...who });
  }
  return out;
}

function secretEntries(s: PullSecret, types: PullSecretTypes): Entry[] {
  const parse = (b: Buffer): unknown =>
    parseJsonBounded(b.toString('utf8'), {
      source: `image pull secret ${s.name}`,
      limits: DEFAULT_PARSE_LIMITS,
    });
  const json = s.data.get(DOCKER_CONFIG_JSON_KEY);
  if (
    s.type !== undefined &&
    types.dockerConfigJson.includes(s.type) &&
    json !== undefined &&
    json.length > 0
  ) {
    const doc = parse(json);
    return entriesOf(isRecord(doc) ? (doc['auths'] ?? {}) : doc, s.name);
  }
  const cfg = s.data.get(DOCKERCFG_KEY);
  if (
    s.type !== undefined &&
    types.dockercfg.includes(s.type) &&
    cfg !== undefined &&
    cfg.length > 0
  )
    return entriesOf(parse(cfg), s.name);
  return [];
}

/**
 * The credentials of the pod's pull secrets for `image`, most specific key first; throws on a bad
 * secret.
 */
export function pullSecretCredentials(
  secrets: readonly PullSecret[],
  image: string,
  types: PullSecretTypes,
): RegistryCredential[] {
  const entries = secrets.flatMap((s) => secretEntries(s, types));
  const keys = [...new Set(entries.map((e) => e.key))].sort().reverse();
  const repo = repoToPull(image);
  const serveraddress =
    registryOf(repo) === 'docker.io' ? 'https://index.docker.io/v1/' : registryOf(repo);
  const credsOf = (key: string): RegistryCredential[] =>
    entries
      .filter((e) => e.key === key)
      .map((e) => ({ username: e.username, password: e.password, serveraddress }));
  const matched = keys.filter((k) => urlsMatch(k, repo)).flatMap(credsOf);
  if (matched.length > 0 || registryOf(repo) !== 'docker.io') return matched;
  return credsOf(DEFAULT_REGISTRY_HOST);
}
