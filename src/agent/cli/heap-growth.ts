// The old generation's growth (README, "Agent memory"): after each full collection V8 sets the
// next collection's limit at what survived times a factor it picks from GC and allocation speed
// (up to 2-4x here); the agent sets it to 1.1 (--heap-growing-percent=10) once it is built (its
// client certificate settled, its parts loaded), before its pods start. Not on bin/nodeagent's
// #! line: any V8 flag away from its default changes V8's flag hash, and node then refuses the
// code cache it embeds for its built-in modules (requiring 18 built-ins took 118-120 ms against
// 85-87) and the build's code caches, made under the defaults. V8 reads this flag at every full
// collection (src/heap/heap-controller.cc, MemoryController::GrowingFactor), so setting it at run
// time takes effect; a code cache loaded afterwards (a vendor group, src/agent/cli/code-cache.ts)
// is compiled with it set back to the default for that moment, as LATE_V8_FLAGS tells it.
import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags the agent sets at run time, and their defaults (code-cache.ts reads them by this
 * key).
 */
export const LATE_V8_FLAGS = Symbol.for('nodeagent.lateV8Flags');

export interface LateV8Flags {
  readonly flags: string;
  readonly defaults: string;
}

const HEAP_GROWTH: LateV8Flags = {
  flags: '--heap-growing-percent=10',
  defaults: '--heap-growing-percent=0',
};

/** Sets the old generation's growth to 10% (once; again is a no-op). */
export function setHeapGrowth(): void {
  const holder = globalThis as { [LATE_V8_FLAGS]?: LateV8Flags };
  if (holder[LATE_V8_FLAGS] !== undefined) return;
  setFlagsFromString(HEAP_GROWTH.flags);
  holder[LATE_V8_FLAGS] = HEAP_GROWTH;
}
