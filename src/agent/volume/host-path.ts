// hostPath volume types, checked before the pod's containers start, with the reference's
// messages: DirectoryOrCreate (made 0755 when absent) and Directory, FileOrCreate (made 0644
// when absent) and File, Socket, CharDevice, BlockDevice; "" checks nothing.
import { mkdir, open, stat } from 'node:fs/promises';
import { errnoCode } from '../../common/util/errno.js';

export const HOST_PATH_TYPES = [
  '',
  'DirectoryOrCreate',
  'Directory',
  'FileOrCreate',
  'File',
  'Socket',
  'CharDevice',
  'BlockDevice',
] as const;

async function statOf(path: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

async function makeFile(path: string): Promise<void> {
  const fh = await open(path, 'a', 0o644);
  await fh.close();
}

/**
 * Throws the reference's message when `path` is not of `type` (creating it for the *OrCreate
 * types).
 */
export async function checkHostPathType(path: string, type: string | undefined): Promise<void> {
  const t = type ?? '';
  if (t === '') return;
  let st = await statOf(path);
  if (st === undefined && t === 'DirectoryOrCreate') {
    await mkdir(path, { recursive: true, mode: 0o755 });
    st = await statOf(path);
  } else if (st === undefined && t === 'FileOrCreate') {
    await makeFile(path);
    st = await statOf(path);
  }
  const fail = (what: string): never => {
    throw new Error(`hostPath type check failed: ${path} is not a ${what}`);
  };
  switch (t) {
    case 'DirectoryOrCreate':
    case 'Directory':
      if (st?.isDirectory() !== true) fail('directory');
      return;
    case 'FileOrCreate':
    case 'File':
      if (st?.isFile() !== true) fail('file');
      return;
    case 'Socket':
      if (st?.isSocket() !== true) fail('socket file');
      return;
    case 'CharDevice':
      if (st?.isCharacterDevice() !== true) fail('character device');
      return;
    case 'BlockDevice':
      if (st?.isBlockDevice() !== true) fail('block device');
      return;
  }
  throw new Error(`${t} is an invalid volume type`);
}
