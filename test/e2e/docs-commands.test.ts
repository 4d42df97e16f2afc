// Every command of nodeagent and plat-apiserver that README.md and docs/ show runs against the
// built programs, so the documentation cannot drift from them:
// - a nodeagent command runs with --print-config added (every flag parsed and validated, the
//   configuration merged, nothing started or written);
// - a plat-apiserver server command starts the server with its flags (its directories moved under
//   a temp dir, its port 0 on 127.0.0.1) and runs until it listens; the page's `token` commands
//   after it run against that server (their files moved the same way, the example token id
//   replaced by the one `token create` made); --validate-config runs as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { documentedCommands, type DocCommand } from '../helpers/doc-commands.js';
import { repoRoot } from '../helpers/apiserver.js';

const root = repoRoot();
const commands = documentedCommands(root);

interface Server {
  readonly child: ChildProcess;
  readonly certDir: string;
  output: string;
}

function run(program: string, args: readonly string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin', program), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, KUBECONFIG: '' },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The value after a flag (`--f v` or `--f=v`), or undefined. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === flag) return args[i + 1];
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
  }
  return undefined;
}

/** `args` with the values of `flags` replaced by `to(value)`. */
function remap(
  args: readonly string[],
  flags: readonly string[],
  to: (flag: string, value: string) => string,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const flag = flags.find((f) => a === f || a.startsWith(`${f}=`));
    if (flag === undefined) out.push(a);
    else if (a === flag) out.push(a, to(flag, args[++i] ?? ''));
    else out.push(`${flag}=${to(flag, a.slice(flag.length + 1))}`);
  }
  return out;
}

/** A shell's expansion of `dir/*.ext` words (the docs use no other pattern). */
function expandGlobs(args: readonly string[]): string[] {
  return args.flatMap((a) => {
    if (!a.includes('*')) return [a];
    const suffix = basename(a).replace('*', '');
    return readdirSync(join(root, dirname(a)))
      .filter((f) => f.endsWith(suffix))
      .sort()
      .map((f) => join(dirname(a), f));
  });
}

async function startServer(c: DocCommand, tmp: string): Promise<Server> {
  const certDir = mkdtempSync(join(tmp, 'api-'));
  let args = remap(c.args, ['--cert-dir', '--data-dir', '--secure-port'], (flag) =>
    flag === '--secure-port' ? '0' : flag === '--cert-dir' ? certDir : mkdtempSync(join(tmp, 'd-')),
  );
  if (flagValue(args, '--cert-dir') === undefined) args.push(`--cert-dir=${certDir}`);
  if (flagValue(args, '--secure-port') === undefined) args.push('--secure-port=0');
  args = [...args, '--bind-address=127.0.0.1'];
  args = remap(args, ['--token-auth-file'], () => tokenFile(tmp));
  const child = spawn(process.execPath, [join(root, 'bin', 'plat-apiserver'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server: Server = { child, certDir, output: '' };
  const collect = (d: Buffer): void => void (server.output += d.toString('utf8'));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + 30_000;
  while (!/listening on https:\/\//.test(server.output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${c.where}: plat-apiserver did not start:\n${server.output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return server;
}

/** The getting-started page's token file, written where the test keeps its files. */
function tokenFile(tmp: string): string {
  const f = join(tmp, 'tokens.csv');
  writeFileSync(
    f,
    'abcdef.0123456789abcdef,system:bootstrap:abcdef,uid-abcdef,"system:bootstrappers"\n',
    { mode: 0o600 },
  );
  return f;
}

async function stopServer(s: Server | undefined): Promise<void> {
  if (s === undefined || s.child.exitCode !== null) return;
  const gone = new Promise((r) => s.child.once('close', r));
  s.child.kill('SIGTERM');
  await gone;
}

function tokenCommand(
  c: DocCommand,
  server: Server,
  tmp: string,
  token: string | undefined,
): string[] {
  let args = remap(c.args, ['--platconfig', '--print-join-config'], (flag) =>
    flag === '--platconfig' ? join(server.certDir, 'admin.platconfig') : join(tmp, 'join.conf'),
  );
  if (c.args[1] === 'delete') args = args.map((a, i) => (i === 2 ? (token ?? a) : a));
  return args;
}

test('the documentation shows commands of both programs on the pages a user reads first', () => {
  const where = new Set(commands.map((c) => c.where.split(':')[0]));
  for (const page of ['README.md', 'docs/getting-started.md', 'docs/configuration.md'])
    assert.ok(where.has(page), `no command found in ${page}`);
  assert.ok(commands.some((c) => c.program === 'nodeagent'));
  assert.ok(commands.some((c) => c.program === 'plat-apiserver'));
});

test('every documented nodeagent command is accepted by the built agent (--print-config)', () => {
  const agents = commands.filter((c) => c.program === 'nodeagent');
  for (const c of agents) {
    const args = c.args.includes('--print-config') ? c.args : [...c.args, '--print-config'];
    const r = run('nodeagent', args);
    assert.equal(r.status, 0, `${c.where}: nodeagent ${c.args.join(' ')}\n${r.out}`);
  }
});

test(
  'every documented plat-apiserver command runs: servers start, token commands succeed against them',
  { timeout: 180_000 },
  async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'docs-commands-'));
    let server: Server | undefined;
    let page = '';
    t.after(async () => {
      await stopServer(server);
      rmSync(tmp, { recursive: true, force: true });
    });
    let token: string | undefined; // the id `token create` printed last
    for (const c of commands.filter((x) => x.program === 'plat-apiserver')) {
      const file = c.where.split(':')[0] ?? '';
      if (file !== page) {
        await stopServer(server);
        server = undefined;
        page = file;
      }
      if (c.args[0] === 'token') {
        assert.ok(
          server !== undefined,
          `${c.where}: a token command before any server on the page`,
        );
        const r = run('plat-apiserver', tokenCommand(c, server, tmp, token));
        assert.equal(r.status, 0, `${c.where}: plat-apiserver ${c.args.join(' ')}\n${r.out}`);
        if (c.args[1] === 'create') {
          token = /\b([a-z0-9]{6})\.[a-z0-9]{16}\b/.exec(r.out)?.[1];
          assert.ok(token !== undefined, `${c.where}: token create printed no token:\n${r.out}`);
        }
      } else if (c.args.includes('--validate-config')) {
        const r = run('plat-apiserver', expandGlobs(c.args));
        assert.equal(r.status, 0, `${c.where}: plat-apiserver ${c.args.join(' ')}\n${r.out}`);
      } else {
        await stopServer(server);
        server = await startServer(c, tmp);
      }
    }
  },
);
