// Atomic writes live in src/util/atomic-file.ts; kept here for the callers that import them from platconfig.
export { writeFileAtomic, syncDir, removeStaleTempFiles, type AtomicWriteOptions } from '../util/atomic-file.js';
