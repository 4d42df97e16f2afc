// An in-process CSR API for unit tests of bootstrap and rotation (HTTP on 127.0.0.1, or HTTPS
// with a given pair): create/get/list/watch/delete of CertificateSigningRequests, optional
// auto-approval and signing by a TestCa with a chosen validity, and switches for denial, failure,
// 403 and outages. Integration tests use the real plat-apiserver instead; the build runs the
// agent's bootstrap against it over HTTPS to warm the code cache (scripts/code-cache.mjs).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomUUID, createPublicKey } from 'node:crypto';
import type { CertificateSigningRequest } from '../../src/agent/client/csr-client.js';
import { x509lib } from '../../src/agent/certificate/csr.js';
import { issueCertificate } from '../../src/agent/certificate/self-signed.js';
import type { TestCa } from './test-ca.js';

const BASE = '/apis/certificates.platform.io/v1/certificatesigningrequests';

export interface FakeCsrApiOptions {
  ca: TestCa;
  autoApprove?: boolean;
  autoSign?: boolean;
  /** Listen on this port (default: any free one). */
  port?: number;
  /** Validity of issued certificates. */
  validity?: () => { notBefore: Date; notAfter: Date };
  /** Serve HTTPS with this pair (PEM). */
  tls?: { key: string; cert: string };
}

export class FakeCsrApi {
  url = '';
  readonly csrs = new Map<string, CertificateSigningRequest>();
  readonly requests: {
    method: string;
    url: string;
    /** The client's port: which connection the request came on. */
    port: number;
    auth?: string;
    accept?: string;
    contentType?: string;
  }[] = [];
  mode: 'ok' | 'down' | 'forbidden' = 'ok';
  private rv = 1;
  private watchers = new Set<{ name?: string; res: ServerResponse }>();
  private readonly server;
  private constructor(private readonly o: FakeCsrApiOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.handle(req, res);
    this.server = o.tls ? createTlsServer(o.tls, handler) : createServer(handler);
  }

