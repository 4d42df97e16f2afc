// Subresources that are POSTed a request object of their own kind and answer at once, as the
// reference's NamedCreater REST endpoints: serviceaccounts/<name>/token (a TokenRequest) and
// pods/<name>/binding (a Binding). Each is looked up by `<group>/<resource>/<subresource>`; only
// POST reaches one (any other verb is 405, as the reference has no other handler there).

import type { UserInfo } from '../../common/auth/user.js';
import type { Obj } from '../registry/types.js';

export interface ActionCall {
  readonly namespace: string;
  /** The parent object's name (the service account, the pod). */
  readonly name: string;
  readonly body: Obj;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** Warning headers of the response. */
  readonly warnings: string[];
}

export interface SubresourceAction {
  /** The kind and apiVersion the body decodes as. */
  readonly kind: string;
  readonly apiVersion: string;
  create(call: ActionCall): Promise<{ readonly code: number; readonly object: Obj }>;
}

export type SubresourceActions = ReadonlyMap<string, SubresourceAction>;

export function actionKey(group: string, resource: string, subresource: string): string {
  return `${group}/${resource}/${subresource}`;
}
