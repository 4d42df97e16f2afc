// JSON within bounds (bounded-parse.ts describes the bounds): its own module, so that readers of
// JSON only (the API client's protobuf and JSON codecs on the agent's bootstrap path) do not load
// the `yaml` library that bounded-parse.ts's YAML half brings.
import { InputSyntaxError } from './errors.js';
import { checkSize, type BoundedInput } from './bounded-input.js';
import { scanJson } from './bounded-json-scan.js';

/**
 * JSON.parse within bounds. Throws InputLimitError over a bound and InputSyntaxError (with
 * JSON.parse's own message) for malformed JSON; never anything else.
 */
export function parseJsonBounded(text: string, input: BoundedInput): unknown {
  checkSize(text, input);
  scanJson(text, input);
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (e) {
    throw new InputSyntaxError(e instanceof Error ? e.message : String(e), {
      source: input.source,
      cause: e,
    });
  }
}
