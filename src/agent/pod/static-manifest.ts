// A static pod manifest (a file or a --manifest-url body) to the pods it asks for: UTF-8 text,
// decoded, defaulted as the reference's static pod sources do, and validated as its
// ValidatePodCreate does before anything runs. The one error it throws is ManifestError.
//
// A `metadata.uid` written in the manifest: the reference keeps it (its hash UID is used only
// when the field is empty) and does not check its form; it then becomes a directory name under
// the root dir. We keep it too, but only in the two forms a UID really takes: 32 lower-case hex
// digits (the form of a generated static pod UID) or an RFC 4122 UUID. Any other value rejects
// the manifest (`metadata.uid: Invalid value: "../../victim": must be ...`).
import { ManifestError, userMessage } from '../../common/util/errors.js';
import { checkPod, decodeManifest, type DroppedFields } from './decode.js';
import { applyStaticPodDefaults, type StaticPodDefaultsOptions } from './static.js';
import type { Pod } from './types.js';
import type { ValidatePodOptions } from './validate.js';

export interface StaticManifestOptions {
  defaults: StaticPodDefaultsOptions;
  validation: ValidatePodOptions;
  /** Told the fields the reference's lenient decoding dropped (unknown to it), once per parse. */
  droppedFields?: DroppedFields;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text of a manifest; a byte sequence that is not UTF-8 is refused, never replaced. */
export function manifestText(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ManifestError(`${where}: is not valid UTF-8 text`, { file: where });
  }
}

function podsOf(text: string, where: string, opts: StaticManifestOptions): Pod[] {
  return decodeManifest(text, where, opts.droppedFields).map((d) => {
    // the reference's tryDecodeSinglePod checks this before it applies the defaults
    if (d.metadata.name === undefined || d.metadata.name === '') {
      throw new ManifestError(`${where}: invalid pod: name is needed for the pod`, { file: where });
    }
    const pod = applyStaticPodDefaults(d, opts.defaults);
    checkPod(pod, where, { ...opts.validation, staticPod: true });
    return pod;
  });
}

/**
 * The pods of one manifest. Blank text gives none (the caller decides whether that is a skip or
 * an empty set); anything unexpected from the parser is reported as a ManifestError too.
 */
export function staticPodsFromManifest(
  text: string,
  where: string,
  opts: StaticManifestOptions,
): Pod[] {
  try {
    return podsOf(text, where, opts);
  } catch (err) {
    if (err instanceof ManifestError) throw err;
    throw new ManifestError(`${where}: could not be read as a manifest: ${userMessage(err)}`, {
      file: where,
      cause: err,
    });
  }
}
