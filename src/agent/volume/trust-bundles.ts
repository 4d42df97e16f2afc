// clusterTrustBundle projections: the PEM certificates of one named ClusterTrustBundle, or of
// every one with the signerName that the labelSelector matches, deduplicated as the reference
// normalises them (its order is shuffled once per start; here it is sorted, which is one of the
// orders it may give). Where the API server does not serve certificates.<group>/v1alpha1
// ClusterTrustBundles (plat-apiserver does not; the reference serves them only with the alpha
// ClusterTrustBundle feature and API turned on) the projection fails saying so.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../common/util/errors.js';
import { isRecord, listOf } from '../../common/util/json-shape.js';
import type { RestClient } from '../client/rest-client.js';
import type { VolumeProjection } from '../pod/types.js';

type Source = NonNullable<VolumeProjection['clusterTrustBundle']>;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function normalise(bundles: readonly string[]): Buffer {
  const ders = new Set<string>();
  for (const b of bundles)
    for (const block of b.match(PEM_BLOCK) ?? [])
      ders.add(new X509Certificate(block).raw.toString('base64'));
  const pem = [...ders].sort().map((d) => {
    const lines = d.match(/.{1,64}/g) ?? [];
    return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  });
  return Buffer.from(pem.join(''));
}

function bundleOf(obj: unknown): string {
  const spec = isRecord(obj) && isRecord(obj['spec']) ? obj['spec'] : {};
  return typeof spec['trustBundle'] === 'string' ? spec['trustBundle'] : '';
}

function selectorText(sel: Source['labelSelector']): string {
  const parts = Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const vals = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vals})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vals})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

export async function trustAnchors(
  rest: RestClient | undefined,
  certificatesGroup: string,
  src: Source,
): Promise<Buffer> {
  const base = `/apis/${certificatesGroup}/v1alpha1`;
  const unserved =
    `clusterTrustBundle projection needs ${certificatesGroup}/v1alpha1 ` +
    `ClusterTrustBundles, which the API server does not serve`;
  if (rest === undefined) throw new Error(unserved);
  const served = await rest.request({ path: base }).then(
    (d) =>
      listOf(isRecord(d) ? d['resources'] : []).some(
        (r) => isRecord(r) && r['name'] === 'clustertrustbundles',
      ),
    () => false,
  );
  if (!served) throw new Error(unserved);
  const optional = src.optional === true;
  if (src.name !== undefined && src.name !== '') {
    try {
      return normalise([
        bundleOf(
          await rest.request({
            path: `${base}/clustertrustbundles/${encodeURIComponent(src.name)}`,
          }),
        ),
      ]);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && optional) return Buffer.alloc(0);
      throw new Error(
        `while getting ClusterTrustBundle: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (src.signerName === undefined || src.signerName === '')
    throw new Error('ClusterTrustBundle projection requires either name or signerName to be set');
  // a missing labelSelector matches nothing, as the reference reads it
  const list =
    src.labelSelector === undefined
      ? { items: [] }
      : await rest.request({
          path: `${base}/clustertrustbundles`,
          query: { labelSelector: selectorText(src.labelSelector) },
        });
  const items = listOf(isRecord(list) ? list['items'] : []).filter(
    (i) => isRecord(i) && isRecord(i['spec']) && i['spec']['signerName'] === src.signerName,
  );
  if (items.length === 0) {
    if (optional) return Buffer.alloc(0);
    throw new Error('combination of signerName and labelSelector matched zero ClusterTrustBundles');
  }
  return normalise(items.map(bundleOf));
}
