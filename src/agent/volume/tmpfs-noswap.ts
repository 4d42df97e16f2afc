// Whether a tmpfs can be mounted with `noswap`, so that memory-backed volumes (secrets, the
// projected service-account token, downwardAPI, emptyDir medium Memory) never reach swap: as the
// reference decides it, yes on a kernel from 6.4 on, else when a test mount with the option
// succeeds, and never inside a user namespace (the kernel refuses it there). Asked once.
import { mkdtemp, readFile, rmdir } from 'node:fs/promises';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The kernel version that knows tmpfs noswap. */
const NOSWAP_KERNEL: readonly [number, number] = [6, 4];

/** True when `kernelRelease` (uname -r) is at least 6.4. */
export function kernelKnowsNoswap(kernelRelease: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(kernelRelease);
  if (m === null) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > NOSWAP_KERNEL[0] || (major === NOSWAP_KERNEL[0] && minor >= NOSWAP_KERNEL[1]);
}

/** The initial user namespace maps every id (`0 0 4294967295`); any other map is a child's. */
export function inUserNamespace(uidMap: string): boolean {
  const f = uidMap.trim().split(/\s+/);
  return !(f.length === 3 && f[0] === '0' && f[1] === '0' && f[2] === '4294967295');
}

export interface NoswapProbe {
  kernelRelease: () => string;
  uidMap: () => Promise<string>;
  /** Mounts a tmpfs with noswap at a new directory and unmounts it; rejects when refused. */
  testMount: () => Promise<void>;
}

async function decide(p: NoswapProbe): Promise<boolean> {
  if (inUserNamespace(await p.uidMap().catch(() => ''))) return false;
  if (kernelKnowsNoswap(p.kernelRelease())) return true;
  return p.testMount().then(
    () => true,
    () => false,
  );
}

/** A memoised answer over `probe`. */
export function noswapSupport(probe: NoswapProbe): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () => (answer ??= decide(probe));
}

/** The host's probe: uname, /proc/self/uid_map, a test mount under the temp directory. */
export function hostNoswapProbe(
  mount: (dir: string, options: string) => Promise<void>,
  unmount: (dir: string) => Promise<void>,
): NoswapProbe {
  return {
    kernelRelease: release,
    uidMap: () => readFile('/proc/self/uid_map', 'utf8'),
    testMount: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tmpfs-noswap-test-'));
      try {
        await mount(dir, 'noswap');
        await unmount(dir);
      } finally {
        await rmdir(dir).catch(() => undefined);
      }
    },
  };
}
