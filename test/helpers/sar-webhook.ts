// A local SubjectAccessReview webhook over TLS for tests, and a platconfig file pointing at it.
// The test decides each answer; requests are recorded.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { makeCa, makeServing } from './server-tls-certs.js';

export type SarAnswer =
  | { readonly allowed: boolean; readonly denied?: boolean; readonly reason?: string }
  | { readonly fail: 'http-500' | 'garbage' | 'hang' };

export interface SarRequest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec: Record<string, unknown>;
  readonly authorization: string | undefined;
}

export interface TestSarWebhook {
  readonly url: string;
  /** A platconfig (kubeconfig layout) file naming this webhook, with a bearer token. */
  readonly platconfigPath: string;
  readonly requests: SarRequest[];
  setHandler(h: (r: SarRequest) => SarAnswer): void;
  close(): Promise<void>;
}

export async function startSarWebhook(opts: {
  dir: string;
  token?: string;
  handler?: (r: SarRequest) => SarAnswer;
}): Promise<TestSarWebhook> {
  const ca = await makeCa('sar-test-ca');
  const serving = await makeServing(ca, 'sar-webhook');
  let handler: (r: SarRequest) => SarAnswer = opts.handler ?? (() => ({ allowed: true }));
  const requests: SarRequest[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
          apiVersion: string;
          kind: string;
          spec: Record<string, unknown>;
        };
        const r: SarRequest = { ...body, authorization: req.headers.authorization };
        requests.push(r);
        const a = handler(r);
        if ('fail' in a) {
          if (a.fail === 'http-500') {
            res.statusCode = 500;
            res.end('boom');
          } else if (a.fail === 'garbage') res.end('{"not":"a review"}');
          else hanging.add(() => res.destroy());
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: body.apiVersion,
            kind: 'SubjectAccessReview',
            status: {
              allowed: a.allowed,
              ...(a.denied === undefined ? {} : { denied: a.denied }),
              ...(a.reason === undefined ? {} : { reason: a.reason }),
            },
          }),
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  const platconfigPath = join(
    opts.dir,
    `sar-webhook-${(server.address() as AddressInfo).port}.platconfig`,
  );
  writeFileSync(
    platconfigPath,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'webhook',
          cluster: {
            server: url,
            'certificate-authority-data': Buffer.from(ca.certPem).toString('base64'),
          },
        },
      ],
      users: [{ name: 'apiserver', user: { token: opts.token ?? 'webhook-token' } }],
      contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
    { mode: 0o600 },
  );
  return {
    url,
    platconfigPath,
    requests,
    setHandler(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of hanging) h();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
