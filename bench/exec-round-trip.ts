// One exec of a command over SPDY (v4.channel.k8s.io, stdout only), as client-go's executor
// speaks it, timed from the upgrade request to the v4 Status: the exec figure of the streaming
// benchmarks, straight to an agent or through an API server.
import { openExecStreams, readAll, spdyUpgrade } from '../test/helpers/spdy-client.js';

export interface ExecTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** Milliseconds of one exec at `url` (its query names the command); throws unless it succeeded. */
export async function spdyExecMs(url: string, tls: ExecTls): Promise<number> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url, protocols: ['v4.channel.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`exec at ${url} refused: ${r.status} ${r.body}`);
  const st = await openExecStreams(r.session, ['stdout']);
  const [status] = await Promise.all([readAll(st.get('error')!), readAll(st.get('stdout')!)]);
  if (!status.includes('Success')) throw new Error(`exec at ${url} failed: ${status}`);
  return performance.now() - t0;
}
