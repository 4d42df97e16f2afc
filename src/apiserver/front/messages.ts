// The messages between plat-apiserver and its TLS front processes (over the cluster IPC channel):
// the configuration a front starts from, and what a front reports back.

import { isRecord } from '../../common/util/json-shape.js';
import type { ServingTls } from './secure-options.js';

/** What a front needs: the serving pair, the client CAs, where to listen and where to relay. */
export interface FrontConfig extends ServingTls {
  readonly kind: 'config';
  readonly host: string;
  readonly port: number;
  /** The main process's inner socket (a path in a directory only its user can enter). */
  readonly innerPath: string;
  /** Sent first on every inner connection: only the fronts and the main process know it. */
  readonly secret: string;
  /** Session ticket keys shared by every front (base64 of 48 bytes): a resumed session can land on any. */
  readonly ticketKeys: string;
}

export type FrontReport =
  | { readonly kind: 'ready' }
  | { readonly kind: 'listening'; readonly address: string; readonly port: number }
  | { readonly kind: 'listen-failed'; readonly code: string; readonly message: string }
  | { readonly kind: 'relay-failed'; readonly message: string };

/** A front's report, or undefined for anything else (cluster's own messages among them). */
export function asFrontReport(v: unknown): FrontReport | undefined {
  if (!isRecord(v)) return undefined;
  const s = (k: string): string => (typeof v[k] === 'string' ? v[k] : '');
  switch (v['kind']) {
    case 'ready':
      return { kind: 'ready' };
    case 'listening':
      return typeof v['port'] === 'number'
        ? { kind: 'listening', address: s('address'), port: v['port'] }
        : undefined;
    case 'listen-failed':
      return { kind: 'listen-failed', code: s('code'), message: s('message') };
    case 'relay-failed':
      return { kind: 'relay-failed', message: s('message') };
    default:
      return undefined;
  }
}

/** The configuration from the main process, or undefined when the message is not one. */
export function asFrontConfig(v: unknown): FrontConfig | undefined {
  if (!isRecord(v) || v['kind'] !== 'config') return undefined;
  const strings = ['certPem', 'keyPem', 'host', 'innerPath', 'secret', 'ticketKeys'];
  if (!strings.every((k) => typeof v[k] === 'string')) return undefined;
  const cas = v['clientCaPems'];
  if (!Array.isArray(cas) || !cas.every((c) => typeof c === 'string')) return undefined;
  if (typeof v['port'] !== 'number') return undefined;
  return v as unknown as FrontConfig;
}
