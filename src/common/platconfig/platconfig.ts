// platconfig files: the kubeconfig layout (clusters, users, contexts, current-context), so
// standard tools read them. Loading resolves relative paths against the file's own directory;
// `resolveConnection` turns the selected context into what the REST client needs, reading the
// referenced files, and fails with one PlatconfigError naming the file and what is missing.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { PlatconfigError } from '../util/errors.js';
import { CONFIG_FILE_LIMITS } from '../util/parse-limits.js';
import { fastYamlValue } from '../util/fast-yaml.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { errnoCode } from '../util/errno.js';

export interface PlatconfigCluster {
  server: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface PlatconfigUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
}

export interface PlatconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

export interface Platconfig {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: PlatconfigCluster }[];
  users: { name: string; user: PlatconfigUser }[];
  contexts: { name: string; context: PlatconfigContext }[];
  'current-context': string;
}

/** A loaded file: its content with paths made absolute, and where it came from. */
export interface LoadedPlatconfig {
  path: string;
  config: Platconfig;
}

/** Everything needed to open a connection, with file references already read. */
export interface ConnectionConfig {
  server: string;
  caPem?: string;
  /** Where the CA came from, for messages. */
  caFile?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  certPem?: string;
  keyPem?: string;
  /** Set when the certificate and key came from files (for rotation re-reads). */
  certFile?: string;
  keyFile?: string;
  token?: string;
  tokenFile?: string;
  /** The user entry's name, used to say which identity a server refused. */
  userName: string;
  /** The file this was read from. */
  source: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown, file: string, where: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string')
    throw new PlatconfigError(`platconfig ${file}: ${where} must be a string`, { file });
  return v;
}

function named<T>(
  raw: unknown,
  key: 'cluster' | 'user' | 'context',
  list: string,
  file: string,
  convert: (o: Obj, where: string) => T,
): { name: string; value: T }[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw new PlatconfigError(`platconfig ${file}: ${list} must be a list`, { file });
  return raw.map((item: unknown, i) => {
    const where = `${list}[${i}]`;
    if (!isObj(item))
      throw new PlatconfigError(`platconfig ${file}: ${where} must be a mapping`, { file });
    const name = str(item.name, file, `${where}.name`);
    if (!name) throw new PlatconfigError(`platconfig ${file}: ${where}.name is required`, { file });
    const body = item[key] ?? {};
    if (!isObj(body))
      throw new PlatconfigError(`platconfig ${file}: ${where}.${key} must be a mapping`, { file });
    return { name, value: convert(body, `${where}.${key}`) };
  });
}

// A text this short cannot pass any other bound of CONFIG_FILE_LIMITS (keys, values, string length,
// bytes); the fast path bounds nesting and takes one document only. Platconfigs that name their
// files, as the agent writes them, are well under it.
const FAST_MAX_CHARS = Math.min(
  CONFIG_FILE_LIMITS.maxKeysPerObject,
  CONFIG_FILE_LIMITS.maxNodes,
  CONFIG_FILE_LIMITS.maxStringLength,
);

/**
 * The decoded document: js-yaml for a short clean text, else the full parser (loaded when needed).
 */
async function decodePlatconfig(text: string, file: string): Promise<unknown> {
  const fast = text.length <= FAST_MAX_CHARS ? fastYamlValue(text) : undefined;
  if (fast !== undefined) return fast.value;
  const { decodePlatconfigYaml } = await import('./yaml-codec.js');
  return decodePlatconfigYaml(text, file);
}

/** Parses platconfig text. `file` names it in errors and anchors relative paths. */
export async function parsePlatconfig(text: string, file: string): Promise<Platconfig> {
  return platconfigFromValue(await decodePlatconfig(text, file), file);
}

/** Reads one document's entries: `file` names it in errors, `abs` makes a path absolute. */
interface EntryReader {
  readonly file: string;
  abs(p: string | undefined): string | undefined;
}

