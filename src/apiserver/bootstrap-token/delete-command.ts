// `plat-apiserver token delete <id|token>... [--platconfig FILE] [--platform-domain D]
// [--platform-profile P]`, as the reference's `kubeadm token delete`: each argument is a token id
// or a whole token (only its id is used), its Secret `bootstrap-token-<id>` is deleted from the
// system namespace and `bootstrap token "<id>" deleted` is printed. The authenticator reads the
// Secret on every request, so the token is refused (401) from then on. Its messages are kubeadm's.

import { FlagError, userMessage } from '../../common/util/errors.js';
import {
  adminRequest,
  connect,
  namesFromOptions,
  parseSubcommand,
  type TokenCommandIo,
} from './admin-client.js';
import { parseToken, SECRET_PREFIX } from './token.js';

export const DELETE_USAGE =
  'usage: plat-apiserver token delete <token-id|token>... [--platconfig FILE] ' +
  '[--platform-domain D] [--platform-profile platform|kubernetes]';

/** The reference's patterns, quoted as Go's %q quotes them. */
const ID_PATTERN = '"\\\\A([a-z0-9]{6})\\\\z"';
const TOKEN_PATTERN = '"\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z"';

/** The token id an argument names (kubeadm's order: an id first, else a whole token). */
export function tokenIdOf(arg: string): string {
  if (/^[a-z0-9]{6}$/.test(arg)) return arg;
  const t = parseToken(arg);
  // kubeadm names the id pattern twice here
  if (t === undefined)
    throw new FlagError(`given token didn't match pattern ${ID_PATTERN} or ${ID_PATTERN}`);
  return t.id;
}

/**
 * `token delete`: 0 when every token was deleted, 1 at the first failure (with kubeadm's message).
 */
export async function runDelete(argv: readonly string[], io: TokenCommandIo): Promise<number> {
  try {
    const { options: o, args } = parseSubcommand('token delete', argv, [], Infinity, DELETE_USAGE);
    if (args.length === 0)
      throw new FlagError(
        `missing argument; 'token delete' is missing token of form ${TOKEN_PATTERN} or ` +
          ID_PATTERN,
      );
    const names = namesFromOptions(o);
    const conn = await connect(o['platconfig'] ?? '');
    for (const arg of args) {
      const id = tokenIdOf(arg);
      const r = await adminRequest(
        conn,
        'DELETE',
        `/api/v1/namespaces/${encodeURIComponent(names.namespaces.system)}` +
          `/secrets/${SECRET_PREFIX}${id}`,
      );
      if (r.status !== 200 && r.status !== 202)
        throw new FlagError(`failed to delete bootstrap token "${id}": ${r.message}`);
      io.out(`bootstrap token "${id}" deleted\n`);
    }
    return 0;
  } catch (err) {
    io.err(`plat-apiserver token delete: ${userMessage(err)}\n`);
    return 1;
  }
}