  static async start(o: FakeCsrApiOptions): Promise<FakeCsrApi> {
    const f = new FakeCsrApi(o);
    await new Promise<void>((r) => f.server.listen(o.port ?? 0, '127.0.0.1', r));
    f.url = `${o.tls ? 'https' : 'http'}://127.0.0.1:${(f.server.address() as AddressInfo).port}`;
    return f;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Every change, so a watch from a resourceVersion replays what came after it (as a real server). */
  private readonly history: { rv: number; name: string; line: string }[] = [];

  private bump(csr: CertificateSigningRequest, type: 'ADDED' | 'MODIFIED' | 'DELETED'): void {
    const rv = ++this.rv;
    csr.metadata = { ...csr.metadata, resourceVersion: String(rv) };
    const line = JSON.stringify({ type, object: csr }) + '\n';
    this.history.push({ rv, name: csr.metadata.name ?? '', line });
    for (const w of this.watchers) if (!w.name || w.name === csr.metadata.name) w.res.write(line);
  }

  private status(res: ServerResponse, code: number, reason: string, message: string): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        reason,
        message,
      }),
    );
  }

  private json(res: ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    this.requests.push({
      method: req.method ?? '',
      port: req.socket.remotePort ?? 0,
      url: req.url ?? '',
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
      ...(req.headers.accept ? { accept: req.headers.accept } : {}),
      ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
    });
    if (this.mode === 'down') return this.status(res, 503, 'ServiceUnavailable', 'down for a test');
    if (u.pathname === '/healthz') {
      res.writeHead(200);
      res.end('ok');
      return;
    }
    if (this.mode === 'forbidden')
      return this.status(
        res,
        403,
        'Forbidden',
        'user "system:bootstrap:abcdef" cannot create resource "certificatesigningrequests"',
      );
    if (!u.pathname.startsWith(BASE)) return this.status(res, 404, 'NotFound', 'no such path');
    const name = decodeURIComponent(u.pathname.slice(BASE.length + 1));
    if (req.method === 'POST' && !name) {
      const csr = JSON.parse(Buffer.concat(chunks).toString()) as CertificateSigningRequest;
      const n =
        csr.metadata?.name ?? `${csr.metadata?.generateName ?? 'csr-'}${randomUUID().slice(0, 5)}`;
      if (this.csrs.has(n))
        return this.status(
          res,
          409,
          'AlreadyExists',
          `certificatesigningrequests "${n}" already exists`,
        );
      csr.metadata = {
        ...csr.metadata,
        name: n,
        uid: randomUUID(),
        creationTimestamp: new Date().toISOString(),
      };
      csr.status = {};
      this.csrs.set(n, csr);
      this.bump(csr, 'ADDED');
      this.json(res, 201, csr);
      if (this.o.autoApprove) setImmediate(() => this.approve(n));
      return;
    }
    if (req.method === 'GET' && name) {
      const csr = this.csrs.get(name);
      return csr
        ? this.json(res, 200, csr)
        : this.status(res, 404, 'NotFound', `certificatesigningrequests "${name}" not found`);
    }
    if (req.method === 'GET' && !name) {
      const sel = u.searchParams.get('fieldSelector')?.replace(/^metadata\.name=/, '');
      if (u.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const w = { ...(sel ? { name: sel } : {}), res };
        const from = Number(u.searchParams.get('resourceVersion') ?? this.rv);
        for (const h of this.history)
          if (h.rv > from && (!sel || h.name === sel)) res.write(h.line);
        this.watchers.add(w);
        res.on('close', () => this.watchers.delete(w));
        return;
      }
      const items = [...this.csrs.values()].filter((c) => !sel || c.metadata?.name === sel);
      return this.json(res, 200, {
        kind: 'CertificateSigningRequestList',
        metadata: { resourceVersion: String(this.rv) },
        items,
      });
    }
    return this.status(res, 405, 'MethodNotAllowed', 'not here');
  }

  approve(name: string): void {
    const csr = this.csrs.get(name);
    if (!csr) return;
    csr.status = {
      ...csr.status,
      conditions: [
        ...(csr.status?.conditions ?? []),
        { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'test' },
      ],
    };
    this.bump(csr, 'MODIFIED');
    if (this.o.autoSign !== false) void this.sign(name);
  }

  setCondition(name: string, type: 'Denied' | 'Failed', reason: string, message: string): void {
    const csr = this.csrs.get(name);
    if (!csr) return;
    csr.status = {
      ...csr.status,
      conditions: [...(csr.status?.conditions ?? []), { type, status: 'True', reason, message }],
    };
    this.bump(csr, 'MODIFIED');
  }

  remove(name: string): void {
    const csr = this.csrs.get(name);
    if (!csr) return;
    this.csrs.delete(name);
    this.bump(csr, 'DELETED');
  }

  /** Issues a certificate for the CSR's key and subject. */
  async sign(name: string): Promise<void> {
    const csr = this.csrs.get(name);
    if (!csr) return;
    const x509 = await x509lib();
    const req = new x509.Pkcs10CertificateRequest(
      Buffer.from(csr.spec.request, 'base64').toString(),
    );
    const cn = req.subjectName.getField('CN')[0] ?? '';
    const orgs = req.subjectName.getField('O');
    const san = req.extensions.find(
      (e): e is InstanceType<typeof x509.SubjectAlternativeNameExtension> =>
        e instanceof x509.SubjectAlternativeNameExtension,
    );
    const dns = san?.names.items.filter((n) => n.type === 'dns').map((n) => n.value) ?? [];
    const ips = san?.names.items.filter((n) => n.type === 'ip').map((n) => n.value) ?? [];
    const now = new Date();
    const v = this.o.validity?.() ?? {
      notBefore: new Date(now.getTime() - 1000),
      notAfter: new Date(now.getTime() + 3600_000),
    };
    const pubPem = req.publicKey.toString('pem');
    const cert = await issueCertificate({
      issuer: { certPem: this.o.ca.certPem, key: this.o.ca.key },
      subjectKey: this.o.ca.key,
      subjectPublicKey: createPublicKey(pubPem),
      commonName: cn,
      organizations: orgs,
      dnsNames: dns,
      ipAddresses: ips,
      usages: csr.spec.usages?.includes('server auth') ? ['server auth'] : ['client auth'],
      notBefore: v.notBefore,
      notAfter: v.notAfter,
    });
    csr.status = {
      ...csr.status,
      certificate: Buffer.from(cert + this.o.ca.certPem).toString('base64'),
    };
    this.bump(csr, 'MODIFIED');
  }
}
