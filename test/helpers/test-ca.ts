// A certificate authority for unit tests: signs CSRs (or public keys) with chosen validity.
import { X509Certificate } from 'node:crypto';
import { generatePrivateKey, type PrivateKey } from '../../src/agent/certificate/keys.js';
import { issueCertificate } from '../../src/agent/certificate/self-signed.js';

export class TestCa {
  private constructor(
    readonly certPem: string,
    readonly key: PrivateKey,
  ) {}

  static async create(now = new Date()): Promise<TestCa> {
    const key = await generatePrivateKey();
    const certPem = await issueCertificate({
      subjectKey: key,
      commonName: 'test-ca',
      isCa: true,
      usages: [],
      notBefore: new Date(now.getTime() - 3600_000),
      notAfter: new Date(now.getTime() + 10 * 365 * 86400_000),
    });
    return new TestCa(certPem, key);
  }

  /** Issues a certificate for `subjectKey` with the CSR's subject, valid [notBefore, notAfter). */
  async sign(
    subjectKey: PrivateKey,
    o: {
      commonName: string;
      organizations?: string[];
      dnsNames?: string[];
      ipAddresses?: string[];
      usage?: 'client auth' | 'server auth';
      notBefore: Date;
      notAfter: Date;
    },
  ): Promise<string> {
    return issueCertificate({
      issuer: { certPem: this.certPem, key: this.key },
      subjectKey,
      commonName: o.commonName,
      organizations: o.organizations ?? [],
      dnsNames: o.dnsNames ?? [],
      ipAddresses: o.ipAddresses ?? [],
      usages: [o.usage ?? 'client auth'],
      notBefore: o.notBefore,
      notAfter: o.notAfter,
    });
  }

  /** A new key and its server certificate for 127.0.0.1, valid from an hour before `now` to one after. */
  async localServerPair(now = new Date()): Promise<{ key: PrivateKey; cert: string }> {
    const key = await generatePrivateKey();
    const cert = await this.sign(key, {
      commonName: '127.0.0.1',
      ipAddresses: ['127.0.0.1'],
      usage: 'server auth',
      notBefore: new Date(now.getTime() - 3600_000),
      notAfter: new Date(now.getTime() + 3600_000),
    });
    return { key, cert };
  }

  verifies(certPem: string): boolean {
    return new X509Certificate(certPem).verify(new X509Certificate(this.certPem).publicKey);
  }
}
