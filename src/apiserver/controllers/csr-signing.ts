// csrsigning: issues certificates for approved CSRs of the three well-known signers with the
// cluster CA, honouring --cluster-signing-duration; a request the signer must refuse gets a
// Failed condition (SignerValidationFailure) through /status. Driven by store changes.

import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { signingNeeded } from '../csr/approver.js';
import { isWellKnownSigner, signCertificate } from '../csr/signer.js';
import { decodeBase64Field } from '../csr/pem.js';
import type { Registry } from '../registry/registry.js';
import type { Obj, ResourceDef } from '../registry/types.js';
import { WorkQueue } from './queue.js';
import { watchKeys } from './watch-keys.js';
import { getUnlessGone } from './read-key.js';
import { CONTROLLER_USER } from './csr-approving.js';
import { timeString } from '../registry/meta.js';
import { recordOf, listOf } from '../../common/util/json-shape.js';

export interface CsrSigningOptions {
  readonly registry: Registry;
  readonly def: ResourceDef;
  readonly ca: { readonly certPem: string; readonly keyPem: string };
  readonly maxDurationSeconds: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

type SignOutcome = Awaited<ReturnType<typeof signCertificate>>;

/** The CSR's status with the outcome: the certificate, or a Failed condition saying why not. */
function statusWith(cur: Obj, result: SignOutcome, now: Date): Obj {
  const status = { ...recordOf(cur['status']) };
  if ('certificatePem' in result) {
    status['certificate'] = Buffer.from(result.certificatePem).toString('base64');
  } else {
    const conds = [...listOf(status['conditions'])];
    const t = timeString(now);
    conds.push({
      type: 'Failed',
      status: 'True',
      reason: result.failed.reason,
      message: result.failed.message,
      lastUpdateTime: t,
      lastTransitionTime: t,
    });
    status['conditions'] = conds;
  }
  return status;
}

/** Signs one approved CSR of a well-known signer and records the outcome in its status. */
async function signOne(o: CsrSigningOptions, name: string): Promise<void> {
  const names = o.registry.names;
  const csr = await getUnlessGone(o.registry, o.def, name);
  if (csr === undefined) return; // deleted meanwhile; a storage error is thrown and retried
  const spec = recordOf(csr['spec']);
  const signerName = typeof spec['signerName'] === 'string' ? spec['signerName'] : '';
  if (!signingNeeded(csr) || !isWellKnownSigner(signerName, names)) return;
  const der = typeof spec['request'] === 'string' ? decodeBase64Field(spec['request']) : undefined;
  const now = o.clock.now();
  const result = await signCertificate({
    csrPem: der ?? new Uint8Array(),
    signerName,
    names,
    usages: Array.isArray(spec['usages']) ? spec['usages'].map(String) : [],
    ...(typeof spec['expirationSeconds'] === 'number'
      ? { expirationSeconds: spec['expirationSeconds'] }
      : {}),
    ca: o.ca,
    maxDurationSeconds: Math.floor(o.maxDurationSeconds),
    now,
  });
  await o.registry.update(
    o.def,
    '',
    name,
    { user: CONTROLLER_USER, dryRun: false, fieldManager: 'csrsigning', subresource: 'status' },
    (cur) => {
      if (cur === undefined || !signingNeeded(cur)) return cur ?? csr;
      return { ...cur, status: statusWith(cur, result, now) };
    },
  );
  if ('certificatePem' in result)
    o.logger.info({ csr: name, signerName }, 'csrsigning: issued certificate');
  else
    o.logger.info(
      { csr: name, signerName, why: result.failed.message },
      'csrsigning: refused to sign; added a Failed condition',
    );
}

export async function runCsrSigning(o: CsrSigningOptions, signal: AbortSignal): Promise<void> {
  const queue = new WorkQueue({
    name: 'csrsigning',
    clock: o.clock,
    logger: o.logger,
    process: (name) => signOne(o, name),
  });
  const stop = watchKeys(o.registry, o.def, (name) => queue.add(name));
  try {
    await queue.run(signal);
  } finally {
    stop();
  }
}
