// The iptables (or ip6tables) command, as the reference's pkg/util/iptables drives it: ensure a
// chain (-N, "already exists" is fine), ensure a rule (-C, then -A or -I), check a chain (-S),
// list a table (-S). The command is a prefix so tests run it inside a network namespace.
import { execFile } from 'node:child_process';

export type IptablesProtocol = 'IPv4' | 'IPv6';
export type IptablesTable = 'filter' | 'nat' | 'mangle';

export interface IptablesOptions {
  protocol: IptablesProtocol;
  /** The command and its leading arguments; default ['iptables'] or ['ip6tables']. */
  command?: readonly string[];
  /** Longest a call may take (the xtables lock is waited for within it). */
  timeoutMs?: number;
}

export class IptablesError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
    this.name = 'IptablesError';
  }
}

const MAX_OUTPUT = 4 * 1024 * 1024;

export class Iptables {
  readonly protocol: IptablesProtocol;
  private readonly command: readonly string[];
  private readonly timeoutMs: number;

  constructor(o: IptablesOptions) {
    this.protocol = o.protocol;
    this.command = o.command ?? [o.protocol === 'IPv6' ? 'ip6tables' : 'iptables'];
    this.timeoutMs = o.timeoutMs ?? 30_000;
  }

  isIPv6(): boolean {
    return this.protocol === 'IPv6';
  }

  /**
   * Runs the command with `args` (after -w, which waits for the xtables lock); resolves with
   * stdout.
   */
  run(args: readonly string[]): Promise<string> {
    const [file, ...lead] = this.command;
    return new Promise((resolve, reject) => {
      execFile(
        file ?? 'iptables',
        [...lead, '-w', ...args],
        { timeout: this.timeoutMs, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
        (err, stdout, stderr) => {
          if (err === null) {
            resolve(stdout);
            return;
          }
          const code = typeof err.code === 'number' ? err.code : undefined;
          const why =
            err.code === 'ENOENT'
              ? `${file ?? 'iptables'} is not installed`
              : ((stderr.trim() || err.message).split('\n')[0] ?? '');
          reject(new IptablesError(`${[file, ...lead, ...args].join(' ')}: ${why}`, code));
        },
      );
    });
  }

  async chainExists(table: IptablesTable, chain: string): Promise<boolean> {
    try {
      await this.run(['-t', table, '-S', chain]);
      return true;
    } catch (err) {
      if (err instanceof IptablesError && err.exitCode === 1) return false;
      throw err;
    }
  }

  /** Creates the chain unless it exists; true when it already existed. */
  async ensureChain(table: IptablesTable, chain: string): Promise<boolean> {
    if (await this.chainExists(table, chain)) return true;
    await this.run(['-t', table, '-N', chain]);
    return false;
  }

  /**
   * Adds the rule at the end (append) or the start (prepend) unless it is there; true when it was.
   */
  async ensureRule(
    position: 'append' | 'prepend',
    table: IptablesTable,
    chain: string,
    rule: readonly string[],
  ): Promise<boolean> {
    try {
      await this.run(['-t', table, '-C', chain, ...rule]);
      return true;
    } catch (err) {
      if (!(err instanceof IptablesError) || err.exitCode !== 1) throw err;
    }
    await this.run(['-t', table, position === 'append' ? '-A' : '-I', chain, ...rule]);
    return false;
  }

  async deleteChain(table: IptablesTable, chain: string): Promise<void> {
    await this.run(['-t', table, '-X', chain]);
  }

  /** `iptables -t <table> -S`: the table's chains and rules in the save format. */
  list(table: IptablesTable): Promise<string> {
    return this.run(['-t', table, '-S']);
  }
}
