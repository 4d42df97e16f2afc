// Runs bench/streaming-reader.ts in a process of its own, as a real client would read, and gives
// its throughput in MiB/s. `env` holds the reader's READ_* settings beyond its mode and length.
import { spawn } from 'node:child_process';

export function externalReadMiBs(
  mode: string,
  expectBytes: number,
  env: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, ...env, READ_MODE: mode, READ_EXPECT: String(expectBytes) };
    const c = spawn(
      process.execPath,
      [new URL('./streaming-reader.js', import.meta.url).pathname],
      { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.once('error', reject);
    c.once('close', (code) => {
      if (code !== 0) return reject(new Error(`reader (${mode}) exited with ${String(code)}`));
      const r = JSON.parse(out) as { bytes: number; ms: number };
      if (r.bytes !== expectBytes)
        return reject(new Error(`reader (${mode}) got ${r.bytes} bytes, expected ${expectBytes}`));
      resolve(r.bytes / 1048576 / (r.ms / 1000));
    });
  });
}
