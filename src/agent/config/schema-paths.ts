// Facts about the schema's shape that merging and the flag-table checks need: which dotted paths
// are maps (replaced whole by a file, merged key by key by a drop-in) and which leaf paths exist.
import { z } from 'zod';
import { nodeAgentConfigurationSchema } from './schema.js';

function unwrap(t: z.ZodType): z.ZodType {
  let cur = t;
  while (
    cur instanceof z.ZodOptional ||
    cur instanceof z.ZodNullable ||
    cur instanceof z.ZodDefault
  )
    cur = cur.unwrap() as z.ZodType;
  return cur;
}

function walk(obj: z.ZodObject, prefix: string, maps: Set<string>, leaves: Set<string>): void {
  for (const [k, v] of Object.entries<z.ZodType>(obj.shape)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    const t = unwrap(v);
    if (t instanceof z.ZodObject) walk(t, path, maps, leaves);
    else {
      if (t instanceof z.ZodRecord) maps.add(path);
      leaves.add(path);
    }
  }
}

export interface SchemaPaths {
  /** Paths of map-valued fields (featureGates, evictionHard, ...). */
  readonly maps: ReadonlySet<string>;
  /** Every settable leaf path (maps and lists count as leaves). */
  readonly leaves: ReadonlySet<string>;
}

export function schemaPaths(): SchemaPaths {
  const maps = new Set<string>();
  const leaves = new Set<string>();
  walk(nodeAgentConfigurationSchema, '', maps, leaves);
  return { maps, leaves };
}
