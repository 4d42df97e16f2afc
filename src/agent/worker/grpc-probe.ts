// gRPC probes as the reference's prober makes them: grpc.health.v1.Health/Check on the pod's IP
// and the probe's port, over plain text (credentials are not supported), User-Agent
// kube-probe/1.32, the probe's service name, and its messages for each outcome. The two messages
// of the health protocol are encoded by hand (one field each), so no .proto is loaded; the gRPC
// library loads with the first gRPC probe.
import type * as GrpcJs from '@grpc/grpc-js';
import { userMessage } from '../../common/util/errors.js';

export const PROBE_USER_AGENT = 'kube-probe/1.32';

/** grpc.health.v1.HealthCheckResponse.ServingStatus names, by number. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/**
 * HealthCheckRequest { string service = 1; }, the field always written (an empty message is
 * dropped by grpc-js, and an empty string decodes the same).
 */
export function encodeHealthCheckRequest(service: string): Buffer {
  const bytes = Buffer.from(service, 'utf8');
  return Buffer.concat([Buffer.from([0x0a, ...varint(bytes.length)]), bytes]);
}

/** HealthCheckResponse { ServingStatus status = 1; }: the status number (0 when absent). */
export function decodeHealthCheckResponse(buf: Buffer): number {
  let i = 0;
  let status = 0;
  while (i < buf.length) {
    const tag = buf[i++] ?? 0;
    const wire = tag & 7;
    let v = 0;
    let shift = 0;
    if (wire === 0) {
      for (;;) {
        const b = buf[i++] ?? 0;
        v += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if ((b & 0x80) === 0 || i >= buf.length) break;
      }
      if (tag >> 3 === 1) status = v;
    } else if (wire === 2) {
      let len = 0;
      for (;;) {
        const b = buf[i++] ?? 0;
        len += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if ((b & 0x80) === 0 || i >= buf.length) break;
      }
      i += len;
    } else break;
  }
  return status;
}

/** Go's time.Duration %v of whole seconds: 1s, 2m30s. */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m}m0s` : `${m}m${s % 60}s`;
}

/** The reference's gRPC probe: ok with "service healthy", or a failure message. */
export async function grpcHealthProbe(
  host: string,
  port: number,
  service: string,
  timeoutMs: number,
  nowMs: number,
): Promise<{ ok: boolean; output: string }> {
  const grpc = await import('@grpc/grpc-js');
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const client = new grpc.Client(addr, grpc.credentials.createInsecure(), {
    'grpc.primary_user_agent': PROBE_USER_AGENT,
  });
  const deadline = nowMs + timeoutMs;
  try {
    try {
      await new Promise<void>((resolve, reject) =>
        client.waitForReady(deadline, (err) => (err ? reject(err) : resolve())),
      );
    } catch (err) {
      return {
        ok: false,
        output:
          `timeout: failed to connect service "${addr}" within ${goDuration(timeoutMs)}: ` +
          userMessage(err),
      };
    }
    return await check(grpc, client, service, deadline, timeoutMs);
  } finally {
    client.close();
  }
}

async function check(
  grpc: typeof GrpcJs,
  client: GrpcJs.Client,
  service: string,
  deadline: number,
  timeoutMs: number,
): Promise<{ ok: boolean; output: string }> {
  let status: number;
  try {
    status = await new Promise<number>((resolve, reject) => {
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (s: string) => encodeHealthCheckRequest(s),
        (b: Buffer) => decodeHealthCheckResponse(b),
        service,
        new grpc.Metadata(),
        { deadline },
        (err, value) =>
          err || value === undefined ? reject(err ?? new Error('no answer')) : resolve(value),
      );
    });
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    const details =
      typeof err === 'object' && err !== null && 'details' in err ? String(err.details) : '';
    if (code === grpc.status.UNIMPLEMENTED)
      return {
        ok: false,
        output:
          `error: this server does not implement the grpc health protocol ` +
          `(grpc.health.v1.Health): ${details}`,
      };
    if (code === grpc.status.DEADLINE_EXCEEDED)
      return {
        ok: false,
        output: `timeout: health rpc did not complete within ${goDuration(timeoutMs)}`,
      };
    return { ok: false, output: `error: health rpc probe failed: ${userMessage(err)}` };
  }
  if (status !== 1)
    return {
      ok: false,
      output: `service unhealthy (responded with "${SERVING_STATUS[status] ?? String(status)}")`,
    };
  return { ok: true, output: 'service healthy' };
}
