// Which naming profile the API server a token is made for runs under, read from the server
// itself: the certificates group it serves (`certificates.<domain>`) and which of the profiles'
// system namespaces exists. A token made under other names (its Secret's type and namespace) is
// one the server never finds, so `token create` takes the server's names, or refuses flags that
// name others.
import { namesFor, type Names } from '../../common/names.js';
import type { ConnectionConfig } from '../../common/platconfig/platconfig.js';
import { FlagError } from '../../common/util/errors.js';
import { isRecord, listOf } from '../../common/util/json-shape.js';
import { adminRequest } from './admin-client.js';

/** The API groups the server lists under /apis. */
async function servedGroups(conn: ConnectionConfig): Promise<string[]> {
  const r = await adminRequest(conn, 'GET', '/apis');
  if (r.status !== 200) return [];
  return listOf(r.json?.['groups'])
    .map((g) => (isRecord(g) ? g['name'] : undefined))
    .filter((n): n is string => typeof n === 'string');
}

async function namespaceExists(conn: ConnectionConfig, name: string): Promise<boolean> {
  return (await adminRequest(conn, 'GET', `/api/v1/namespaces/${name}`)).status === 200;
}

/** The server's names, or undefined when it serves no certificates group (not ours to judge). */
export async function serverNames(conn: ConnectionConfig): Promise<Names | undefined> {
  const group = (await servedGroups(conn)).find((g) => g.startsWith('certificates.'));
  if (group === undefined) return undefined;
  const platform = namesFor('platform', group.slice('certificates.'.length));
  const kubernetes = namesFor('kubernetes');
  if (group !== kubernetes.groups.certificates) return platform;
  if (await namespaceExists(conn, platform.namespaces.system)) return platform;
  return kubernetes;
}

/** How a profile's names read in a message: `kubernetes` or `platform (domain example.com)`. */
export function describeNames(n: Names): string {
  return n.profile === 'kubernetes' ? 'kubernetes' : `platform (domain ${n.labelDomain})`;
}

/**
 * The names to make the token under: the server's when the command line names none; the command
 * line's when they agree with the server's; a FlagError naming both otherwise.
 */
export function namesForToken(
  server: ConnectionConfig['server'],
  served: Names | undefined,
  given: Names,
  flagsGiven: boolean,
): Names {
  if (served === undefined) return given;
  if (!flagsGiven) return served;
  if (served.profile === given.profile && served.labelDomain === given.labelDomain) return given;
  const typeChange =
    given.labelDomain === served.labelDomain
      ? ''
      : `bootstrap.${given.labelDomain}/token instead of bootstrap.${served.labelDomain}/token, `;
  const namespaceChange =
    given.namespaces.system === served.namespaces.system
      ? ''
      : ` instead of ${served.namespaces.system}`;
  throw new FlagError(
    `the API server at ${server} runs the ${describeNames(served)} naming profile, but ` +
      `the flags name the ${describeNames(given)} profile: a token made under those names ` +
      `would never be found by the server (its Secret would be of type ` +
      `${typeChange}in namespace ${given.namespaces.system}${namespaceChange}); ` +
      `leave out --platform-profile and --platform-domain to use the server's`,
    { flag: given.profile === served.profile ? 'platform-domain' : 'platform-profile' },
  );
}
