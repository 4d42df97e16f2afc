// Builds and runs the agent's servers from their settings: the secure server with its
// authentication chain and authorizer, the read-only server and the healthz server. Each is
// optional (port 0 in the configuration disables the read-only and healthz servers; the caller
// passes undefined for those).

import type { AddressInfo } from 'node:net';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { AuthenticatorChain } from './authn/chain.js';
import { ClientCaFile } from './authn/client-ca.js';
import { TokenWebhookAuthenticator } from './authn/token.js';
import { X509Authenticator } from './authn/x509.js';
import { AlwaysAllowAuthorizer, WebhookAuthorizer } from './authz/authorizers.js';
import { NodeHandlers, type NodeHandlersOptions } from './handlers/routes.js';
import type { NodeAgentMetrics } from './metrics.js';
import { PlainServer } from './plain-servers.js';
import { SecureServer, type RequestSpans } from './server.js';
import type {
  Authenticator,
  Authorizer,
  ServingTlsSource,
  SubjectAccessReviewer,
  TokenReviewer,
} from './types.js';

export type AuthorizationSettings =
  | { mode: 'AlwaysAllow' }
  | {
      mode: 'Webhook';
      reviewer: SubjectAccessReviewer;
      authorizedTtlMs: number;
      unauthorizedTtlMs: number;
    };

export interface SecureServerSettings {
  address: string;
  port: number;
  tls: ServingTlsSource;
  tlsMinVersion?: string;
  tlsCipherSuites?: readonly string[];
  enableDebuggingHandlers: boolean;
  /** --client-ca-file; empty or undefined: no client-certificate authentication. */
  clientCaFile?: string;
  anonymous: boolean;
  /** --authentication-token-webhook: undefined when disabled. */
  tokenWebhook?: { reviewer: TokenReviewer; cacheTtlMs: number };
  authorization: AuthorizationSettings;
  maxConnectionAgeMs?: number;
  /** tracing: one span per request on the secure server. */
  tracer?: RequestSpans;
}

export interface NodeServersOptions extends Omit<
  NodeHandlersOptions,
  'clock' | 'logger' | 'metrics'
> {
  nodeName: string;
  clock: Clock;
  logger: Logger;
  metrics: NodeAgentMetrics;
  secure?: SecureServerSettings;
  readOnly?: { address: string; port: number };
  healthz?: { address: string; port: number };
}

export interface NodeServersAddresses {
  secure?: AddressInfo;
  readOnly?: AddressInfo;
  healthz?: AddressInfo;
}

export class NodeServers {
  private readonly stops: (() => Promise<void> | void)[] = [];

  constructor(private readonly options: NodeServersOptions) {}

  /** Starts every configured server; on failure stops the ones already started and rethrows. */
  async start(signal: AbortSignal): Promise<NodeServersAddresses> {
    const o = this.options;
    const handlers = new NodeHandlers({ ...o, logger: o.logger.child({ part: 'server' }) });
    const out: NodeServersAddresses = {};
    try {
      if (o.secure !== undefined) {
        const authenticator = await this.authenticator(o.secure, signal);
        const server = new SecureServer({
          clock: o.clock,
          address: o.secure.address,
          port: o.secure.port,
          nodeName: o.nodeName,
          tls: o.secure.tls,
          ...(o.secure.tlsMinVersion !== undefined
            ? { tlsMinVersion: o.secure.tlsMinVersion }
            : {}),
          ...(o.secure.tlsCipherSuites !== undefined
            ? { tlsCipherSuites: o.secure.tlsCipherSuites }
            : {}),
          ...(o.secure.maxConnectionAgeMs !== undefined
            ? { maxConnectionAgeMs: o.secure.maxConnectionAgeMs }
            : {}),
          ...(o.secure.tracer !== undefined ? { tracer: o.secure.tracer } : {}),
          authenticator,
          authorizer: this.authorizer(o.secure.authorization),
          handlers,
          enableDebuggingHandlers: o.secure.enableDebuggingHandlers,
          metrics: o.metrics,
          logger: o.logger.child({ server: 'secure' }),
        });
        out.secure = await server.start();
        this.stops.push(() => server.stop());
      }
      for (const kind of ['readOnly', 'healthz'] as const) {
        const at = o[kind];
        if (at === undefined) continue;
        const server = new PlainServer({
          kind: kind === 'readOnly' ? 'read-only' : 'healthz',
          clock: o.clock,
          address: at.address,
          port: at.port,
          handlers,
          metrics: o.metrics,
          logger: o.logger.child({ server: kind }),
        });
        out[kind] = await server.start();
        this.stops.push(() => server.stop());
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
    // a signal that came while the servers started stops them now (a listener would never fire)
    if (signal.aborted) await this.stop();
    else signal.addEventListener('abort', () => void this.stop(), { once: true });
    return out;
  }

  async stop(): Promise<void> {
    const stops = this.stops.splice(0);
    await Promise.all(
      stops.map(async (s) => {
        await s();
      }),
    );
  }

  private async authenticator(
    s: SecureServerSettings,
    signal: AbortSignal,
  ): Promise<Authenticator> {
    const chain: Authenticator[] = [];
    if (s.clientCaFile !== undefined && s.clientCaFile !== '') {
      const ca = new ClientCaFile({
        file: s.clientCaFile,
        clock: this.options.clock,
        logger: this.options.logger.child({ part: 'client-ca' }),
      });
      await ca.start(signal);
      this.stops.push(() => ca.stop());
      chain.push(new X509Authenticator({ authorities: ca, clock: this.options.clock }));
    }
    if (s.tokenWebhook !== undefined) {
      chain.push(
        new TokenWebhookAuthenticator({
          reviewer: s.tokenWebhook.reviewer,
          cacheTtlMs: s.tokenWebhook.cacheTtlMs,
          clock: this.options.clock,
        }),
      );
    }
    return new AuthenticatorChain({ authenticators: chain, anonymous: s.anonymous });
  }

  private authorizer(a: AuthorizationSettings): Authorizer {
    if (a.mode === 'AlwaysAllow') return new AlwaysAllowAuthorizer();
    return new WebhookAuthorizer({
      reviewer: a.reviewer,
      authorizedTtlMs: a.authorizedTtlMs,
      unauthorizedTtlMs: a.unauthorizedTtlMs,
      clock: this.options.clock,
    });
  }
}
