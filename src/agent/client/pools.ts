// The REST client's connections to the API server, in two undici pools with the same TLS settings.
//
// Over HTTP/1.1 a watch holds its connection for as long as it runs. The agent keeps a watch per
// referenced ConfigMap and Secret (the Watch change-detection strategy), per namespace's
// kube-root-ca.crt, and for its pods, node and leases: tens to hundreds at once on a busy node.
// Sharing one bounded pool, those watches took every connection and each ordinary call (a status
// patch, a token request) waited behind them until it timed out. So calls get a bounded pool of
// their own, and each stream takes a connection from an unbounded one (the number of streams is
// bounded by what the node's pods reference, not by any client of the agent).
import { createSecureContext } from 'node:tls';
import type { buildConnector as BuildConnector, Dispatcher } from 'undici';
import { Agent, buildConnector } from './undici-core.js';
import type { ConnectionConfig } from '../../common/platconfig/platconfig.js';

/** Connections per pool for ordinary calls (rate-limited by --plat-api-qps anyway). */
const CALL_CONNECTIONS = 32;

export interface Pools {
  /** Requests that end with their answer. */
  readonly calls: Agent;
  /** Watches and other streaming GETs, a connection each. */
  readonly streams: Agent;
}

/**
 * One connector for both pools: the TLS context (CA, certificate and key, parsed once rather than
 * for every connection: a few milliseconds each, the second of them on the bootstrap path) and
 * undici's cache of TLS sessions, so a pool's first connection can resume the other's session.
 */
function connectorOf(c: ConnectionConfig): BuildConnector.connector {
  const withCert = c.certPem && c.keyPem ? { cert: c.certPem, key: c.keyPem } : {};
  const secureContext = createSecureContext({ ...(c.caPem ? { ca: c.caPem } : {}), ...withCert });
  return buildConnector({
    secureContext,
    rejectUnauthorized: !c.insecureSkipTlsVerify,
    ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
  });
}

export function buildPools(c: ConnectionConfig, callConnections = CALL_CONNECTIONS): Pools {
  const connect = connectorOf(c);
  return {
    calls: new Agent({ connect, keepAliveTimeout: 30_000, connections: callConnections }),
    streams: new Agent({ connect, keepAliveTimeout: 30_000 }),
  };
}

/**
 * Destroys a connection pool without stack traces: undici ends each socket with one
 * ClientDestroyedError, whose stack Node's stream destroy formats (err.stack), and with source
 * maps on, formatting a stack that names the bundle decodes the bundle's whole source map (about
 * 20 ms, just after bootstrap closes its client) for an error nobody reads. The errors made while
 * the pool is destroyed (synchronously) carry no frames; their messages are unchanged.
 */
function destroyQuietly(dispatcher: Dispatcher): Promise<void> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return dispatcher.destroy();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export async function destroyPools(p: Pools): Promise<void> {
  await Promise.all([destroyQuietly(p.calls), destroyQuietly(p.streams)]);
}
