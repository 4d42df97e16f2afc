// Lifecycle hooks as the reference's validateLifecycle and validateHandler check them: each of
// postStart and preStop names exactly one handler (`must specify a handler type`; every further
// one `may not specify more than 1 handler type`, in the order exec, httpGet, tcpSocket, sleep),
// exec has a command, httpGet a valid port and scheme (path and scheme as the API defaults them:
// "/" and HTTP), tcpSocket a valid port, and sleep lasts more than 0 seconds and no longer than
// terminationGracePeriodSeconds (the 1.32 default, PodLifecycleSleepActionAllowZero off).
import { forbidden, invalid, notSupported, required } from './field-errors.js';
import type { Container, LifecycleHandler } from './types.js';
import { portOrName } from './validate-ports-probes.js';

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;
const SCHEMES = ['HTTP', 'HTTPS'];

function validateHandler(h: LifecycleHandler, grace: number, path: string, out: string[]): void {
  const set = HANDLERS.filter((k) => h[k] !== undefined);
  if (set.length === 0) out.push(required(path, 'must specify a handler type'));
  for (const extra of set.slice(1))
    out.push(forbidden(`${path}.${extra}`, 'may not specify more than 1 handler type'));
  switch (set[0]) {
    case 'exec':
      if ((h.exec?.command ?? []).length === 0) out.push(required(`${path}.exec.command`));
      break;
    case 'httpGet': {
      const g = h.httpGet;
      if (g === undefined) break;
      portOrName(g.port, `${path}.httpGet.port`, out);
      const scheme = g.scheme === undefined || g.scheme === '' ? 'HTTP' : g.scheme;
      if (!SCHEMES.includes(scheme))
        out.push(notSupported(`${path}.httpGet.scheme`, scheme, SCHEMES));
      break;
    }
    case 'tcpSocket':
      if (h.tcpSocket !== undefined) portOrName(h.tcpSocket.port, `${path}.tcpSocket.port`, out);
      break;
    case 'sleep': {
      const s = h.sleep?.seconds ?? 0;
      if (s <= 0 || s > grace)
        out.push(
          invalid(
            `${path}.sleep`,
            s,
            `must be greater than 0 and less than terminationGracePeriodSeconds (` +
              `${grace}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for ` +
              `zero sleep.`,
          ),
        );
      break;
    }
    default:
  }
}

/**
 * The container's hooks; `grace`: the pod's terminationGracePeriodSeconds (defaulted 30). An init
 * container that is no sidecar may have none.
 */
export function validateLifecycle(
  c: Container,
  where: { isInit: boolean; grace: number },
  path: string,
  out: string[],
): void {
  const l = c.lifecycle;
  if (l === undefined) return;
  if (where.isInit && c.restartPolicy !== 'Always') {
    out.push(forbidden(path, 'may not be set for init containers without restartPolicy=Always'));
    return;
  }
  const { grace } = where;
  if (l.postStart !== undefined) validateHandler(l.postStart, grace, `${path}.postStart`, out);
  if (l.preStop !== undefined) validateHandler(l.preStop, grace, `${path}.preStop`, out);
}
