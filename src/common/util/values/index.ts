// The value types of the flag table and config file, re-exported for convenience.
export * from './bool.js';
export * from './int.js';
export * from './duration.js';
export * from './quantity.js';
export * from './lists.js';
export * from './labels.js';
export * from './taints.js';
export * from './reserved-memory.js';
export * from './vmodule.js';
export { invalidValue, flagDisplay } from './error.js';
