// Stack traces through the bundles' source maps, read when a stack is printed (a trace-level log
// line, an uncaught exception), not when it is made. Node's own source-map support (--enable-
// source-maps, process.setSourceMapsEnabled) maps every stack as it is formatted: streams format
// err.stack on each destroy(err), so the first closed connection decoded the whole map of the
// agent's bundle (30-50 ms on the start-up path) and kept it decoded for the life of the process
// (about 4 MB of heap). Here a frame `at f (<file>:<line>:<column>)` whose file has a source map
// beside it (`<file>.map`, a v3 map) becomes `at f (<source>:<line>:<column>)`; every other line
// is kept as it is. Decoded maps are dropped once no stack has been mapped for a minute.
import { readFileSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterMs, systemClock } from '../util/clock.js';
import { isRecord } from '../util/json-shape.js';

/** A map file larger than this is not read (the agent's largest is under 1 MB). */
const MAX_MAP_BYTES = 16 * 1024 * 1024;
const IDLE_MS = 60_000;
/** `    at name (location)` or `    at location`, location `<file>:<line>:<column>`. */
const FRAME = /^(\s*at (?:.*? \()?)((?:file:\/\/)?\/[^():]+):(\d+):(\d+)(\)?)$/;

interface Decoded {
  readonly map: SourceMap;
  /** Each source the map names, as an absolute path. */
  readonly sources: ReadonlyMap<string, string>;
}

const decoded = new Map<string, Decoded | undefined>();
let cancelIdle: (() => void) | undefined;

function pathOf(location: string): string {
  return location.startsWith('file://') ? fileURLToPath(location) : location;
}

/** A v3 source map's payload (its sources strings, its mappings a string), or undefined. */
function readMap(mapFile: string): SourceMapPayload | undefined {
  const m: unknown = JSON.parse(readFileSync(mapFile, 'utf8'));
  if (!isRecord(m) || typeof m['mappings'] !== 'string') return undefined;
  const sources = m['sources'];
  if (!Array.isArray(sources) || !sources.every((x) => typeof x === 'string')) return undefined;
  const root = typeof m['sourceRoot'] === 'string' ? m['sourceRoot'] : '';
  return { ...(m as unknown as SourceMapPayload), sources, sourceRoot: root };
}

/** The decoded map of a generated file, or undefined when it has none (remembered either way). */
function mapOf(file: string): Decoded | undefined {
  if (decoded.has(file)) return decoded.get(file);
  let found: Decoded | undefined;
  try {
    const mapFile = `${file}.map`;
    const payload = statSync(mapFile).size <= MAX_MAP_BYTES ? readMap(mapFile) : undefined;
    if (payload !== undefined) {
      const root = resolve(dirname(mapFile), payload.sourceRoot);
      found = {
        map: new SourceMap(payload),
        sources: new Map(payload.sources.map((s) => [s, resolve(root, s)])),
      };
    }
  } catch {
    // no map, or not one Node can read: the frame stays as it is
  }
  decoded.set(file, found);
  return found;
}

/** One frame line, mapped when its file has a map and the position is in it. */
function mapLine(line: string): string {
  const m = FRAME.exec(line);
  if (m === null) return line;
  const [, head = '', location = '', lineNo = '', column = '', tail = ''] = m;
  let file: string;
  try {
    file = pathOf(location);
  } catch {
    return line; // a file: URL that names no path
  }
  const d = mapOf(file);
  if (d === undefined) return line;
  const entry = d.map.findEntry(Number(lineNo) - 1, Number(column) - 1) as {
    generatedLine?: number;
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
  };
  // findEntry answers with the closest position before this one, even from an earlier line.
  if (entry.generatedLine !== Number(lineNo) - 1) return line;
  if (entry.originalSource === undefined || entry.originalLine === undefined) return line;
  const source = d.sources.get(entry.originalSource) ?? entry.originalSource;
  return `${head}${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}${tail}`;
}

/** The stack with each frame of a source-mapped file at its source position. */
export function mapStack(stack: string): string {
  const out = stack.split('\n').map(mapLine).join('\n');
  if (decoded.size > 0) {
    cancelIdle?.();
    cancelIdle = afterMs(systemClock, IDLE_MS, () => decoded.clear(), { unref: true });
  }
  return out;
}
