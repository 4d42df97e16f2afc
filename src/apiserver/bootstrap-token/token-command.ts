// `plat-apiserver token create|list|delete`: the reference's `kubeadm token` subcommands over the
// API, with the admin platconfig.

import type { TokenCommandIo } from './admin-client.js';
import { CREATE_USAGE, runCreate } from './create-command.js';
import { DELETE_USAGE, runDelete } from './delete-command.js';
import { LIST_USAGE, runList } from './list-command.js';

export type { TokenCommandIo };

export async function runTokenCommand(
  argv: readonly string[],
  io: TokenCommandIo,
): Promise<number> {
  switch (argv[0]) {
    case 'create':
      return runCreate(argv.slice(1), io);
    case 'list':
      return runList(argv.slice(1), io);
    case 'delete':
      return runDelete(argv.slice(1), io);
    default:
      io.err(
        `plat-apiserver token: unknown or missing ` +
          `subcommand${argv[0] === undefined ? '' : ` "${argv[0]}"`}; one of create, list,` +
          ` delete:\n  ${CREATE_USAGE}\n  ${LIST_USAGE}\n  ${DELETE_USAGE}\n`,
      );
      return 1;
  }
}
