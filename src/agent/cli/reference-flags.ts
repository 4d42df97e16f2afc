// The agent answers to the reference's flag spellings, so a kubeadm node's systemd drop-in works
// with only the binary's path changed: `kube` reads as `plat` (--kubeconfig,
// --bootstrap-kubeconfig, --kube-api-qps, --kube-reserved, ...) and `kubelet` as `nodeagent`
// (--kubelet-cgroups). A reference spelling selects the kubernetes naming profile when
// --platform-profile is not given, and conflicts with --platform-profile=platform
// (profile-signals.ts).
import { FLAGS } from './flags.js';

const KNOWN = new Set(FLAGS.map((f) => f.name));

/** The profile the command line asks for (last one wins), or undefined. */
export function profileOnCommandLine(argv: readonly string[]): string | undefined {
  let profile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') break;
    if (a.startsWith('--platform-profile=')) profile = a.slice('--platform-profile='.length);
    else if (a === '--platform-profile') profile = argv[i + 1];
  }
  return profile;
}

/** Our flag name for a reference spelling, or undefined when it is not one. */
export function ourFlagName(name: string): string | undefined {
  if (KNOWN.has(name)) return undefined;
  const translated = name.replace(/^kubelet-/, 'nodeagent-').replace(/kube/g, 'plat');
  return translated !== name && KNOWN.has(translated) ? translated : undefined;
}

/** Rewrites the reference's flag spellings in `argv` to ours (values untouched). */
export function translateReferenceFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const a of argv) {
    if (rest || !a.startsWith('--') || a === '--') {
      if (a === '--') rest = true;
      out.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const ours = ourFlagName(name);
    out.push(ours === undefined ? a : `--${ours}${eq < 0 ? '' : a.slice(eq)}`);
  }
  return out;
}
