// The one place the REST layer applies a PATCH body to the live object. The patch types and
// their errors follow the reference: json-patch, merge-patch, strategic-merge-patch (for the
// built-in types) and apply-patch (server-side apply).

import jsonpatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { badRequest, StatusError, unsupportedMediaType } from '../status.js';
import type { Obj } from '../registry/types.js';

export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

export function patchTypeOf(contentType: string | undefined): PatchType {
  const mt = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const found = PATCH_TYPES.find((t) => t === mt);
  if (found === undefined) throw unsupportedMediaType(contentType ?? '', PATCH_TYPES);
  return found;
}

export interface PatchArgs {
  readonly live: Obj | undefined;
  readonly patchBody: string;
  readonly contentType: PatchType;
  readonly kind: string;
  readonly manager: string;
  readonly force: boolean;
  readonly subresource: string;
  readonly apiVersion: string;
  readonly now: Date;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Obj = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function parseBody(text: string, yaml: boolean): unknown {
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function applyPatchBody(a: PatchArgs): { object: Obj } {
  const live = a.live ?? {};
  switch (a.contentType) {
    case 'application/json-patch+json': {
      const ops = parseBody(a.patchBody, false);
      if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
      try {
        const r = jsonpatch.applyPatch(structuredClone(live), ops as jsonpatch.Operation[], true, false);
        return { object: r.newDocument };
      } catch (err) {
        throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
    case 'application/apply-patch+yaml': {
      const p = parseBody(a.patchBody, a.contentType === 'application/apply-patch+yaml');
      if (p === null || typeof p !== 'object' || Array.isArray(p)) throw badRequest('the patch must be a JSON object');
      return { object: mergePatch(live, p) as Obj };
    }
  }
}
