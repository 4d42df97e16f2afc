// /configz: the effective configuration, with secrets masked. The configuration part redacts
// before handing the value over; this second pass masks the known secret-bearing fields again so
// a forgotten redaction can never leak a header value or token through the server.

const MASK = '<masked>';
const SECRET_MAP_FIELDS = new Set(['staticPodURLHeader', 'manifestURLHeader']);
const SECRET_SCALAR = /(token|password|secret)$/i;

/** A JSON object (arrays are taken first by the caller). */
function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object';
}

export function maskSecrets(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, key));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_MAP_FIELDS.has(k) && isObject(v)) {
        out[k] = Object.fromEntries(
          Object.entries(v).map(([h, x]) => [h, Array.isArray(x) ? [MASK] : MASK]),
        );
      } else {
        out[k] = maskSecrets(v, k);
      }
    }
    return out;
  }
  if (typeof value === 'string' && SECRET_SCALAR.test(key) && value !== '') return MASK;
  return value;
}

/** The /configz document: the reference wraps its configuration under one key. */
export function configzDocument(config: unknown): unknown {
  return { nodeagentconfig: maskSecrets(config) };
}
