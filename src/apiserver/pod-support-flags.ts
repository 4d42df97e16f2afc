// The flags of the part that serves what pods need (pod-support.ts): the service-account token
// flags and the Service flags. Apart from pod-support.ts so that the flag table does not load the
// part itself.

import type { ExtraFlag } from './flags.js';
import { SERVICE_ACCOUNT_FLAGS } from './serviceaccount/flags.js';
import { SERVICE_FLAGS } from './services/flags.js';

export const POD_SUPPORT_FLAGS: readonly ExtraFlag[] = [...SERVICE_ACCOUNT_FLAGS, ...SERVICE_FLAGS];
