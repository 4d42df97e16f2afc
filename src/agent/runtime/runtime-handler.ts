// The RuntimeClass handlers a runtime has, for runtimes that take no handler of their own: Docker
// has only its default one, '' or `docker` (as cri-dockerd, the reference's Docker path, checks
// RunPodSandbox's runtime_handler); process:// only ''. Any other handler fails the sandbox with
// cri-dockerd's answer as the reference kubelet shows it (a gRPC Unknown status around
// `RuntimeHandler "<name>" not supported`). CRI runtimes get the handler in RunPodSandbox and
// answer for themselves.
import { RuntimeError } from '../../common/util/errors.js';

export const DOCKER_HANDLERS: readonly string[] = ['', 'docker'];
export const PROCESS_HANDLERS: readonly string[] = [''];

/** Throws when `handler` is not one of `known`. */
export function checkRuntimeHandler(handler: string | undefined, known: readonly string[]): void {
  if (handler === undefined || known.includes(handler)) return;
  throw new RuntimeError(
    `rpc error: code = Unknown desc = RuntimeHandler ${JSON.stringify(handler)} not supported`,
  );
}
