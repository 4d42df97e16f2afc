// systemd-logind over D-Bus (dbus-next), as the reference's pkg/kubelet/nodeshutdown/systemd:
// read InhibitDelayMaxUSec, take a "delay" inhibitor lock on shutdown (logind hands back a file
// descriptor; the lock holds while it is open), ask systemd to reload logind's configuration
// (SIGHUP through KillUnit) and watch the PrepareForShutdown signal. The lock's descriptor comes
// over the socket as SCM_RIGHTS, which dbus-next can only receive through the usocket addon.
import { closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as DBus from 'dbus-next';
import type { ClientInterface, MessageBus, ProxyObject } from 'dbus-next';
import type { Clock } from '../../../common/util/clock.js';
import { userMessage } from '../../../common/util/errors.js';
import type { Logger } from '../../../common/log/types.js';
import type { ShutdownInhibiter } from './manager.js';

const LOGIND_SERVICE = 'org.freedesktop.login1';
const LOGIND_OBJECT = '/org/freedesktop/login1';
const LOGIND_INTERFACE = 'org.freedesktop.login1.Manager';
const SYSTEMD_SERVICE = 'org.freedesktop.systemd1';
const SYSTEMD_OBJECT = '/org/freedesktop/systemd1';
const SYSTEMD_INTERFACE = 'org.freedesktop.systemd1.Manager';
/** The system bus where DBUS_SYSTEM_BUS_ADDRESS does not name another (as godbus and dbus-next). */
export const DEFAULT_SYSTEM_BUS = 'unix:path=/var/run/dbus/system_bus_socket';
const CONNECT_TIMEOUT_MS = 10_000;

export interface LogindOptions {
  /** The bus address: DBUS_SYSTEM_BUS_ADDRESS or the system bus. */
  address: string;
  /**
   * The lock's `who` and `why` (the reference: kubelet, "Kubelet needs time to handle node
   * shutdown").
   */
  who: string;
  why: string;
  clock: Clock;
  logger: Logger;
}

/** Why the lock's file descriptor cannot be received here, or undefined when it can. */
export function unixFdProblem(): string | undefined {
  try {
    createRequire(import.meta.url)('usocket');
    return undefined;
  } catch (err) {
    // the first line: a module-not-found error goes on with its require stack
    return (
      `the usocket addon, through which D-Bus passes the inhibitor lock's file ` +
      `descriptor, did not load (${userMessage(err).split('\n')[0] ?? ''})`
    );
  }
}

type SessionBusFn = (o: { busAddress: string; negotiateUnixFd: boolean }) => MessageBus;

/** Connects, resolving on the bus's hello and rejecting on its first error or after 10 s. */
async function connect(o: LogindOptions): Promise<MessageBus> {
  // dbus-next is CommonJS: Node names its exports, a bundle gives module.exports as the default
  const mod = (await import('dbus-next')) as typeof DBus & { default?: typeof DBus };
  const dbus = mod.default ?? mod;
  let bus: MessageBus;
  try {
    bus = (dbus.sessionBus as unknown as SessionBusFn)({
      busAddress: o.address,
      negotiateUnixFd: true,
    });
  } catch (err) {
    throw new Error(
      `cannot connect to the system bus at ${JSON.stringify(o.address)}: not a usable ` +
        `D-Bus address (${userMessage(err)}); DBUS_SYSTEM_BUS_ADDRESS takes one such as ` +
        `unix:path=/var/run/dbus/system_bus_socket`,
      { cause: err },
    );
  }
  const stop = new AbortController();
  try {
    await Promise.race([
      new Promise<void>((resolve, reject) => {
        bus.once('connect', resolve);
        bus.once('error', (err: unknown) =>
          reject(
            new Error(`cannot connect to the system bus at ${o.address}: ${userMessage(err)}`),
          ),
        );
      }),
      o.clock
        .sleep(CONNECT_TIMEOUT_MS, stop.signal)
        .then(() =>
          Promise.reject(new Error(`no answer from the system bus at ${o.address} within 10s`)),
        ),
    ]);
  } catch (err) {
    bus.disconnect();
    throw err;
  } finally {
    stop.abort();
  }
  return bus;
}

function uint64(v: unknown): number | undefined {
  if (typeof v === 'bigint') return Number(v);
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/** A connection to logind on one bus. */
export class DbusLogind implements ShutdownInhibiter {
  private closeListeners: (() => void)[] = [];

  private constructor(
    private readonly o: LogindOptions & { bus: MessageBus; logind: ProxyObject },
  ) {
    const closed = (): void => {
      for (const f of this.closeListeners.splice(0)) f();
    };
    o.bus.on('error', closed);
    // dbus-next forwards stream errors but not the end of the stream; the connection emits it.
    (o.bus as unknown as { _connection?: { on(e: 'end', f: () => void): void } })._connection?.on(
      'end',
      closed,
    );
  }

  static async connect(o: LogindOptions): Promise<DbusLogind> {
    const bus = await connect(o);
    try {
      return new DbusLogind({
        ...o,
        bus,
        logind: await bus.getProxyObject(LOGIND_SERVICE, LOGIND_OBJECT),
      });
    } catch (err) {
      bus.disconnect();
      throw new Error(
        `systemd-logind (${LOGIND_SERVICE}) is not on the bus at ${o.address}: ${userMessage(err)}`,
        { cause: err },
      );
    }
  }

  private manager(): ClientInterface {
    return this.o.logind.getInterface(LOGIND_INTERFACE);
  }

  async currentInhibitDelayMs(): Promise<number> {
    const props = this.o.logind.getInterface('org.freedesktop.DBus.Properties');
    let res: unknown;
    try {
      res = await (props.Get as (i: string, p: string) => Promise<{ value: unknown }>)(
        LOGIND_INTERFACE,
        'InhibitDelayMaxUSec',
      );
    } catch (err) {
      throw new Error(
        `failed reading InhibitDelayMaxUSec property from logind: ${userMessage(err)}`,
        { cause: err },
      );
    }
    const usec = uint64((res as { value?: unknown } | undefined)?.value);
    if (usec === undefined)
      throw new Error('InhibitDelayMaxUSec from logind is not a uint64 as expected');
    return usec / 1000;
  }

  async inhibitShutdown(): Promise<number> {
    let fd: unknown;
    try {
      fd = await (this.manager().Inhibit as (...a: string[]) => Promise<unknown>)(
        'shutdown',
        this.o.who,
        this.o.why,
        'delay',
      );
    } catch (err) {
      throw new Error(`failed creating systemd inhibitor: ${userMessage(err)}`, { cause: err });
    }
    if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0)
      throw new Error('failed storing inhibit lock file descriptor: logind did not pass one');
    return fd;
  }

  releaseInhibitLock(fd: number): void {
    try {
      closeSync(fd);
    } catch (err) {
      this.o.logger.error({ err: userMessage(err) }, 'unable to close systemd inhibitor lock');
    }
  }

  async reloadLogindConf(): Promise<void> {
    try {
      const systemd = await this.o.bus.getProxyObject(SYSTEMD_SERVICE, SYSTEMD_OBJECT);
      await (
        systemd.getInterface(SYSTEMD_INTERFACE).KillUnit as (
          u: string,
          w: string,
          s: number,
        ) => Promise<unknown>
      )('systemd-logind.service', 'all', 1);
    } catch (err) {
      throw new Error(`unable to reload logind conf: ${userMessage(err)}`, { cause: err });
    }
  }

  monitorShutdown(onEvent: (shuttingDown: boolean) => void, onClose: () => void): void {
    this.closeListeners.push(onClose);
    this.manager().on('PrepareForShutdown', (active: unknown) => {
      if (typeof active !== 'boolean') {
        this.o.logger.error(
          {},
          'Failed obtaining shutdown event, PrepareForShutdown event was not bool type as expected',
        );
        return;
      }
      onEvent(active);
    });
  }

  close(): void {
    this.closeListeners = [];
    this.o.bus.disconnect();
  }
}
