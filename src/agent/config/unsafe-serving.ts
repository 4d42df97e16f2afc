// Unsafe serving defaults are loud. The reference's legacy flag defaults (anonymous on,
// AlwaysAllow, address 0.0.0.0) stay the defaults, but with them anyone who reaches the port can
// run commands in containers through /exec, /run, /attach and /portForward. When that is the
// configuration, the agent says so at start and --print-config marks it, naming the flags that
// close it.
import { isIPv4, isIPv6 } from 'node:net';
import type { NodeAgentConfiguration } from './schema.js';

const COMMAND_PATHS = '/exec, /run, /attach and /portForward';
const CLOSING_FLAGS = '--anonymous-auth=false, --authorization-mode=Webhook, --address=127.0.0.1';

/** True for an address only this host can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase();
  if (a === 'localhost') return true;
  if (isIPv4(a)) return a.startsWith('127.');
  if (isIPv6(a)) return a === '::1' || a === '0:0:0:0:0:0:0:1' || a.startsWith('::ffff:127.');
  return false;
}

/** The warning for `c`, or undefined when the command endpoints are closed to strangers. */
export function unsafeServingWarning(c: NodeAgentConfiguration): string | undefined {
  if (!c.enableServer || !c.enableDebuggingHandlers || isLoopbackAddress(c.address))
    return undefined;
  const open: string[] = [];
  if (c.authentication.anonymous.enabled)
    open.push('anonymous requests are accepted (--anonymous-auth=true)');
  if (c.authorization.mode === 'AlwaysAllow')
    open.push('every request is allowed (--authorization-mode=AlwaysAllow)');
  if (open.length === 0) return undefined;
  return (
    `the agent serves ${COMMAND_PATHS} on ${c.address}:${c.port}, an address other hosts ` +
    `can reach, and ${open.join(' and ')}: anyone who reaches the port can run commands in ` +
    `its containers; close it with ${CLOSING_FLAGS} (or --enable-debugging-handlers=false)`
  );
}
