// Every shell command of the user's documentation (each command of every ```sh block of README.md
// and docs/*.md, continuation lines joined, comments dropped), and the blocks the end-to-end
// tests run as scripts, each found by a line it holds (test/e2e/docs-pages.test.ts and
// readme-walkthrough.test.ts run them; docs-pages checks that every other command is listed with
// the reason it cannot run here).
import { blockWith, shellBlocks, userDocs, type FencedBlock } from './doc-blocks.js';
import { blockCommands } from './doc-commands.js';

export interface DocBlockRef {
  readonly file: string;
  /** A line the block holds (and no other block of the file). */
  readonly marker: string;
}

/** The blocks run as scripts, by the test that runs them. */
export const RUN_BLOCKS = {
  readmeJoin: { file: 'README.md', marker: 'kubectl exec web -- hostname' },
  standalone: {
    file: 'docs/getting-started.md',
    marker: '--pod-manifest-path examples/static-pods',
  },
  tokenServer: { file: 'docs/getting-started.md', marker: '--token-auth-file /tmp/tokens.csv &' },
  tokenCreate: { file: 'docs/getting-started.md', marker: 'token create --platconfig' },
  tokenList: { file: 'docs/getting-started.md', marker: 'token list --platconfig' },
  bootstrapAgent: { file: 'docs/getting-started.md', marker: '--bootstrap-platconfig /tmp/' },
  podOnNode: { file: 'docs/getting-started.md', marker: 'kubectl run hello' },
  nodeStatus: { file: 'docs/operations.md', marker: '--register-with-taints dedicated=demo' },
  apiserverStart: { file: 'docs/plat-apiserver.md', marker: 'get csr' },
  validateConfig: { file: 'docs/plat-apiserver.md', marker: '--validate-config' },
  printConfig: { file: 'docs/configuration.md', marker: '--print-config' },
} as const satisfies Record<string, DocBlockRef>;

export interface DocShellCommand {
  readonly file: string;
  readonly line: number;
  /** The command as one line, runs of blanks made one. */
  readonly text: string;
}

/** The commands of one block. */
export function commandsOf(block: FencedBlock): DocShellCommand[] {
  return blockCommands(block.body, block.line).map((c) => ({
    file: block.file,
    line: c.line,
    text: c.text.replace(/\s+/g, ' '),
  }));
}

/** Every command of every ```sh block of README.md and docs/*.md, in document order. */
export function documentedShellCommands(root: string): DocShellCommand[] {
  return userDocs(root).flatMap((f) => shellBlocks(root, f).flatMap(commandsOf));
}

/** The commands of the blocks the tests run. */
export function runCommands(root: string): DocShellCommand[] {
  return Object.values(RUN_BLOCKS).flatMap((r) => commandsOf(blockWith(root, r.file, r.marker)));
}