function clusterFrom(o: Obj, w: string, r: EntryReader): PlatconfigCluster {
  const { file } = r;
  const server = str(o.server, file, `${w}.server`) ?? '';
  const c: PlatconfigCluster = { server };
  const ca = r.abs(str(o['certificate-authority'], file, `${w}.certificate-authority`));
  if (ca !== undefined) c['certificate-authority'] = ca;
  const caData = str(o['certificate-authority-data'], file, `${w}.certificate-authority-data`);
  if (caData !== undefined) c['certificate-authority-data'] = caData;
  const insecure = o['insecure-skip-tls-verify'];
  if (insecure !== undefined) {
    if (typeof insecure !== 'boolean')
      throw new PlatconfigError(
        `platconfig ${file}: ${w}.insecure-skip-tls-verify must be true or false`,
        { file },
      );
    c['insecure-skip-tls-verify'] = insecure;
  }
  const sn = str(o['tls-server-name'], file, `${w}.tls-server-name`);
  if (sn !== undefined) c['tls-server-name'] = sn;
  return c;
}

function userFrom(o: Obj, w: string, r: EntryReader): PlatconfigUser {
  const { file } = r;
  const u: PlatconfigUser = {};
  const cc = r.abs(str(o['client-certificate'], file, `${w}.client-certificate`));
  if (cc !== undefined) u['client-certificate'] = cc;
  const ccd = str(o['client-certificate-data'], file, `${w}.client-certificate-data`);
  if (ccd !== undefined) u['client-certificate-data'] = ccd;
  const ck = r.abs(str(o['client-key'], file, `${w}.client-key`));
  if (ck !== undefined) u['client-key'] = ck;
  const ckd = str(o['client-key-data'], file, `${w}.client-key-data`);
  if (ckd !== undefined) u['client-key-data'] = ckd;
  const token = str(o.token, file, `${w}.token`);
  if (token !== undefined) u.token = token;
  const tf = r.abs(str(o.tokenFile, file, `${w}.tokenFile`));
  if (tf !== undefined) u.tokenFile = tf;
  return u;
}

function contextFrom(o: Obj, w: string, file: string): PlatconfigContext {
  const c: PlatconfigContext = {
    cluster: str(o.cluster, file, `${w}.cluster`) ?? '',
    user: str(o.user, file, `${w}.user`) ?? '',
  };
  const ns = str(o.namespace, file, `${w}.namespace`);
  if (ns !== undefined) c.namespace = ns;
  return c;
}

/**
 * Checks a decoded platconfig document and resolves its relative paths against `file`'s directory.
 */
function platconfigFromValue(doc: unknown, file: string): Platconfig {
  if (doc === null || doc === undefined)
    throw new PlatconfigError(`platconfig ${file} is empty`, { file });
  if (!isObj(doc))
    throw new PlatconfigError(
      `platconfig ${file} must be a mapping with clusters, users and contexts`,
      { file },
    );
  const base = dirname(resolve(file));
  const reader: EntryReader = {
    file,
    abs: (p) => (p === undefined || p === '' ? undefined : isAbsolute(p) ? p : resolve(base, p)),
  };
  const clusters = named(doc.clusters, 'cluster', 'clusters', file, (o, w) =>
    clusterFrom(o, w, reader),
  );
  const users = named(doc.users, 'user', 'users', file, (o, w) => userFrom(o, w, reader));
  const contexts = named(doc.contexts, 'context', 'contexts', file, (o, w) =>
    contextFrom(o, w, file),
  );
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: clusters.map((c) => ({ name: c.name, cluster: c.value })),
    users: users.map((u) => ({ name: u.name, user: u.value })),
    contexts: contexts.map((c) => ({ name: c.name, context: c.value })),
    'current-context': str(doc['current-context'], file, 'current-context') ?? '',
  };
}

export async function loadPlatconfig(path: string): Promise<LoadedPlatconfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : `cannot be read (${code ?? String(err)})`;
    throw new PlatconfigError(`platconfig ${path} ${why}`, { file: path, cause: err });
  }
  return { path, config: await parsePlatconfig(text, path) };
}

