export * from './platconfig.js';
export { writeFileAtomic, syncDir } from './atomic-file.js';
