// The shape of one entry of the flag table (src/cli/flags.ts). The table is the one source of
// truth about every option: the parser, --help, the man page, the mapping onto config-file fields
// and the deprecation warnings are all derived from it.

/** Every value type of the spec's option table. */
export type FlagType =
  | 'string'
  | 'strings' // comma-separated list
  | 'bool'
  | 'int32'
  | 'int'
  | 'duration' // Go syntax: 300ms, 1.5h, 2m0s
  | 'quantity' // 10Mi, 1G, 500m
  | 'mapStringString' // key=value pairs, comma-separated
  | 'featureGates' // A=true,B=false
  | 'colonMultimap' // name:value, comma-separated, repeatable (--manifest-url-header)
  | 'taints' // key=value:Effect, comma-separated
  | 'reservedMemory' // 0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi
  | 'vmodule' // pattern=N,...
  | 'version' // --version, --version=raw, --version=vX.Y.Z
  | 'seccompDefault' // --seccomp-default (RuntimeDefault)
  | 'help';

/** `cfg`: set it through the --config file instead; `dep`: deprecated for the stated reason. */
export type FlagNote = { kind: 'cfg' } | { kind: 'dep'; reason: string };

export interface FlagSpec {
  /** Long name without dashes, e.g. `pod-manifest-path`. */
  readonly name: string;
  /** One-letter alias without dash (`v`, `h`). */
  readonly short?: string;
  readonly type: FlagType;
  /** The default as the spec's table shows it (help text), or undefined when it states none. */
  readonly defaultText?: string;
  readonly note?: FlagNote;
  readonly stage?: 'alpha' | 'beta';
  /**
   * Dot path of the NodeAgentConfiguration field this flag sets (e.g. `staticPodPath`,
   * `authentication.anonymous.enabled`); undefined for flag-only options (--config, --cert-dir,
   * ...).
   */
  readonly configPath?: string;
  /**
   * Key under which a flag-only option is shown in the `NodeAgentFlags` document of --print-config.
   */
  readonly flagsField?: string;
  /** Help text (the spec's Meaning column, in our words). */
  readonly help: string;
  /** Feature gate this option needs when set to a non-default value, if any. */
  readonly requiresGate?: string;
  /**
   * For `mapStringString` eviction thresholds: also accept the reference's `key<value` pairs
   * (`memory.available<100Mi`) besides `key=value`.
   */
  readonly lessThanPairs?: boolean;
}

/**
 * A parsed flag value, in the representation the config file uses for that field (so applying a
 * flag is `setPath(config, configPath, value)`): durations as normalized Go strings ("2m0s"),
 * quantities as strings, maps as plain objects, lists as arrays.
 */
export type FlagValue =
  | string
  | number
  | boolean
  | readonly string[]
  | Readonly<Record<string, string>>
  | Readonly<Record<string, boolean>>
  | Readonly<Record<string, readonly string[]>>
  | readonly unknown[];

/** The result of parsing argv: values in command-line order (for deprecation notices). */
export interface ParsedFlags {
  /** Flag name -> parsed value, for every flag that was given. */
  readonly values: ReadonlyMap<string, FlagValue>;
  /** Names in the order first seen on the command line. */
  readonly order: readonly string[];
}
