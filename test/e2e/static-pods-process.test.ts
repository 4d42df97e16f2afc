// End to end on process://: the built agent runs static pods from a directory.
import { processRuntime } from '../integration/agent/pods/runtimes.js';
import { staticPodsScenario } from './static-pods-harness.js';

staticPodsScenario(processRuntime, undefined);
