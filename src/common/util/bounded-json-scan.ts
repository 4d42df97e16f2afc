// One linear pass over a JSON text, without recursion, that throws InputLimitError at the first
// bound it passes: nesting, keys per object, values, string length. It does not check the syntax
// (JSON.parse does that next); on malformed text its counts are still upper bounds of what a
// parser could build, so nothing that passes can exhaust the stack or the heap.

import { limitError, type BoundedInput, type PathSegment } from './bounded-input.js';

interface Frame {
  readonly isObject: boolean;
  /** Keys (objects) or items (arrays) seen so far. */
  count: number;
  key: string;
  expectKey: boolean;
}

function pathOf(stack: readonly Frame[]): PathSegment[] {
  return stack.map((f) => (f.isObject ? f.key : Math.max(0, f.count - 1)));
}

function isDelimiter(c: number): boolean {
  // , : [ ] { } " and JSON whitespace
  return (
    c === 0x2c ||
    c === 0x3a ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x22 ||
    c === 0x20 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x09
  );
}

/** Index of the closing quote of the string opening at `i` (or text.length when unterminated). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x5c) j += 2;
    else if (d === 0x22) return j;
    else j++;
  }
  return text.length;
}

class JsonScan {
  private readonly stack: Frame[] = [];
  private nodes = 0;
  private readonly text: string;
  private readonly input: BoundedInput;
  constructor(o: { text: string; input: BoundedInput }) {
    this.text = o.text;
    this.input = o.input;
  }

  run(): void {
    const { text } = this;
    let i = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) i = this.open(i, c === 0x7b);
      else if (c === 0x7d || c === 0x5d) {
        this.stack.pop();
        i++;
      } else if (c === 0x2c) {
        const top = this.stack[this.stack.length - 1];
        if (top?.isObject === true) top.expectKey = true;
        i++;
      } else if (c === 0x22) i = this.string(i);
      else if (c === 0x3a || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else i = this.literal(i);
    }
  }

  private fail(
    limit: Parameters<typeof limitError>[1],
    at: number,
    path: PathSegment[] = pathOf(this.stack),
  ): never {
    throw limitError(this.input, limit, this.text, at, path);
  }

  /** A value begins at `at`: count it (and the item of its array). */
  private value(at: number): void {
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined && !top.isObject) top.count++;
    if (++this.nodes > this.input.limits.maxNodes) this.fail('maxNodes', at);
  }

  private open(i: number, isObject: boolean): number {
    this.value(i);
    if (this.stack.length + 1 > this.input.limits.maxDepth) this.fail('maxDepth', i);
    this.stack.push({ isObject, count: 0, key: '', expectKey: true });
    return i + 1;
  }

  private string(i: number): number {
    const end = stringEnd(this.text, i);
    if (end - i - 1 > this.input.limits.maxStringLength) this.fail('maxStringLength', i);
    const top = this.stack[this.stack.length - 1];
    if (top?.isObject === true && top.expectKey) {
      top.expectKey = false;
      top.key = this.text.slice(i + 1, Math.min(end, i + 80));
      if (++top.count > this.input.limits.maxKeysPerObject) this.fail('maxKeysPerObject', i);
    } else this.value(i);
    return end + 1;
  }

  private literal(i: number): number {
    let j = i + 1;
    while (j < this.text.length && !isDelimiter(this.text.charCodeAt(j))) j++;
    if (j - i > this.input.limits.maxStringLength) this.fail('maxStringLength', i);
    this.value(i);
    return j;
  }
}

/** Throws InputLimitError at the first bound of input.limits that `text` passes (size excepted). */
export function scanJson(text: string, input: BoundedInput): void {
  new JsonScan({ text, input }).run();
}
