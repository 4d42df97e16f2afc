// Capability names as the Docker engine takes them: upper case with the CAP_ prefix (a pod may
// write NET_ADMIN, net_admin or CAP_NET_ADMIN), ALL as it is.
import type { Container } from '../../pod/types.js';

export function dockerCapabilityName(name: string): string {
  const upper = name.toUpperCase();
  if (upper === 'ALL' || upper.startsWith('CAP_')) return upper;
  return `CAP_${upper}`;
}

type Capabilities = NonNullable<NonNullable<Container['securityContext']>['capabilities']>;

export function dockerCapabilities(caps: Capabilities | undefined): {
  CapAdd?: string[];
  CapDrop?: string[];
} {
  const add = (caps?.add ?? []).map(dockerCapabilityName);
  const drop = (caps?.drop ?? []).map(dockerCapabilityName);
  return {
    ...(add.length > 0 ? { CapAdd: add } : {}),
    ...(drop.length > 0 ? { CapDrop: drop } : {}),
  };
}
