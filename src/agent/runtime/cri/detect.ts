// A unix socket whose name says neither Docker nor a CRI runtime: asked which it is, with the
// HTTP/2 connection preface (no request is made of either). A Docker engine (HTTP/1.1 only)
// refuses it with an HTTP/1.1 status line; a gRPC server (HTTP/2) answers with its SETTINGS frame.
// An absent socket cannot say: Docker, as before CRI.
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
    s.once('connect', () => s.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
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
