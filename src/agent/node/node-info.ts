// nodeInfo: machine and boot identifiers, kernel, OS image, runtime and agent versions, read as
// the reference reads them: the system UUID from the first of DMI's product_uuid, the device
// tree's system-id or vm,uuid, and /etc/machine-id (cadvisor's order); the runtime's version as a
// generic version (`1.6.20~ds1` -> `containerd://1.6.20`); kubeProxyVersion, deprecated, is the
// agent's version as the reference 1.32 still reports it.

import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import { goArch, goOs } from './labels.js';
import type { NodeSystemInfo } from './types.js';

async function firstLine(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n')[0]?.trim() ?? '';
}

/** The trimmed text of the first of `paths` that can be read (NULs at the end dropped). */
export async function firstReadable(paths: readonly string[]): Promise<string> {
  for (const p of paths) {
    const text = await readFile(p, 'utf8').catch(() => undefined);
    if (text !== undefined) return text.replace(/\0+$/, '').trim();
  }
  return '';
}

export const SYSTEM_UUID_FILES = [
  '/sys/class/dmi/id/product_uuid',
  '/proc/device-tree/system-id',
  '/proc/device-tree/vm,uuid',
  '/etc/machine-id',
] as const;

/**
 * A version as the reference's ParseGeneric then String() give it: two or more dot-separated
 * numbers (the first without a leading zero) and whatever follows dropped; undefined when it is
 * not one.
 */
export function genericVersion(text: string): string | undefined {
  const m = /^\s*v?(\d+(?:\.\d+)+)/.exec(text);
  if (m?.[1] === undefined) return undefined;
  const parts = m[1].split('.');
  if (parts[0]?.startsWith('0') === true && parts[0] !== '0') return undefined;
  if (parts.some((p) => !Number.isSafeInteger(Number(p)))) return undefined;
  return parts.map((p) => String(Number(p))).join('.');
}

/** nodeInfo.containerRuntimeVersion: `<runtime>://<version>`, the version as the reference reads it. */
export function runtimeVersionText(name: string, version: string): string {
  return `${name}://${genericVersion(version) ?? version}`;
}

export function osImageFrom(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  return m?.[1] === undefined ? 'Unknown' : m[1].replace(/^"(.*)"$/, '$1');
}

export async function nodeSystemInfo(o: {
  agentVersion: string;
  containerRuntimeVersion: string;
}): Promise<NodeSystemInfo> {
  return {
    machineID: await firstLine('/etc/machine-id'),
    systemUUID: await firstReadable(SYSTEM_UUID_FILES),
    bootID: await firstLine('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImageFrom(await readFile('/etc/os-release', 'utf8').catch(() => '')),
    containerRuntimeVersion: o.containerRuntimeVersion,
    kubeletVersion: o.agentVersion,
    kubeProxyVersion: o.agentVersion,
    operatingSystem: goOs(),
    architecture: goArch(),
  };
}
