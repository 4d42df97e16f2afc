// The agent's parts, in one module that src/agent.ts imports on demand: loading them (and their
// libraries: undici, prom-client, the servers) takes a few hundred milliseconds, which
// then runs while the certificate bootstrap waits on the API server instead of before it.
export { FileSource } from '../source/file.js';
export { HttpSource } from '../source/http.js';
export { PodConfig } from '../source/merger.js';
export { validatePod } from '../pod/validate.js';
export { PodStatusManager } from '../worker/status-manager.js';
export { ProbeManager } from '../worker/probes.js';
export { PodSyncer } from '../worker/pod-sync.js';
export { PodManager } from '../worker/pod-manager.js';
export { podCapacity } from '../worker/admission.js';
export { runOnce } from '../worker/runonce.js';
export { GarbageCollector } from '../gc/collector.js';
export { startAgentServices } from './services.js';
export { packageVersion } from '../cli/version.js';
export { ApiserverSource } from '../source/apiserver.js';
export { ApiStatusSync } from '../worker/api-status-sync.js';
export { createNodeClient, createPodClient } from '../client/typed-clients.js';
export { assembleAgent } from './assemble.js';
