// The Node object as the agent writes it, and the small interface to the API server the node
// part consumes (src/agent.ts adapts the REST client's NodeClient to it).
import type { ApiNode } from './api-node.js';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

export interface NodeAddress {
  type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface ContainerImage {
  names: string[];
  sizeBytes: number;
}

export interface NodeStatus {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  conditions: NodeCondition[];
  /** Absent: the Node's addresses are left as they are (a cloud provider owns them). */
  addresses?: NodeAddress[];
  daemonEndpoints: { kubeletEndpoint: { Port: number } };
  nodeInfo: NodeSystemInfo;
  images: ContainerImage[];
}

export interface Node {
  apiVersion?: string;
  kind?: string;
  /** The same metadata the client decodes in an answer. */
  metadata: ApiNode['metadata'];
  spec?: { providerID?: string; taints?: Taint[]; unschedulable?: boolean; podCIDR?: string };
  status?: Partial<NodeStatus>;
}

/** The node calls the node part makes; answers are the Node as the API server has it. */
export interface NodeApi {
  /**
   * `cached`: any version the server holds (resourceVersion=0), which the reference serves from
   * its watch cache.
   */
  get(name: string, signal?: AbortSignal, opts?: { cached?: boolean }): Promise<ApiNode>;
  create(node: Node, signal?: AbortSignal): Promise<ApiNode>;
  /** A JSON merge patch of the node object (metadata/spec). */
  patch(name: string, patch: unknown, signal?: AbortSignal): Promise<ApiNode>;
  /** A strategic merge patch of the status subresource. */
  patchStatus(name: string, patch: unknown, signal?: AbortSignal): Promise<ApiNode>;
}
