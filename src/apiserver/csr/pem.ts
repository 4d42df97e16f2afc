// Base64 []byte fields of CSR objects; PEM itself is src/common/util/pem.ts.

const STRICT_B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a `[]byte` field of a JSON object (standard base64, as Go's encoding/json writes it).
 * Returns undefined for text that is not valid base64.
 */
export function decodeBase64Field(s: string): Buffer | undefined {
  if (s.length % 4 !== 0 || !STRICT_B64_RE.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}
