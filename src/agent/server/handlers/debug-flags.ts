// /debug/flags/v (enableDebugFlagsHandler, with the debugging handlers): PUT a number to change
// the -v verbosity at run time, as the reference (k8s.io/apiserver routes.StringFlagPutHandler
// with component-base logs.GlogSetter, klog's Level.Set = strconv.ParseInt(value, 10, 32)).
// Another method is 406 "unsupported http method"; with the field false, 405 "flags endpoint is
// disabled.". The body is read up to 1 KiB (the reference reads it whole).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpError } from './respond.js';
import { goQuote } from '../../../common/util/go-quote.js';

export const DEBUG_FLAGS_V_PATH = '/debug/flags/v';
const MAX_BODY_BYTES = 1024;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The reference's writePlainText: text/plain, the text and a newline. */
function writePlainText(res: ServerResponse, status: number, text: string): void {
  const body = `${text}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** klog's Level.Set: a base-10 int32 (sign allowed), or Go's ParseInt error. */
export function parseVerbosity(value: string): { verbosity: number } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(value))
    return { error: `strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax` };
  const n = Number(BigInt(value));
  if (n < INT32_MIN || n > INT32_MAX)
    return { error: `strconv.ParseInt: parsing ${goQuote(value)}: value out of range` };
  return { verbosity: n };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves /debug/flags/v; `setVerbosity` absent means the field is false. */
export async function serveDebugFlagV(
  req: IncomingMessage,
  res: ServerResponse,
  setVerbosity: ((v: number) => void) | undefined,
): Promise<void> {
  if (setVerbosity === undefined) {
    httpError(res, 405, 'flags endpoint is disabled.');
    return;
  }
  if (req.method !== 'PUT') {
    writePlainText(res, 406, 'unsupported http method');
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    writePlainText(
      res,
      400,
      `error reading request body: the verbosity must be at most ${MAX_BODY_BYTES} bytes`,
    );
    return;
  }
  const parsed = parseVerbosity(body);
  if ('error' in parsed) {
    writePlainText(res, 400, `failed set klog.logging.verbosity ${body}: ${parsed.error}`);
    return;
  }
  setVerbosity(parsed.verbosity);
  writePlainText(res, 200, `successfully set klog.logging.verbosity to ${body}`);
}
