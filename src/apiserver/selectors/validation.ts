// The name, label key and label value rules live in src/common (the agent validates static pods
// with the same rules and messages).
export * from '../../common/util/names.js';
