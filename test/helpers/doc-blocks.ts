// The fenced blocks of the user's documentation (README.md and docs/*.md), and a ```sh block run
// as a user runs it: found by a line it holds, the test's moves applied (each must still match,
// so a changed page is noticed), run as one bash script (set -euo pipefail) in a process group of
// its own whose output is collected; the group (with what the block started in the background)
// is stopped on the way out.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './server-https-request.js';

export interface FencedBlock {
  /** README.md or docs/<page>.md. */
  readonly file: string;
  /** The line of the block's first body line. */
  readonly line: number;
  readonly body: string;
}

const SHELL = ['sh', 'bash', 'shell'];

/** README.md, then docs/*.md in name order. */
export function userDocs(root: string): string[] {
  const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  return ['README.md', ...pages.sort().map((f) => `docs/${f}`)];
}

/** The blocks of a file fenced with one of `langs` (the shell's by default), in order. */
export function shellBlocks(root: string, file: string, langs = SHELL): FencedBlock[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: FencedBlock[] = [];
  const re = /^```([a-z]*)\n([\s\S]*?)^```/gm;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (!langs.includes(m[1] ?? '')) continue;
    out.push({ file, body: m[2] ?? '', line: text.slice(0, m.index).split('\n').length + 1 });
  }
  return out;
}

/** The one block of `file` (of `langs`) holding `marker`. */
export function blockWith(root: string, file: string, marker: string, langs = SHELL): FencedBlock {
  const found = shellBlocks(root, file, langs).filter((b) => b.body.includes(marker));
  assert.equal(found.length, 1, `${file}: ${found.length} blocks hold ${JSON.stringify(marker)}`);
  return found[0] as FencedBlock;
}

/** A test's move: what the page says, what the test runs instead. */
export type Swap = readonly [string | RegExp, string];

/** `body` with each swap made; a /g pattern replaces every match, others the first. */
export function withSwaps(block: FencedBlock, swaps: readonly Swap[]): string {
  let out = block.body;
  for (const [from, to] of swaps) {
    const next = out.replace(from, to);
    assert.notEqual(
      next,
      out,
      `${block.file}:${block.line}: the block no longer has ${String(from)}`,
    );
    out = next;
  }
  return out;
}

export interface BlockRun {
  /** The process group: the script and everything it started. */
  readonly pgid: number;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The script's exit status ('exit', not 'close': background children keep the pipes open). */
  readonly exited: Promise<number | null>;
}

/** Runs `script` with bash in a new process group, in `cwd`, with `env` over the test's. */
export function runBlock(script: string, cwd: string, env: NodeJS.ProcessEnv = {}): BlockRun {
  const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
    cwd,
    detached: true,
    env: { ...process.env, KUBECONFIG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  if (child.pid === undefined) throw new Error('bash did not start');
  return { pgid: child.pid, output: () => out, exited };
}

/** Waits until every pattern is in the run's output, failing with the output. */
export async function awaitOutput(run: BlockRun, patterns: readonly RegExp[], ms: number) {
  await waitFor(() => patterns.every((re) => re.test(run.output())), 'the output', ms, 50).catch(
    () => {
      const missing = patterns.filter((re) => !re.test(run.output())).map(String);
      assert.fail(`missing ${missing.join(', ')} in the output:\n${run.output().slice(-3000)}`);
    },
  );
}

/** Whether a signal reaches the process group (false once all of it is gone). */
function groupAlive(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to a block's process group (the servers and agents it started), then SIGKILL. */
export async function stopGroup(pgid: number | undefined): Promise<void> {
  if (pgid === undefined || !groupAlive(pgid, 'SIGTERM')) return;
  await waitFor(() => !groupAlive(pgid, 0), 'the block to stop', 15_000, 100).catch(() =>
    groupAlive(pgid, 'SIGKILL'),
  );
}
