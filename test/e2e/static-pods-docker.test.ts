// End to end on Docker: the built agent runs static pods from a directory (skips without an
// engine unless CI=true).
import { dockerRuntime, dockerSkipReason } from '../integration/agent/pods/runtimes.js';
import { staticPodsScenario } from './static-pods-harness.js';

staticPodsScenario(dockerRuntime, await dockerSkipReason());
