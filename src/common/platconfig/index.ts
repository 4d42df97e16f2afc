export * from './platconfig.js';
export { writeFileAtomic, syncDir, removeStaleTempFiles } from '../util/atomic-file.js';
