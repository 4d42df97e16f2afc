// A private D-Bus (dbus-daemon on a unix socket in a temporary directory) with a fake
// systemd-logind on it, for the graceful node shutdown tests: org.freedesktop.login1.Manager
// records Inhibit calls and hands out the write end of a FIFO as the lock (the lock is released
// when every copy of that end is closed, which the read end sees as end of file), serves
// InhibitDelayMaxUSec and emits PrepareForShutdown; org.freedesktop.systemd1.Manager's KillUnit
// (logind's reload) re-reads InhibitDelayMaxSec from the drop-in directory, as logind would.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dbus from 'dbus-next';
import { stopChild } from './processes.js';

const BUS_CONFIG = (
  socket: string,
): string => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

export interface PrivateBus {
  dir: string;
  address: string;
  stop(): Promise<void>;
}

/**
 * Starts dbus-daemon on a socket in a new temporary directory (or `dir`, left in place, for a
 * bus that comes back at the same address); resolves once it listens.
 */
export async function startPrivateBus(options: { dir?: string } = {}): Promise<PrivateBus> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'nodeagent-dbus-'));
  const socket = join(dir, 'bus.sock');
  rmSync(socket, { force: true });
  writeFileSync(join(dir, 'bus.conf'), BUS_CONFIG(socket));
  const child: ChildProcess = spawn(
    'dbus-daemon',
    [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--print-address'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = async (): Promise<void> => {
    await stopChild(child, 5000);
    if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`dbus-daemon exited with ${String(code)} before listening`)),
      );
    });
    return { dir, address, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface Lock {
  args: string[];
  readFd: number;
  writeFd: number | undefined;
}

/** The fake logind's state, shared with the exported interfaces. */
export interface FakeLogindState {
  inhibits: Lock[];
  killUnits: [string, string, number][];
  delayUSec: bigint;
}

class LoginManager extends dbus.interface.Interface {
  constructor(
    private readonly state: FakeLogindState,
    private readonly dir: string,
  ) {
    super('org.freedesktop.login1.Manager');
  }

  get InhibitDelayMaxUSec(): bigint {
    return this.state.delayUSec;
  }

  Inhibit(what: string, who: string, why: string, mode: string): number {
    const fifo = join(this.dir, `inhibit-${this.state.inhibits.length}`);
    execFileSync('mkfifo', ['-m', '0600', fifo]);
    const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeFd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    this.state.inhibits.push({ args: [what, who, why, mode], readFd, writeFd });
    return writeFd;
  }

  PrepareForShutdown(active: boolean): boolean {
    return active;
  }
}
LoginManager.configureMembers({
  properties: { InhibitDelayMaxUSec: { signature: 't', access: 'read' } },
  methods: { Inhibit: { inSignature: 'ssss', outSignature: 'h' } },
  signals: { PrepareForShutdown: { signature: 'b' } },
});

class SystemdManager extends dbus.interface.Interface {
  constructor(
    private readonly state: FakeLogindState,
    private readonly dropinDir: string,
  ) {
    super('org.freedesktop.systemd1.Manager');
  }

  KillUnit(unit: string, who: string, signal: number): void {
    this.state.killUnits.push([unit, who, signal]);
    let files: string[] = [];
    try {
      files = readdirSync(this.dropinDir)
        .filter((f) => f.endsWith('.conf'))
        .sort();
    } catch {
      return;
    }
    for (const f of files) {
      const m = /^InhibitDelayMaxSec=(\d+)$/m.exec(readFileSync(join(this.dropinDir, f), 'utf8'));
      if (m?.[1] !== undefined) this.state.delayUSec = BigInt(m[1]) * 1_000_000n;
    }
  }
}
SystemdManager.configureMembers({
  methods: { KillUnit: { inSignature: 'ssi', outSignature: '' } },
});

export interface FakeLogind {
  state: FakeLogindState;
  /** Emits PrepareForShutdown(active). */
  prepareForShutdown(active: boolean): void;
  /** Closes the fake's own copy of each lock handed out, so only the agent's copy holds it. */
  dropOwnCopies(): void;
  /** Whether lock i is released: no writer is left on its FIFO. */
  released(i: number): boolean;
  stop(): void;
}

export async function startFakeLogind(
  bus: PrivateBus,
  options: { delayUSec: bigint; dropinDir: string },
): Promise<FakeLogind> {
  const state: FakeLogindState = { inhibits: [], killUnits: [], delayUSec: options.delayUSec };
  const conn = (
    dbus.sessionBus as unknown as (o: {
      busAddress: string;
      negotiateUnixFd: boolean;
    }) => dbus.MessageBus
  )({ busAddress: bus.address, negotiateUnixFd: true });
  const login = new LoginManager(state, mkdtempSync(join(bus.dir, 'logind-')));
  conn.export('/org/freedesktop/login1', login);
  conn.export('/org/freedesktop/systemd1', new SystemdManager(state, options.dropinDir));
  await conn.requestName('org.freedesktop.login1', 0);
  await conn.requestName('org.freedesktop.systemd1', 0);
  const dropOwnCopies = (): void => {
    for (const l of state.inhibits) {
      if (l.writeFd !== undefined) closeSync(l.writeFd);
      l.writeFd = undefined;
    }
  };
  return {
    state,
    prepareForShutdown: (active) => void login.PrepareForShutdown(active),
    dropOwnCopies,
    released(i) {
      const l = state.inhibits[i];
      if (l === undefined) throw new Error(`no lock ${i}`);
      try {
        return readSync(l.readFd, Buffer.alloc(1)) === 0;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        throw err;
      }
    },
    stop() {
      dropOwnCopies();
      for (const l of state.inhibits) closeSync(l.readFd);
      conn.disconnect();
    },
  };
}
