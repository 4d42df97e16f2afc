// The reference's YAML decoder as a test oracle: test/oracle/yaml-to-json (ghodss/yaml's YAMLToJSON
// over go-yaml v2, what sigs.k8s.io/yaml does for untyped decoding), built once with the Debian Go
// toolchain and packages (.ci/run installs them) and asked over a pipe, one JSON line per text.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export type OracleAnswer = { readonly json: string } | { readonly error: string };

const GOPATH = '/usr/share/gocode';
const PACKAGES: readonly (readonly [string, string])[] = [
  ['golang-go', '/usr/bin/go'],
  ['golang-gopkg-yaml.v2-dev', `${GOPATH}/src/gopkg.in/yaml.v2/resolve.go`],
  ['golang-github-ghodss-yaml-dev', `${GOPATH}/src/github.com/ghodss/yaml/yaml.go`],
];

/** The Debian package the oracle needs that is not installed, or undefined. */
export function missingOraclePackage(): string | undefined {
  return PACKAGES.find(([, path]) => !existsSync(path))?.[0];
}

export class YamlOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: ((a: OracleAnswer) => void)[] = [];
  private readonly dir: string;

  private constructor(o: { binary: string; dir: string }) {
    this.dir = o.dir;
    this.child = spawn(o.binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout }).on('line', (line) =>
      this.pending.shift()?.(JSON.parse(line) as OracleAnswer),
    );
  }

  /** Builds the oracle (offline, GOPATH mode) and starts it. */
  static start(): YamlOracle {
    const dir = mkdtempSync(join(tmpdir(), 'yaml-oracle-'));
    const binary = join(dir, 'yaml-to-json');
    const src = resolve(process.cwd(), 'test/oracle/yaml-to-json');
    const env = {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH,
      GOCACHE: join(dir, 'cache'),
      GOPROXY: 'off',
    };
    const r = spawnSync('go', ['build', '-o', binary, '.'], { cwd: src, env, encoding: 'utf8' });
    if (r.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`building the YAML oracle failed: ${r.stderr}`);
    }
    return new YamlOracle({ binary, dir });
  }

  /** YAMLToJSON's answer for `text`. */
  ask(text: string): Promise<OracleAnswer> {
    return new Promise((res) => {
      this.pending.push(res);
      this.child.stdin.write(`${JSON.stringify(text)}\n`);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((res) => this.child.once('exit', res));
    this.child.stdin.end();
    if (this.child.exitCode === null) await exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
