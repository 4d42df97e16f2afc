// What TLS alone costs this Node per MiB: AES-GCM encryption and decryption in 16 KiB records
// (TLS's largest) through node:crypto, which is the OpenSSL that node:tls uses, best of several
// rounds; and the suite a Node client and server agree on. Every TLS hop of a port-forward pays
// one encryption and one decryption per byte, on top of what direct TCP costs.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface CipherCost {
  readonly encryptMs: number;
  readonly decryptMs: number;
}

/** Best-of-`rounds` ms per MiB for `alg` (aes-128-gcm, aes-256-gcm). */
export function aesGcmCost(alg: 'aes-128-gcm' | 'aes-256-gcm', rounds = 10): CipherCost {
  const record = Buffer.alloc(16384, 7);
  const key = randomBytes(alg === 'aes-128-gcm' ? 16 : 32);
  const iv = randomBytes(12);
  let encryptMs = Infinity;
  let decryptMs = Infinity;
  for (let r = 0; r < rounds; r++) {
    const e = createCipheriv(alg, key, iv);
    let t = performance.now();
    for (let i = 0; i < 256; i++) e.update(record); // 4 MiB
    encryptMs = Math.min(encryptMs, (performance.now() - t) / 4);
    const d = createDecipheriv(alg, key, iv);
    t = performance.now();
    for (let i = 0; i < 256; i++) d.update(record);
    decryptMs = Math.min(decryptMs, (performance.now() - t) / 4);
  }
  return { encryptMs, decryptMs };
}

export function describeCipherCosts(): string {
  const c128 = aesGcmCost('aes-128-gcm');
  const c256 = aesGcmCost('aes-256-gcm');
  const f = (c: CipherCost): string =>
    `encrypt ${c.encryptMs.toFixed(2)} ms, decrypt ${c.decryptMs.toFixed(2)} ms`;
  return `node:crypto (OpenSSL ${process.versions.openssl}) per MiB in 16 KiB records, best of 10: AES-128-GCM ${f(c128)}; AES-256-GCM ${f(c256)}`;
}
