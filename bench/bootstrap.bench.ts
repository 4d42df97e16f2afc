// Agent start to client certificate on disk: the built agent (`node bin/nodeagent`, one process
// per run) bootstraps against a plat-apiserver with auto-approval; the time runs from spawn to
// the `nodeagent-client-current.pem` symlink existing. p50 of 20 runs (target: at most 3x
// `node -e 0`), against two same-run baselines: spawning `node -e 0`, and one raw CSR create +
// get round trip. The unbundled tsc output (dist/src) runs beside the shipped bundle
// (BENCH_BOOTSTRAP_UNBUNDLED=0 leaves it out), and BENCH_COMPARE_BIN=<another build's
// bin/nodeagent> beside both (a before/after figure: the builds take turns going first, and the
// p50 of each run's ratio is printed beside the two p50s, with the load average at start and end).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startApiServer, repoRoot } from '../test/helpers/apiserver.js';
import { makeCsrPem, csrBody } from '../test/helpers/apiserver-fixtures.js';
import { launcherEnv } from '../test/helpers/launcher.js';

const RUNS = Number(process.env['BENCH_BOOTSTRAP_RUNS'] ?? 20);
const UNBUNDLED = process.env['BENCH_BOOTSTRAP_UNBUNDLED'] !== '0';
const loadAverage = (): string =>
  readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const TOKEN = 'abcdef.0123456789abcdef';

const p50 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

async function timeSpawn(args: string[], until: () => boolean): Promise<number> {
  const t0 = performance.now();
  // a launcher (bin/nodeagent) is executed, as a user runs it: the node flags of its #! line apply
  const launcher = /\/bin\/nodeagent$/.test(args[0] ?? '');
  const [file, rest] = launcher ? [args[0] ?? '', args.slice(1)] : [process.execPath, args];
  const child = spawn(file, rest, {
    cwd: repoRoot(),
    stdio: ['ignore', 'ignore', 'pipe'],
    env: launcherEnv(),
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let done = false;
  try {
    for (;;) {
      if (until()) {
        done = true;
        return performance.now() - t0;
      }
      if (child.exitCode !== null) {
        if (args[0] === '-e') return performance.now() - t0;
        throw new Error(`agent exited early: ${err}`);
      }
      if (performance.now() - t0 > 30_000) throw new Error(`timed out: ${err}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    if (!done || child.exitCode === null) child.kill('SIGKILL');
    await exited;
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-bootstrap-'));
  await writeFile(
    join(dir, 'tokens.csv'),
    `${TOKEN},system:bootstrap:abcdef,uid-abcdef,"system:bootstrappers"\n`,
  );
  const api = await startApiServer({ args: [`--token-auth-file=${join(dir, 'tokens.csv')}`] });
  try {
    const boot = join(dir, 'bootstrap.conf');
    await writeFile(
      boot,
      `clusters: [{name: c, cluster: {server: "${api.url}", certificate-authority: ${api.caFile}}}]\nusers: [{name: b, user: {token: ${TOKEN}}}]\ncontexts: [{name: x, context: {cluster: c, user: b}}]\ncurrent-context: x\n`,
    );
    const agentMs: number[] = [];
    const unbundledMs: number[] = [];
    const nodeMs: number[] = [];
    const csrMs: number[] = [];
    const compareMs: number[] = [];
    const compare = process.env['BENCH_COMPARE_BIN'];
    const unbundled = pathToFileURL(
      join(repoRoot(), 'dist', 'src', 'agent', 'cli', 'main.js'),
    ).href;
    const launchers = [
      { times: agentMs, args: [join(repoRoot(), 'bin', 'nodeagent')] },
      ...(UNBUNDLED
        ? [
            {
              times: unbundledMs,
              args: [
                '--input-type=module',
                '-e',
                `const { main } = await import(${JSON.stringify(unbundled)}); process.exitCode = await main(process.argv.slice(1));`,
                '--',
              ],
            },
          ]
        : []),
      ...(compare !== undefined ? [{ times: compareMs, args: [compare] }] : []),
    ];
    const loadAtStart = loadAverage();
    for (let i = 0; i < RUNS; i++) {
      // every other run in the reverse order: neither build always follows the other
      for (const [j, l] of (i % 2 === 0 ? launchers : [...launchers].reverse()).entries()) {
        const n = launchers.length * i + j;
        const certDir = join(dir, `pki-${n}`);
        const current = join(certDir, 'nodeagent-client-current.pem');
        l.times.push(
          await timeSpawn(
            [
              ...l.args,
              `--bootstrap-platconfig=${boot}`,
              `--platconfig=${join(dir, `platconfig-${n}`)}`,
              `--cert-dir=${certDir}`,
              `--root-dir=${join(dir, `root-${n}`)}`,
              '--container-runtime-endpoint=process://',
              `--hostname-override=bench-${n}`,
              '--fail-cgroupv1=false',
              '--cgroups-per-qos=false',
              '--enforce-node-allocatable=',
              '--address=127.0.0.1',
              `--port=${20000 + n}`,
              '--read-only-port=0',
              '--healthz-port=0',
            ],
            () => existsSync(current),
          ),
        );
      }
      nodeMs.push(await timeSpawn(['-e', '0'], () => false));
      const { csrPem } = await makeCsrPem({ cn: `system:node:raw-${i}`, orgs: ['system:nodes'] });
      const t0 = performance.now();
      const name = `raw-${i}`;
      await api.request('POST', '/apis/certificates.platform.io/v1/certificatesigningrequests', {
        body: csrBody(name, csrPem, 'platform.io/plat-apiserver-client-platlet', [
          'digital signature',
          'client auth',
        ]),
      });
      await api.request(
        'GET',
        `/apis/certificates.platform.io/v1/certificatesigningrequests/${name}`,
      );
      csrMs.push(performance.now() - t0);
    }
    const a = p50(agentMs);
    const u = p50(unbundledMs);
    const n = p50(nodeMs);
    const c = p50(csrMs);
    console.log(
      `node ${process.version}; ${RUNS} runs of each; load average ${loadAtStart} at the start, ${loadAverage()} at the end`,
    );
    console.log(
      `agent start -> client certificate on disk (auto-approval), bin/nodeagent (bundle), p50: ${fmt(a)}  (min ${fmt(Math.min(...agentMs))}, max ${fmt(Math.max(...agentMs))})`,
    );
    if (UNBUNDLED)
      console.log(
        `the same, unbundled tsc output (dist/src), p50: ${fmt(u)}  (${(u / n).toFixed(2)}x node -e 0)`,
      );
    if (compare !== undefined) {
      const ratios = agentMs.map((t, i) => t / (compareMs[i] ?? NaN));
      console.log(
        `the same, ${compare} (compared), p50: ${fmt(p50(compareMs))}  (${(p50(compareMs) / n).toFixed(2)}x node -e 0); this build / compared, p50 of the ${RUNS} runs' ratios: ${p50(ratios).toFixed(3)}`,
      );
    }
    console.log(`baseline: spawn of "node -e 0", p50: ${fmt(n)}`);
    console.log(`baseline: raw CSR create + get round trip, p50: ${fmt(c)}`);
    console.log(
      `ratio agent/node-spawn: ${(a / n).toFixed(2)}x (target at most 3x); agent minus node spawn: ${fmt(a - n)}`,
    );
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
