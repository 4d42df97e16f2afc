// The reference's root CA publisher (rootcacertpublisher): every active namespace has the
// `<product>-root-ca.crt` ConfigMap (kube-root-ca.crt) whose `ca.crt` is the CA that verifies
// this server, with the reference's description annotation; an edited or deleted one is put back.

import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../../common/auth/user.js';
import { REFERENCE_NAMES, type Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { recordOf } from '../../common/util/json-shape.js';
import type { Registry } from '../registry/registry.js';
import { metaOf, type Obj, type ResourceDef } from '../registry/types.js';
import { StatusError } from '../status.js';
import { runPerNamespace } from './per-namespace.js';

const CONTROLLER_USER: UserInfo = {
  username: `system:serviceaccount:${REFERENCE_NAMES.namespaces.system}:root-ca-cert-publisher`,
  groups: ['system:serviceaccounts', 'system:masters'],
};

export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using ' +
  'internal endpoints such as the internal service IP or kubernetes.default.svc. No ' +
  'other usage is guaranteed across distributions of Kubernetes clusters.';

export interface RootCaPublisherOptions {
  readonly registry: Registry;
  readonly namespaceDef: ResourceDef;
  readonly configMapDef: ResourceDef;
  readonly names: Names;
  /** The PEM bundle published as ca.crt. */
  readonly rootCaPem: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

const opts = {
  user: CONTROLLER_USER,
  dryRun: false,
  fieldManager: 'kube-controller-manager',
  subresource: '',
};

export function runRootCaPublisher(o: RootCaPublisherOptions, signal: AbortSignal): Promise<void> {
  const { registry, configMapDef } = o;
  const name = o.names.serviceAccounts.rootCaConfigMap;
  const descriptionKey = `${o.names.labelDomain}/description`;
  const data = { 'ca.crt': o.rootCaPem };
  const ensure = async (ns: string): Promise<void> => {
    try {
      if (registry.store.getRaw(registry.key(configMapDef, ns, name)) === undefined) {
        await registry.create(
          configMapDef,
          ns,
          { metadata: { name, annotations: { [descriptionKey]: ROOT_CA_DESCRIPTION } }, data },
          opts,
        );
        return;
      }
      await registry.update(configMapDef, ns, name, opts, (current: Obj | undefined) => {
        if (current === undefined) throw new StatusError(404, 'NotFound', 'gone');
        const annotations = recordOf(metaOf(current)['annotations']);
        if (
          isDeepStrictEqual(current['data'], data) &&
          typeof annotations[descriptionKey] === 'string' &&
          annotations[descriptionKey] !== ''
        )
          return current;
        metaOf(current)['annotations'] = { ...annotations, [descriptionKey]: ROOT_CA_DESCRIPTION };
        return { ...current, data };
      });
    } catch (err) {
      if (err instanceof StatusError && (err.status === 409 || err.status === 404)) return;
      throw err;
    }
  };
  return runPerNamespace(
    {
      name: 'root-ca-cert-publisher',
      registry,
      namespaceDef: o.namespaceDef,
      def: configMapDef,
      objectName: name,
      ensure,
      clock: o.clock,
      logger: o.logger,
    },
    signal,
  );
}
