// The inline code spans of the user's documentation (README.md and docs/*.md, read as
// doc-blocks.ts reads them; fenced blocks are left out, they are doc-inventory.ts's) that are whole
// commands. The rule: a span, its runs of blanks made one, whose first word is a program a user
// runs from a shell (COMMAND_PROGRAMS, or a path under bin/, scripts/ or ./; `until` starts a
// loop of them) followed by at least one more word (for `node`, a flag or a script path: the word
// is prose too). A program's name alone (`nodeagent`, `kubectl`) names the program and is no
// command; a span that starts with a subcommand (`get nodes`, `token list`) is a fragment of the
// command around it and is no command either.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { userDocs } from './doc-blocks.js';

export interface InlineCommand {
  /** README.md or docs/<page>.md. */
  readonly file: string;
  /** The line the span starts on. */
  readonly line: number;
  /** The span's text, runs of blanks (a line break included) made one. */
  readonly text: string;
}

/** The programs whose spans are commands (the first word, a leading `sudo` skipped). */
export const COMMAND_PROGRAMS: ReadonlySet<string> = new Set([
  'nodeagent',
  'plat-apiserver',
  'kubectl',
  'kubeadm',
  'npm',
  'npx',
  'node',
  'curl',
  'openssl',
  'systemctl',
  'journalctl',
  'docker',
  'crictl',
  'ctr',
  'man',
  'git',
  'sh',
  'bash',
  'env',
  'cat',
  'cp',
  'kill',
  'sleep',
  'mount',
  'umount',
  'ip',
  'iptables',
  'sysctl',
  'until',
]);

/** Whether a span's text is a whole command by the rule above. */
export function isCommand(text: string): boolean {
  const words = text.replace(/^sudo /, '').split(' ');
  const first = words[0] ?? '';
  const program = /^(?:bin|scripts|\.)\/\S/.test(first) || COMMAND_PROGRAMS.has(first);
  // `node` is a word of prose and log messages too: as a program it runs a flag or a script
  if (first === 'node' && !/^-|[/.]/.test(words[1] ?? '')) return false;
  return program && words.length > 1;
}

/** `text` with every fenced block's characters blanked (its line breaks kept, so lines count). */
function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** Every code span of a file: a run of backticks to the next run as long, within a paragraph. */
export function inlineSpans(root: string, file: string): InlineCommand[] {
  const text = withoutFences(readFileSync(join(root, file), 'utf8'));
  const out: InlineCommand[] = [];
  for (const m of text.matchAll(/(`+)((?:(?!\n\s*\n)[^`])+?)\1(?!`)/g)) {
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ file, line, text: (m[2] ?? '').replace(/\s+/g, ' ').trim() });
  }
  return out;
}

/** Every inline span of README.md and docs/*.md that is a whole command, in document order. */
export function inlineCommands(root: string): InlineCommand[] {
  return userDocs(root).flatMap((f) => inlineSpans(root, f).filter((s) => isCommand(s.text)));
}
