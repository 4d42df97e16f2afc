// The seccomp profile of a container: its own securityContext, else the pod's, else
// RuntimeDefault with --seccomp-default and Unconfined without (the reference's getSeccompProfile).
// A Localhost profile is a file under <root-dir>/seccomp, named by localhostProfile.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RuntimeError, userMessage } from '../../../common/util/errors.js';
import { parseJsonBounded } from '../../../common/util/bounded-json.js';
import { CONFIG_FILE_LIMITS } from '../../../common/util/parse-limits.js';
import type { Container, Pod } from '../../pod/types.js';
import { goQuote } from '../../../common/util/go-quote.js';
import { ContainerConfigError } from '../types.js';

export type SeccompType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

export type SeccompProfile =
  | { type: 'RuntimeDefault' }
  | { type: 'Unconfined' }
  /** The profile file: <root-dir>/seccomp joined with localhostProfile. */
  | { type: 'Localhost'; path: string };

type Field = NonNullable<NonNullable<Container['securityContext']>['seccompProfile']>;

export function seccompType(pod: Pod, c: Container, seccompDefault: boolean): SeccompType {
  const f = c.securityContext?.seccompProfile ?? pod.spec.securityContext?.seccompProfile;
  if (f === undefined) return seccompDefault ? 'RuntimeDefault' : 'Unconfined';
  return f.type === 'RuntimeDefault' || f.type === 'Localhost' ? f.type : 'Unconfined';
}

function fromField(f: Field, profileRoot: string): SeccompProfile {
  if (f.type === 'RuntimeDefault') return { type: 'RuntimeDefault' };
  if (f.type === 'Localhost') {
    const name = f.localhostProfile ?? '';
    if (name === '')
      throw new ContainerConfigError(
        'localhostProfile must be set if seccompProfile type is Localhost.',
      );
    return { type: 'Localhost', path: join(profileRoot, name) };
  }
  return { type: 'Unconfined' };
}

/** The container's profile; `profileRoot` is <root-dir>/seccomp. */
export function seccompProfileOf(
  pod: Pod,
  c: Container,
  seccompDefault: boolean,
  profileRoot: string,
): SeccompProfile {
  const f = c.securityContext?.seccompProfile ?? pod.spec.securityContext?.seccompProfile;
  if (f !== undefined) return fromField(f, profileRoot);
  return seccompDefault ? { type: 'RuntimeDefault' } : { type: 'Unconfined' };
}

/**
 * A Localhost profile's JSON, compacted, for Docker's `seccomp=<profile>` (the engine takes the
 * profile itself, not a path); an unreadable or malformed file fails the container's creation.
 */
export async function loadSeccompProfile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RuntimeError(`cannot load seccomp profile ${goQuote(path)}: ${userMessage(err)}`, {
      cause: err,
    });
  }
  try {
    return JSON.stringify(parseJsonBounded(text, { limits: CONFIG_FILE_LIMITS, source: path }));
  } catch (err) {
    throw new RuntimeError(`cannot load seccomp profile ${goQuote(path)}: ${userMessage(err)}`, {
      cause: err,
    });
  }
}

/** Docker SecurityOpt for the profile: Docker's default profile needs no option. */
export function dockerSeccompOpts(p: SeccompProfile, localhostJson?: string): string[] {
  if (p.type === 'Unconfined') return ['seccomp=unconfined'];
  if (p.type === 'Localhost') return [`seccomp=${localhostJson ?? ''}`];
  return [];
}
