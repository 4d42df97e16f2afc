// Request latency of plat-apiserver with JWT authentication (local OIDC issuer; warm JWKS and
// token success cache) and webhook authorization (local SubjectAccessReview server, warm cache),
// against token-file authentication with AlwaysAllow, both servers in this process and measured
// interleaved in the same run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify } from 'yaml';
import { parseFlags } from '../src/apiserver/flags.js';
import { startApiServer, type RunningApiServer } from '../src/apiserver/main.js';
import { EXTRA_FLAGS } from '../src/apiserver/plugins.js';
import { silentLogger } from '../src/common/log/types.js';
import { loadConnection } from '../src/common/platconfig/platconfig.js';
import { startOidcIssuer } from '../test/helpers/oidc-issuer.js';
import { startSarWebhook } from '../test/helpers/sar-webhook.js';
import { tempDir } from '../test/integration/apiserver/config/plat-apiserver.js';

const N = Number(process.env['BENCH_REQUESTS'] ?? 400);
const V = 'apiserver.config.platform.io/v1';

async function start(dir: string, args: string[]): Promise<RunningApiServer> {
  const parsed = parseFlags(
    [
      '--secure-port',
      '0',
      '--cert-dir',
      join(dir, 'certs'),
      '--controllers',
      '-csrapproving,-csrsigning',
      ...args,
    ],
    EXTRA_FLAGS,
  );
  if (parsed.kind !== 'run') throw new Error('unexpected help');
  return startApiServer(parsed.flags, silentLogger());
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

const tmp = tempDir('auth-bench-');
const issuer = await startOidcIssuer({ audience: 'plat' });
const hook = await startSarWebhook({ dir: tmp.dir, handler: () => ({ allowed: true }) });
const servers: RunningApiServer[] = [];
try {
  writeFileSync(join(tmp.dir, 'tokens.csv'), 'bench-token,bench-user,u1,"devs"\n');
  const authn = join(tmp.dir, 'authn.yaml');
  writeFileSync(
    authn,
    stringify({
      apiVersion: V,
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['plat'] },
          claimMappings: {
            username: { claim: 'sub', prefix: 'oidc:' },
            groups: { claim: 'groups', prefix: '' },
          },
        },
      ],
    }),
  );
  const authz = join(tmp.dir, 'authz.yaml');
  writeFileSync(
    authz,
    stringify({
      apiVersion: V,
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'sar',
          webhook: {
            timeout: '3s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: hook.platconfigPath },
          },
        },
      ],
    }),
  );
  const base = await start(join(tmp.dir, 'base'), [
    '--token-auth-file',
    join(tmp.dir, 'tokens.csv'),
    '--authorization-mode',
    'AlwaysAllow',
  ]);
  servers.push(base);
  const full = await start(join(tmp.dir, 'full'), [
    '--authentication-config',
    authn,
    '--authorization-config',
    authz,
  ]);
  servers.push(full);
  const jwt = await issuer.mint({ sub: 'bench', groups: ['devs'] });
  const mk = async (s: RunningApiServer) =>
    new Agent({
      connect: { ca: (await loadConnection(s.adminPlatconfig)).caPem ?? '' },
      connections: 1,
    });
  const targets = [
    {
      name: 'token file + AlwaysAllow',
      url: base.url,
      token: 'bench-token',
      agent: await mk(base),
      ms: [] as number[],
    },
    {
      name: 'JWT + webhook (cached)',
      url: full.url,
      token: jwt,
      agent: await mk(full),
      ms: [] as number[],
    },
  ];
  const once = async (t: (typeof targets)[number]): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const r = await request(`${t.url}/api/v1/namespaces`, {
      headers: { authorization: `Bearer ${t.token}` },
      dispatcher: t.agent,
    });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${t.name}: HTTP ${r.statusCode}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (let i = 0; i < 50; i++) for (const t of targets) await once(t); // warm: TLS, JWKS, webhook cache
  for (let i = 0; i < N; i++) for (const t of targets) t.ms.push(await once(t));
  const webhookCalls = hook.requests.length;
  for (const t of targets) {
    const mean = t.ms.reduce((a, b) => a + b, 0) / t.ms.length;
    console.log(
      `${t.name.padEnd(26)} mean ${mean.toFixed(3)} ms  p50 ${percentile(t.ms, 0.5).toFixed(3)} ms  p99 ${percentile(t.ms, 0.99).toFixed(3)} ms  (${t.ms.length} requests)`,
    );
    await t.agent.close();
  }
  const [b, f] = targets.map((t) => percentile(t.ms, 0.5));
  console.log(
    `ratio JWT+webhook / AlwaysAllow (p50): ${((f ?? 0) / (b ?? 1)).toFixed(2)}x; webhook calls during the run: ${webhookCalls} (warm cache)`,
  );
} finally {
  for (const s of servers) await s.stop();
  await hook.close();
  await issuer.close();
  tmp.cleanup();
}
