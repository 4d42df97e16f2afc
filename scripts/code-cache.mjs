#!/usr/bin/env node
// Writes the V8 code cache of the agent's CommonJS bundle (scripts/bundle.mjs runs it after
// bundling; see src/agent/cli/code-cache.ts): the bundle is compiled from source, runs start-up
// once (--print-config of the example configuration with ten drop-ins, its output discarded), so
// V8 has compiled the functions start-up runs, and what V8 compiled goes to <bundle>.cache. The
// agent's run (nodeagent-run.cjs, required once the configuration is settled) is loaded (its top
// level), each vendor group (vendor/<group>.cjs) loaded and each package in it initialised, and
// each gets its own cache the same way. The run's cache also holds what a node's first start
// runs before anything else: TLS bootstrap (startCertificates, as the agent calls it) against the
// tests' fake CSR API over HTTPS (dist/test/helpers, which tsc builds before this runs), so a
// first start compiles none of the HTTP client, CSR, certificate store and platconfig code it
// waits on (5-25 ms of launch to certificate on a 2-core machine). The parts
// (nodeagent-parts.cjs) are loaded (their top level). The cache is V8's own: only the node that
// ran this script (same version and flags: V8's defaults, as bin/nodeagent sets its #! line's
// heap flag back before it loads anything, and the agent's run-time flag is set back while a
// cache compiles) takes it.
// Usage: node scripts/code-cache.mjs dist/bundle/nodeagent/nodeagent.cjs
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A silent log sink (the logger's own code runs; nothing is written). */
const SILENT = { write: () => true, flush: () => undefined, flushSync: () => undefined };

/** TLS bootstrap through the run's startCertificates, against a fake CSR API on 127.0.0.1. */
async function warmBootstrap(run) {
  const helpers = join(ROOT, 'dist', 'test', 'helpers');
  const { FakeCsrApi } = await import(pathToFileURL(join(helpers, 'fake-csr-api.js')).href);
  const { TestCa } = await import(pathToFileURL(join(helpers, 'test-ca.js')).href);
  const { namesFor } = await import(
    pathToFileURL(join(ROOT, 'dist', 'src', 'common', 'names.js')).href
  );
  const { systemClock } = await import(
    pathToFileURL(join(ROOT, 'dist', 'src', 'common', 'util', 'clock.js')).href
  );
  const ca = await TestCa.create();
  const { key, cert } = await ca.localServerPair();
  const api = await FakeCsrApi.start({ ca, autoApprove: true, tls: { key: key.pem, cert } });
  const dir = mkdtempSync(join(tmpdir(), 'nodeagent-warm-bootstrap-'));
  try {
    const caData = Buffer.from(ca.certPem).toString('base64');
    writeFileSync(
      join(dir, 'bootstrap.conf'),
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${api.url}", certificate-authority-data: ${caData}}}]\nusers: [{name: u, user: {token: abcdef.0123456789abcdef}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
      { mode: 0o600 },
    );
    const { logger, close } = run('src/common/log/logger.ts').createLogger({
      stderr: SILENT,
      stdout: SILENT,
    });
    const setup = await run('src/agent/certificate/setup.ts').startCertificates({
      platconfigPath: join(dir, 'node.conf'),
      bootstrapPlatconfigPath: join(dir, 'bootstrap.conf'),
      certDir: join(dir, 'pki'),
      nodeName: 'warm-up',
      nodeIPs: [],
      names: namesFor('platform', 'platform.io'),
      rotateCertificates: true,
      rotateServerCertificates: false,
      servingCertificate: false,
      clock: systemClock,
      logger,
    });
    if (!setup.bootstrap.bootstrapped)
      throw new Error('the warm-up bootstrap did not bootstrap a client certificate');
    await setup.stop();
    close();
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: node scripts/code-cache.mjs <bundle.cjs>');
  const { loadCachedBundle, loadedBundles } = createRequire(import.meta.url)(
    resolve(dirname(file), 'code-cache.cjs'),
  );
  const bundle = loadCachedBundle({ file, fresh: true, warn: (m) => console.warn(m) });
  const dir = mkdtempSync(join(tmpdir(), 'nodeagent-code-cache-'));
  try {
    copyFileSync(join(ROOT, 'examples', 'nodeagent-config.yaml'), join(dir, 'config.yaml'));
    mkdirSync(join(dir, 'config.d'));
    for (let i = 0; i < 10; i++) {
      writeFileSync(
        join(dir, 'config.d', `${String(i).padStart(2, '0')}-dropin.conf`),
        `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nmaxPods: ${100 + i}\nevictionHard:\n  memory.available: ${100 + i}Mi\n`,
      );
    }
    const out = [];
    const io = { stdout: (t) => out.push(t), stderr: (t) => out.push(t) };
    const code = await bundle.exports.main(
      [
        '--config',
        join(dir, 'config.yaml'),
        '--config-dir',
        join(dir, 'config.d'),
        '--print-config',
      ],
      io,
    );
    if (code !== 0)
      throw new Error(`the warm-up run (--print-config) exited ${String(code)}: ${out.join('')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The run's top level, and bootstrap; its other modules initialise when the agent starts
  // (compiling their initialisers here would keep ~2 MB more bytecode in an idle agent for no
  // faster bootstrap).
  const run = loadCachedBundle({
    file: join(dirname(file), 'nodeagent-run.cjs'),
    fresh: true,
    warn: (m) => console.warn(m),
  }).exports;
  await warmBootstrap(run);
  // The parts' top level (their modules initialise once the certificate is settled).
  loadCachedBundle({
    file: join(dirname(file), 'nodeagent-parts.cjs'),
    fresh: true,
    warn: (m) => console.warn(m),
  });
  const vendor = join(dirname(file), 'vendor');
  for (const f of readdirSync(vendor).filter((n) => n.endsWith('.cjs'))) {
    const group = loadCachedBundle({
      file: join(vendor, f),
      fresh: true,
      warn: (m) => console.warn(m),
    }).exports;
    for (const spec of group.specs) group(spec);
  }
  const sizes = [];
  for (const [path, b] of loadedBundles()) {
    const data = b.cacheData();
    writeFileSync(`${path}.cache.tmp`, data);
    renameSync(`${path}.cache.tmp`, `${path}.cache`);
    sizes.push(`${relative(dirname(file), path)} ${(data.length / 1024).toFixed(0)} KiB`);
  }
  console.log(`code caches (node ${process.version}): ${sizes.join(', ')}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
