// FlexVolume exec plugins under --volume-plugin-dir, as the reference's pkg/volume/flexvolume
// calls them: the driver `vendor/name` is the executable <dir>/vendor~name/name; `init` once (its
// capabilities; a driver that needs attach is refused, this agent attaches nothing), then
// `mount <dir> <json options>` before the pod's sandbox starts and `unmount <dir>` when the pod is
// removed. The mount dir is <root-dir>/pods/<uid>/volumes/vendor~name/<volume>. Each call answers
// one JSON object: {"status": "Success" | "Failure" | "Not supported", "message": ...}.
import { execFile } from 'node:child_process';
import { rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { parseJsonBounded, DEFAULT_PARSE_LIMITS } from '../../common/util/bounded-parse.js';
import { userMessage } from '../../common/util/errors.js';
import { joinUnder, mkdirUnder, pathSegmentProblem } from '../../common/util/safe-path.js';
import type { Pod, Volume } from '../pod/types.js';
import { WIRE_NAMES } from '../../common/names.js';

const MAX_OUTPUT = 1024 * 1024;
/**
 * The reference waits for driver calls without a limit; a hung driver must not hold a pod worker
 * for ever.
 */
const DEFAULT_TIMEOUT_MS = 2 * 60_000;

export interface DriverStatus {
  status: string;
  message?: string;
  capabilities?: { attach?: boolean };
}

/** The driver's directory and executable names: `vendor/name` → vendor~name, name. */
export function driverPaths(driver: string): { dir: string; exe: string } | string {
  const parts = driver.split('/');
  if (parts.length > 2) return `driver "${driver}" must be "name" or "vendor/name"`;
  const dir = parts.join('~');
  const exe = parts.at(-1) ?? '';
  const problem = pathSegmentProblem(dir) ?? pathSegmentProblem(exe);
  return problem === undefined ? { dir, exe } : `driver "${driver}" ${problem}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return isObjectOrArray(v) && !Array.isArray(v);
}

// the capabilities field is read from any JSON object or array, as before (an array has no
// `attach`)
function isObjectOrArray(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object';
}

/** The reference's handleCmdResponse: the status, or the error it stands for. */
export function driverResponse(command: string, output: string): DriverStatus {
  let parsed: unknown;
  try {
    parsed = parseJsonBounded(output.trim() === '' ? 'null' : output, {
      limits: DEFAULT_PARSE_LIMITS,
      source: `the ${command} output`,
    });
  } catch (err) {
    throw new Error(
      `Failed to unmarshal output for command: ${command}, output: ` +
        `${JSON.stringify(output.slice(0, 512))}, error: ${userMessage(err)}`,
    );
  }
  if (!isObject(parsed))
    throw new Error(
      `Failed to unmarshal output for command: ${command}, output: ` +
        `${JSON.stringify(output.slice(0, 512))}, error: not a JSON object`,
    );
  const o = parsed;
  const status = typeof o['status'] === 'string' ? o['status'] : '';
  const message = typeof o['message'] === 'string' ? o['message'] : undefined;
  if (status === 'Not supported') throw new Error('Not supported');
  if (status !== 'Success')
    throw new Error(`${command} command failed, status: ${status}, reason: ${message ?? ''}`);
  const caps = o['capabilities'] ?? o['Capabilities'];
  return {
    status,
    ...(message !== undefined ? { message } : {}),
    ...(isObjectOrArray(caps)
      ? {
          capabilities: {
            ...(typeof caps['attach'] === 'boolean' ? { attach: caps['attach'] } : {}),
          },
        }
      : {}),
  };
}

export interface FlexVolumeOptions {
  /** --volume-plugin-dir. */
  pluginDir: string;
  /** --root-dir: pod volumes are mounted under it. */
  rootDir: string;
  logger: Logger;
  timeoutMs?: number;
}

export class FlexVolumePlugins {
  private readonly inits = new Map<string, Promise<void>>();
  private readonly o: FlexVolumeOptions;

  constructor(o: FlexVolumeOptions) {
    this.o = o;
  }

  /** The volume's mount dir, for the containers' bind mounts; undefined for other volume types. */
  path(pod: Pod, v: Volume): string | undefined {
    if (v.flexVolume === undefined) return undefined;
    const p = driverPaths(v.flexVolume.driver);
    return typeof p === 'string'
      ? undefined
      : joinUnder(this.o.rootDir, 'pods', pod.metadata.uid, 'volumes', p.dir, v.name);
  }

  private call(driver: string, args: readonly string[]): Promise<DriverStatus> {
    const p = driverPaths(driver);
    if (typeof p === 'string') return Promise.reject(new Error(p));
    const exe = join(this.o.pluginDir, p.dir, p.exe);
    return new Promise((resolve, reject) => {
      execFile(
        exe,
        args,
        {
          timeout: this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          maxBuffer: MAX_OUTPUT,
          encoding: 'utf8',
        },
        (err, stdout, stderr) => {
          const output = stdout + stderr;
          if (err !== null && (err.code === 'ENOENT' || err.code === 'EACCES')) {
            reject(
              new Error(
                `no FlexVolume driver ${driver}: ${exe} ` +
                  `${err.code === 'ENOENT' ? 'does not exist' : 'is not executable'} ` +
                  `(--volume-plugin-dir)`,
              ),
            );
            return;
          }
          if (err !== null && err.killed === true) {
            reject(new Error('timeout'));
            return;
          }
          try {
            resolve(driverResponse(args[0] ?? '', output));
          } catch (e) {
            if (err !== null && userMessage(e) !== 'Not supported')
              this.o.logger.warn(
                {
                  executable: exe,
                  args: args.slice(0, 2),
                  err: err.message,
                  output: output.slice(0, 512),
                },
                'FlexVolume: driver call failed',
              );
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        },
      );
    });
  }

  /** `init`, once per driver: a driver that needs attach cannot be used by this agent. */
  private init(driver: string): Promise<void> {
    let p = this.inits.get(driver);
    if (p === undefined) {
      p = this.call(driver, ['init']).then((s) => {
        if (s.capabilities?.attach !== false)
          throw new Error(
            `FlexVolume driver ${driver} reports the attach capability (the default): ` +
              `this agent attaches no volumes, so the driver must answer init with ` +
              `"capabilities": {"attach": false}`,
          );
        this.o.logger.info({ driver }, 'FlexVolume driver initialized');
      });
      p.catch(() => this.inits.delete(driver));
      this.inits.set(driver, p);
    }
    return p;
  }

  /** Mounts the pod's flexVolume volumes that are not mounted yet; throws naming the volume. */
  async setUp(pod: Pod): Promise<void> {
    for (const v of pod.spec.volumes ?? []) {
      const dir = this.path(pod, v);
      if (v.flexVolume === undefined || dir === undefined) continue;
      try {
        await this.init(v.flexVolume.driver);
        if (
          await stat(join(dir, '..', `.${v.name}.mounted`)).then(
            () => true,
            () => false,
          )
        )
          continue;
        const p = driverPaths(v.flexVolume.driver);
        if (typeof p === 'string') throw new Error(p);
        await mkdirUnder(
          this.o.rootDir,
          ['pods', pod.metadata.uid, 'volumes', p.dir, v.name],
          0o750,
        );
        await this.call(v.flexVolume.driver, ['mount', dir, JSON.stringify(driverOptions(pod, v))]);
        await mkdirUnder(
          this.o.rootDir,
          ['pods', pod.metadata.uid, 'volumes', p.dir, `.${v.name}.mounted`],
          0o700,
        );
      } catch (err) {
        throw new Error(`MountVolume.SetUp failed for volume "${v.name}" : ${userMessage(err)}`, {
          cause: err,
        });
      }
    }
  }

  /** Unmounts the pod's flexVolume volumes; each failure is logged, then the first is thrown. */
  async tearDown(pod: Pod): Promise<void> {
    const failures: Error[] = [];
    for (const v of pod.spec.volumes ?? []) {
      const dir = this.path(pod, v);
      if (v.flexVolume === undefined || dir === undefined) continue;
      if (
        !(await stat(dir).then(
          () => true,
          () => false,
        ))
      ) {
        this.o.logger.warn({ dir }, `Warning: Unmount skipped because path does not exist: ${dir}`);
        continue;
      }
      try {
        await this.call(v.flexVolume.driver, ['unmount', dir]);
        await rmdir(join(dir, '..', `.${v.name}.mounted`)).catch(() => undefined);
        await rmdir(dir).catch(() => undefined);
      } catch (err) {
        const cause = userMessage(err);
        const message = `UnmountVolume.TearDown failed for volume "${v.name}" : ${cause}`;
        this.o.logger.error(
          { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, volume: v.name },
          message,
        );
        failures.push(new Error(message, { cause: err }));
      }
    }
    if (failures[0] !== undefined) throw failures[0];
  }

  /**
   * The driver's `unmount` of a volume whose pod is gone (no spec left to name the driver): the
   * driver is read from the volume's directory, <root-dir>/pods/<uid>/volumes/<vendor~name>/<vol>;
   * then its mount marker and directory are removed. Throws when the driver is missing or fails.
   */
  async unmountOrphan(volumeDir: string): Promise<void> {
    const candidates = driversOfDir(basename(dirname(volumeDir)));
    const present = await Promise.all(candidates.map((d) => this.driverExists(d)));
    const driver = candidates[present.indexOf(true)] ?? candidates[0] ?? '';
    await this.call(driver, ['unmount', volumeDir]);
    await rmdir(join(volumeDir, '..', `.${basename(volumeDir)}.mounted`)).catch(() => undefined);
    await rmdir(volumeDir).catch(() => undefined);
  }

  private async driverExists(driver: string): Promise<boolean> {
    const p = driverPaths(driver);
    if (typeof p === 'string') return false;
    return stat(join(this.o.pluginDir, p.dir, p.exe)).then(
      (s) => s.isFile(),
      () => false,
    );
  }
}

/**
 * The drivers a FlexVolume directory name can stand for, most likely first: `vendor~name` is the
 * driver `vendor/name` (the last `~` separates them), a name without a vendor is itself.
 */
export function driversOfDir(dirName: string): string[] {
  const i = dirName.lastIndexOf('~');
  const vendored = i > 0 && i < dirName.length - 1;
  return vendored ? [`${dirName.slice(0, i)}/${dirName.slice(i + 1)}`, dirName] : [dirName];
}

/** The reference's options for the driver: the pod's options plus its kubernetes.io/ keys. */
export function driverOptions(pod: Pod, v: Volume): Record<string, string> {
  const f = v.flexVolume;
  const k = WIRE_NAMES.flexVolumeOptionPrefix;
  const sa = pod.spec.serviceAccountName;
  return {
    [`${k}fsType`]: f?.fsType ?? '',
    [`${k}readwrite`]: f?.readOnly === true ? 'ro' : 'rw',
    [`${k}pvOrVolumeName`]: v.name,
    [`${k}pod.name`]: pod.metadata.name,
    [`${k}pod.namespace`]: pod.metadata.namespace,
    [`${k}pod.uid`]: pod.metadata.uid,
    [`${k}serviceAccount.name`]: sa ?? '',
    ...(f?.options ?? {}),
  };
}
