// Facts a bundler may fix in the program at build time: scripts/sea.mjs does for the single
// executable, which has no package.json, dist/build-info.json or schema/ beside it. Built with
// tsc or bundled for bin/, nothing is fixed here and those files are read from the package.
export interface BuildInfo {
  readonly version: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  /** The published NodeAgentConfiguration JSON Schema (schema/nodeagent-config.schema.json). */
  readonly configSchema: unknown;
}

declare const NODEAGENT_BUILD_INFO: BuildInfo | undefined;

/** The facts fixed at build time, or undefined when the program reads them from its package. */
export function buildInfo(): BuildInfo | undefined {
  return typeof NODEAGENT_BUILD_INFO === 'undefined' ? undefined : NODEAGENT_BUILD_INFO;
}
