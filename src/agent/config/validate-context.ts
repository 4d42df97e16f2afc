// What every validation rule needs: the field -> flag names for messages, the gate check, and a
// problem list. Messages follow the reference: `invalid configuration: <field> (--<flag>) <value>
// <what is wrong>`.

export interface ValidationOptions {
  /** The flag that sets a config field, by dotted field path (from the flag table). */
  flagFor?: (fieldPath: string) => string | undefined;
  /**
   * Whether a feature gate is on, defaults included; default: the known gates over featureGates.
   */
  gateEnabled?: (name: string) => boolean;
}

export class Problems {
  readonly list: string[] = [];
  readonly #flagFor: (fieldPath: string) => string | undefined;

  constructor(flagFor: ((fieldPath: string) => string | undefined) | undefined) {
    this.#flagFor = flagFor ?? (() => undefined);
  }

  /** `imageGCLowThresholdPercent (--image-gc-low-threshold)` */
  field(path: string): string {
    const flag = this.#flagFor(path);
    return flag === undefined ? path : `${path} (--${flag})`;
  }

  /** Adds `invalid configuration: <field> <value> <text>`. */
  add(path: string, value: unknown, text: string): void {
    this.list.push(`invalid configuration: ${this.field(path)} ${show(value)} ${text}`);
  }

  /** Adds `invalid configuration: <text>` for messages that do not lead with one field. */
  raw(text: string): void {
    this.list.push(`invalid configuration: ${text}`);
  }

  /** Adds a message exactly as given (the reference words some flag checks without a prefix). */
  plain(text: string): void {
    this.list.push(text);
  }
}

/** Go's %v for the values we print, with strings quoted so empty and spaced values stay visible. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v))
    return `[${v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')}]`;
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}
