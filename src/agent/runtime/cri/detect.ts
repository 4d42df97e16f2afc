// A unix socket whose name says neither Docker nor a CRI runtime: asked which it is. A Docker
// engine answers an HTTP/1.1 request with an HTTP/1.1 status line; a gRPC server (HTTP/2 only)
// answers otherwise or not at all. An absent socket cannot say: Docker, as before CRI.
import { connect } from 'node:net';
import type { Clock } from '../../../common/util/clock.js';

export function probeUnixSocket(
  path: string,
  clock: Clock,
  timeoutMs = 2000,
): Promise<'docker' | 'cri' | 'absent'> {
  return new Promise((resolve) => {
    let got = '';
    let done = false;
    const finish = (v: 'docker' | 'cri' | 'absent'): void => {
      if (done) return;
      done = true;
      cancel?.();
      s.destroy();
      resolve(v);
    };
    const s = connect(path);
    const cancel = clock.setTimer?.(timeoutMs, () => finish('cri'), { unref: true });
    s.once('connect', () => s.write('GET /_ping HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.length >= 7) finish(got.startsWith('HTTP/1.') ? 'docker' : 'cri');
    });
    s.once('error', (err: NodeJS.ErrnoException) =>
      finish(err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? 'absent' : 'cri'),
    );
    s.once('close', () => finish(got.startsWith('HTTP/1.') ? 'docker' : 'cri'));
  });
}
