// nodeInfo: machine and boot identifiers, kernel, OS image, runtime and agent versions.

import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import { goArch, goOs } from './labels.js';
import type { NodeSystemInfo } from './types.js';

async function firstLine(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n')[0]?.trim() ?? '';
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
    systemUUID: await firstLine('/sys/class/dmi/id/product_uuid'),
    bootID: await firstLine('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImageFrom(await readFile('/etc/os-release', 'utf8').catch(() => '')),
    containerRuntimeVersion: o.containerRuntimeVersion,
    kubeletVersion: o.agentVersion,
    kubeProxyVersion: '',
    operatingSystem: goOs(),
    architecture: goArch(),
  };
}