export interface ResolveOptions {
  /** A context other than current-context. */
  context?: string;
}

async function readRef(file: string, what: string, source: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    throw new PlatconfigError(
      `platconfig ${source}: ${what} ${file} ` +
        (code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`),
      { file: source, cause: err },
    );
  }
}

function decodeData(data: string, what: string, source: string): string {
  const text = Buffer.from(data, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN'))
    throw new PlatconfigError(`platconfig ${source}: ${what} is not base64-encoded PEM`, {
      file: source,
    });
  return text;
}

type NamedCluster = Platconfig['clusters'][number];
type NamedUser = Platconfig['users'][number];

/** The cluster and user the context names (`options.context`, else current-context). */
function selectContext(
  loaded: LoadedPlatconfig,
  options: ResolveOptions,
): { cluster: NamedCluster; user: NamedUser } {
  const { config, path } = loaded;
  const ctxName = options.context ?? config['current-context'];
  if (!ctxName)
    throw new PlatconfigError(
      `platconfig ${path} has no current-context; set current-context to one of: ` +
        (config.contexts.map((c) => c.name).join(', ') || '(no contexts defined)'),
      { file: path },
    );
  const ctx = config.contexts.find((c) => c.name === ctxName);
  if (!ctx)
    throw new PlatconfigError(
      `platconfig ${path}: context "${ctxName}" not found; defined contexts: ` +
        (config.contexts.map((c) => c.name).join(', ') || '(none)'),
      { file: path },
    );
  const cluster = config.clusters.find((c) => c.name === ctx.context.cluster);
  if (!cluster)
    throw new PlatconfigError(
      `platconfig ${path}: cluster "${ctx.context.cluster}" of context "${ctxName}" not found`,
      { file: path },
    );
  const user = config.users.find((u) => u.name === ctx.context.user);
  if (!user)
    throw new PlatconfigError(
      `platconfig ${path}: user "${ctx.context.user}" of context "${ctxName}" not found`,
      { file: path },
    );
  return { cluster, user };
}

/** Checks that the cluster's server is an http(s) URL. */
function checkServer(cluster: NamedCluster, path: string): void {
  const cl = cluster.cluster;
  if (!cl.server)
    throw new PlatconfigError(`platconfig ${path}: cluster "${cluster.name}" has no server`, {
      file: path,
    });
  let url: URL;
  try {
    url = new URL(cl.server);
  } catch {
    throw new PlatconfigError(
      `platconfig ${path}: cluster "${cluster.name}" server "${cl.server}" is not a URL ` +
        `(expected https://host:port)`,
      { file: path },
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new PlatconfigError(
      `platconfig ${path}: cluster "${cluster.name}" server "${cl.server}" must use ` +
        `https:// or http://`,
      { file: path },
    );
}

/** The cluster's CA (inline data first, else its file) and TLS server name, into `out`. */
async function readClusterTls(
  out: ConnectionConfig,
  cluster: NamedCluster,
  path: string,
): Promise<void> {
  const cl = cluster.cluster;
  if (cl['certificate-authority-data'])
    out.caPem = decodeData(
      cl['certificate-authority-data'],
      `cluster "${cluster.name}" certificate-authority-data`,
      path,
    );
  else if (cl['certificate-authority']) {
    out.caPem = await readRef(
      cl['certificate-authority'],
      `cluster "${cluster.name}" certificate-authority`,
      path,
    );
    out.caFile = cl['certificate-authority'];
  }
  if (cl['tls-server-name']) out.tlsServerName = cl['tls-server-name'];
}

/** The user's client certificate and key (inline data first, else files), both or neither. */
async function readClientCertificate(
  out: ConnectionConfig,
  user: NamedUser,
  path: string,
): Promise<void> {
  const u = user.user;
  if (u['client-certificate-data'])
    out.certPem = decodeData(
      u['client-certificate-data'],
      `user "${user.name}" client-certificate-data`,
      path,
    );
  else if (u['client-certificate']) {
    out.certPem = await readRef(
      u['client-certificate'],
      `user "${user.name}" client-certificate`,
      path,
    );
    out.certFile = u['client-certificate'];
  }
  if (u['client-key-data'])
    out.keyPem = decodeData(u['client-key-data'], `user "${user.name}" client-key-data`, path);
  else if (u['client-key']) {
    out.keyPem = await readRef(u['client-key'], `user "${user.name}" client-key`, path);
    out.keyFile = u['client-key'];
  }
  if ((out.certPem === undefined) !== (out.keyPem === undefined)) {
    throw new PlatconfigError(
      `platconfig ${path}: user "${user.name}" has a client ` +
        (out.certPem ? 'certificate but no client-key' : 'key but no client-certificate'),
      { file: path },
    );
  }
}

/** The user's token (inline first, else its file); a user needs a certificate or a token. */
async function readToken(out: ConnectionConfig, user: NamedUser, path: string): Promise<void> {
  const u = user.user;
  if (u.token) out.token = u.token;
  else if (u.tokenFile) {
    out.token = (await readRef(u.tokenFile, `user "${user.name}" tokenFile`, path)).trim();
    out.tokenFile = u.tokenFile;
  }
  if (out.certPem === undefined && out.token === undefined) {
    throw new PlatconfigError(
      `platconfig ${path}: user "${user.name}" has no credential (set ` +
        `client-certificate and client-key, or token / tokenFile)`,
      { file: path },
    );
  }
}

/** The cluster and user of the selected context, with referenced files read. */
export async function resolveConnection(
  loaded: LoadedPlatconfig,
  options: ResolveOptions = {},
): Promise<ConnectionConfig> {
  const { path } = loaded;
  const { cluster, user } = selectContext(loaded, options);
  checkServer(cluster, path);
  const out: ConnectionConfig = {
    server: cluster.cluster.server.replace(/\/+$/, ''),
    insecureSkipTlsVerify: cluster.cluster['insecure-skip-tls-verify'] === true,
    userName: user.name,
    source: path,
  };
  await readClusterTls(out, cluster, path);
  await readClientCertificate(out, user, path);
  await readToken(out, user, path);
  return out;
}

export async function loadConnection(
  path: string,
  options: ResolveOptions = {},
): Promise<ConnectionConfig> {
  return resolveConnection(await loadPlatconfig(path), options);
}

export interface ClientCertPlatconfigOptions {
  server: string;
  caFile?: string;
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** Both point at the current-certificate symlink after bootstrap. */
  certFile: string;
  keyFile: string;
}

/** The platconfig bootstrap writes: default-cluster, default-auth, default-context. */
export function clientCertPlatconfig(o: ClientCertPlatconfigOptions): Platconfig {
  const cluster: PlatconfigCluster = { server: o.server };
  if (o.caFile) cluster['certificate-authority'] = o.caFile;
  else if (o.caPem) cluster['certificate-authority-data'] = Buffer.from(o.caPem).toString('base64');
  if (o.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  if (o.tlsServerName) cluster['tls-server-name'] = o.tlsServerName;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    users: [
      { name: 'default-auth', user: { 'client-certificate': o.certFile, 'client-key': o.keyFile } },
    ],
    contexts: [
      {
        name: 'default-context',
        context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' },
      },
    ],
    'current-context': 'default-context',
  };
}

/** The YAML text of `config` (the `yaml` library is loaded here, when first needed). */
export async function stringifyPlatconfig(config: Platconfig): Promise<string> {
  const { encodePlatconfigYaml } = await import('./yaml-codec.js');
  return encodePlatconfigYaml(config);
}

/** Writes atomically with mode 0600 (the file may hold tokens or key data). */
export async function writePlatconfig(path: string, config: Platconfig): Promise<void> {
  await writeFileAtomic(path, await stringifyPlatconfig(config), { mode: 0o600 });
}
