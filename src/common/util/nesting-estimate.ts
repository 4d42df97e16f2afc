// A cheap upper bound on the nesting of a YAML (or JSON) text, in one linear pass and without
// loading a YAML library: for callers that keep a fast path through a recursive parser (js-yaml)
// for small, shallow texts and send everything else through bounded-parse. It over-counts (brackets
// and indicators inside strings count too), never under-counts: in block context every two levels
// of nesting take at least two columns of indentation or an indicator (`- `, `? `, `: `) on the
// line.

export function yamlNestingUpperBound(text: string): number {
  let flow = 0;
  let flowMax = 0;
  let blockMax = 0;
  let lineStart = true;
  let indent = 0;
  let indicators = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      blockMax = Math.max(blockMax, 2 * indent + indicators + 2);
      lineStart = true;
      indent = 0;
      indicators = 0;
      continue;
    }
    if (lineStart && (c === 0x20 || c === 0x09)) {
      indent++;
      continue;
    }
    lineStart = false;
    if (c === 0x5b || c === 0x7b) flowMax = Math.max(flowMax, ++flow);
    else if (c === 0x5d || c === 0x7d) flow = Math.max(0, flow - 1);
    else if (c === 0x2d || c === 0x3a || c === 0x3f) indicators++;
  }
  blockMax = Math.max(blockMax, 2 * indent + indicators + 2);
  return blockMax + flowMax;
}
