// The commands of nodeagent and plat-apiserver that the user's documentation shows: every line of
// every ```sh block of README.md and docs/*.md that runs one of the two programs, with its
// continuation lines joined, its trailing comment and `&` dropped, split into words as a shell
// would (single and double quotes, no expansion).
import { shellBlocks, userDocs } from './doc-blocks.js';

export interface DocCommand {
  /** README.md or docs/<page>.md, and the line the command starts on. */
  readonly where: string;
  readonly program: 'nodeagent' | 'plat-apiserver';
  readonly args: readonly string[];
  /** The index of its ```sh block in the file: commands of one block belong together. */
  readonly block: number;
}

const PROGRAM = /^(?:node\s+)?(?:\.\/)?(?:bin\/)?(nodeagent|plat-apiserver)(?:\s|$)/;

/** Shell words: quotes group, a backslash escapes the next character outside single quotes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line.charAt(++i);
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} in: ${line}`);
  if (inWord) words.push(cur);
  return words;
}

/** A line without its trailing `# comment` (a # that starts a word, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line.charAt(i - 1)))) return line.slice(0, i);
  }
  return line;
}

/** A block's commands: continuation lines joined, comments and blank lines dropped. */
export function blockCommands(body: string, first: number): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = withoutComment(lines[i] ?? '');
    while (/\\\s*$/.test(text) && i + 1 < lines.length)
      text = `${text.replace(/\\\s*$/, ' ')}${withoutComment(lines[++i] ?? '')}`;
    text = text.trim();
    if (text !== '') out.push({ line: first + start, text });
  }
  return out;
}

function commandsOfBlock(where: string, body: string, first: number, block: number): DocCommand[] {
  const out: DocCommand[] = [];
  for (const c of blockCommands(body, first)) {
    const m = PROGRAM.exec(c.text);
    if (m === null) continue;
    const words = shellWords(c.text.replace(/&\s*$/, ''));
    const at = words.findIndex((w) => w.endsWith('nodeagent') || w.endsWith('plat-apiserver'));
    out.push({
      where: `${where}:${c.line}`,
      program: m[1] === 'nodeagent' ? 'nodeagent' : 'plat-apiserver',
      args: words.slice(at + 1),
      block,
    });
  }
  return out;
}

/** Every documented command of the two programs, in document order. */
export function documentedCommands(root: string): DocCommand[] {
  const out: DocCommand[] = [];
  let block = 0;
  for (const f of userDocs(root)) {
    for (const b of shellBlocks(root, f)) out.push(...commandsOfBlock(f, b.body, b.line, block++));
  }
  return out;
}
