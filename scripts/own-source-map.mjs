// Shrinks a source map to the project's own sources. Node parses a bundle's whole map the first
// time any stack trace names that bundle (streams read err.stack on every destroy(err)), and
// the dependencies' mappings are most of it: hundreds of milliseconds on the start-up path for
// frames no one reads as src/ lines. Frames in dependencies then show bundle positions.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...B64].map((c, i) => [c, i]));

/** The numbers of one base64 VLQ segment. */
function decodeSegment(text) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const d = DIGIT.get(ch);
    if (d === undefined) throw new Error(`bad source map character ${JSON.stringify(ch)}`);
    value += (d & 31) << shift;
    if (d & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

function encodeNumber(n) {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let s = '';
  do {
    let d = v & 31;
    v >>>= 5;
    if (v > 0) d |= 32;
    s += B64[d];
  } while (v > 0);
  return s;
}

/** Absolute segments per generated line: [column, source, line, sourceColumn, name?]. */
function decodeMappings(mappings) {
  const state = [0, 0, 0, 0];
  return mappings.split(';').map((line) => {
    let column = 0;
    return line === ''
      ? []
      : line.split(',').map((seg) => {
          const d = decodeSegment(seg);
          column += d[0];
          if (d.length === 1) return [column];
          for (let i = 1; i < d.length; i++) state[i - 1] += d[i];
          return d.length === 5
            ? [column, state[0], state[1], state[2], state[3]]
            : [column, state[0], state[1], state[2]];
        });
  });
}

function encodeMappings(lines) {
  const state = [0, 0, 0, 0];
  return lines
    .map((segs) => {
      let column = 0;
      return segs
        .map((s) => {
          let out = encodeNumber(s[0] - column);
          column = s[0];
          for (let i = 1; i < s.length; i++) {
            out += encodeNumber(s[i] - state[i - 1]);
            state[i - 1] = s[i];
          }
          return out;
        })
        .join(',');
    })
    .join(';');
}

/**
 * The map with only the segments whose source passes `own`, sources and names compacted. Each run
 * of other segments becomes one segment without a source (a generated column alone), so a frame in
 * a dependency's code maps to nothing rather than to the project's code before it on the same
 * line. With `lines`, only the first segment of each run on one source line is kept (and no
 * names): a frame still maps to its exact source line, its column to that line's first mapped
 * column, and a stack's mapping decodes several times fewer segments.
 */
export function ownSourceMap(map, own, { lines: lineOnly = false } = {}) {
  const sourceIndex = new Map();
  const nameIndex = new Map();
  const sources = [];
  const names = [];
  const lines = decodeMappings(map.mappings).map((segs) =>
    segs.flatMap((s) => {
      if (s.length < 4 || !own(map.sources[s[1]])) return [[s[0]]];
      if (!sourceIndex.has(s[1])) sourceIndex.set(s[1], sources.push(map.sources[s[1]]) - 1);
      const kept = [s[0], sourceIndex.get(s[1]), s[2], s[3]];
      if (lineOnly) return [kept];
      if (s.length === 5) {
        if (!nameIndex.has(s[4])) nameIndex.set(s[4], names.push(map.names[s[4]]) - 1);
        kept.push(nameIndex.get(s[4]));
      }
      return [kept];
    }),
  );
  const runs = lines.map((segs) =>
    segs.filter((x, i) => {
      const prev = segs[i - 1];
      if (prev === undefined || prev.length !== x.length) return true;
      if (x.length === 1) return false;
      return !lineOnly || x[1] !== prev[1] || x[2] !== prev[2];
    }),
  );
  return { version: 3, sources, names, mappings: encodeMappings(runs) };
}
