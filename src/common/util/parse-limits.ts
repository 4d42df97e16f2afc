// The bounds every parsed input is held to (files, manifests, request bodies), so that no input
// can exhaust the stack or the heap of either program. The reference (kube-apiserver, kubelet)
// caps request bodies at 3 MiB and nesting at 10,000 levels (Go's encoding/json and go-yaml);
// our nesting cap is lower because the `yaml` composer and our own walkers recurse on Node's
// default stack (about 1,000 levels of YAML overflow it), and a stack overflow inside V8's
// regular-expression compiler is not an exception but a process abort. No object the programs
// serve or read comes near these values: a Pod is about 12 levels deep and holds a few hundred
// nodes. The value count is kept low because the `yaml` library spends about 30 microseconds per
// value (lexer, CST, composer) on a loaded machine: 20,000 values is well under a second.

export interface ParseLimits {
  /** Size of the whole input, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Nesting of mappings and sequences (objects and arrays); the top-level value is level 1. */
  readonly maxDepth: number;
  /** YAML documents in one input (`---` separated). */
  readonly maxDocuments: number;
  /** Keys in one mapping (object). */
  readonly maxKeysPerObject: number;
  /** Values (scalars, mappings, sequences; keys are not counted) in the whole input. */
  readonly maxNodes: number;
  /** Length of one scalar or key, in source characters (quotes and escapes included). */
  readonly maxStringLength: number;
  /** YAML aliases (`*name`) in the whole input. */
  readonly maxAliases: number;
}

export type ParseLimitName = keyof ParseLimits;

const MIB = 1024 * 1024;

/** The common bounds; inputs differ only in how many documents they may hold. */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxBytes: 3 * MIB,
  maxDepth: 100,
  maxDocuments: 1,
  maxKeysPerObject: 10_000,
  maxNodes: 20_000,
  maxStringLength: 1 * MIB,
  maxAliases: 100,
};

/** plat-apiserver request bodies (the reference's 3 MiB body limit; one object per body). */
export const API_BODY_LIMITS: ParseLimits = DEFAULT_PARSE_LIMITS;

/**
 * JSON patch bodies: the reference's 10,000 operations (413 beyond) must fit, at up to five values
 * each plus their values; JSON (unlike YAML) costs little per value.
 */
export const JSON_PATCH_LIMITS: ParseLimits = { ...API_BODY_LIMITS, maxNodes: 100_000 };

/**
 * Static pod manifests (files and --manifest-url): a few documents (Pods or PodLists) per input,
 * at most 10 MiB (the agent's manifest size limit).
 */
export const MANIFEST_LIMITS: ParseLimits = {
  ...DEFAULT_PARSE_LIMITS,
  maxBytes: 10 * MIB,
  maxDocuments: 100,
};

/**
 * Configuration files of both programs (agent config and drop-ins, platconfig, API server kinds):
 * one document is read; a few more are parsed only so the error can say where the second begins.
 */
export const CONFIG_FILE_LIMITS: ParseLimits = { ...DEFAULT_PARSE_LIMITS, maxDocuments: 10 };

/** What each limit is called in messages. */
export const LIMIT_TEXT: Record<ParseLimitName, string> = {
  maxBytes: 'bytes',
  maxDepth: 'levels of nesting',
  maxDocuments: 'YAML documents',
  maxKeysPerObject: 'keys in one object',
  maxNodes: 'values',
  maxStringLength: 'characters in one string',
  maxAliases: 'YAML aliases',
};
