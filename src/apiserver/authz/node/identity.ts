// Which node a user is (the reference's nodeidentifier): a user named `system:node:<name>` in the
// group `system:nodes`. Anyone else is not a node; a node user with an empty name is a node we
// cannot place (refused by the Node authorizer and NodeRestriction).

import type { UserInfo } from '../../../common/auth/user.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/** The node's name, '' for a node user without a name, undefined when the user is not a node. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}
