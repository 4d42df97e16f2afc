export * from './platconfig.js';
export { writeFileAtomic, syncDir, removeStaleTempFiles } from './atomic-file.js';
