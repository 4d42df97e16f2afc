// Server-side conversions of a response as the reference's transformResponseObject does them
// (k8s.io/apiserver endpoints/handlers/response.go): `Accept: application/json;as=Table;v=v1;
// g=meta.k8s.io` (what `kubectl get` asks for) gives a meta Table with the reference's printer
// columns and `includeObject=None|Metadata|Object` rows; `as=PartialObjectMetadata` and
// `as=PartialObjectMetadataList` give object metadata only (the metadata clients). A watch of
// tables carries the column definitions in its first event only. An Accept header whose every
// entry asks for a conversion we do not have gets 406. Clients that do not ask get the objects.

import type { IncomingHttpHeaders } from 'node:http';
import { badRequest, StatusError } from '../status.js';
import { apiVersionOf, metaOf, type Obj, type ResourceDef } from '../registry/types.js';
import { defaultPrinter, PRINTERS, type Printer } from './printers.js';
import { WIRE_NAMES } from '../../common/names.js';
import { isOneOf } from '../../common/util/json-shape.js';

export { humanDuration } from './printers.js';

type TargetKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
const TARGET_KINDS: readonly TargetKind[] = [
  'Table',
  'PartialObjectMetadata',
  'PartialObjectMetadataList',
];
const META_VERSIONS: readonly string[] = ['v1', 'v1beta1'];
type IncludeObject = 'None' | 'Metadata' | 'Object';

interface Target {
  readonly kind: TargetKind;
  /** meta.<domain>/v1 or /v1beta1 */
  readonly apiVersion: string;
}

function mediaParams(entry: string): { type: string; params: Map<string, string> } {
  const [type = '', ...rest] = entry.split(';').map((p) => p.trim());
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
  }
  return { type: type.toLowerCase(), params };
}

/**
 * The conversion the Accept header asks for: the first entry the server can serve decides.
 * undefined for a plain response; throws 406 when every entry asks for a conversion we lack.
 */
export function targetOf(accept: string | undefined, domain: string): Target | undefined {
  if (accept === undefined || accept.trim() === '') return undefined;
  const groups = new Set([`meta.${domain}`, WIRE_NAMES.referenceMetaGroup]);
  let unsupported = false;
  for (const entry of accept.split(',')) {
    const { type, params } = mediaParams(entry);
    const as = params.get('as');
    if (as === undefined) return undefined;
    const g = params.get('g') ?? '';
    const v = params.get('v') ?? '';
    const jsonLike = type === 'application/json' || type === '*/*' || type === 'application/*';
    if (jsonLike && isOneOf(TARGET_KINDS, as) && groups.has(g) && META_VERSIONS.includes(v)) {
      // answered in the group asked for: kubectl reads a Table only as meta.k8s.io's
      return { kind: as, apiVersion: `${g}/${v}` };
    }
    unsupported = true;
  }
  if (unsupported) {
    throw new StatusError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: application/json, application/yaml, ` +
        WIRE_NAMES.protobufMediaType,
    );
  }
  return undefined;
}

/** The `includeObject` query parameter (TableOptions), validated as the reference does. */
function includeObjectOf(search: URLSearchParams): IncludeObject {
  const v = search.get('includeObject');
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ` +
      `${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/**
 * The Go type the reference names in its 406 messages (`*core.Event`,
 * `*certificates.CertificateSigningRequestList`).
 */
function goType(def: ResourceDef, list: boolean): string {
  const pkg = def.group === '' ? 'core' : (def.group.split('.')[0] ?? def.group);
  return `*${pkg}.${list ? def.listKind : def.kind}`;
}

export interface ResponseConversion {
  /** The body of a list response. */
  list(items: readonly Obj[], listMeta: Obj): Obj;
  /** The body of a one-object response. */
  one(obj: Obj): Obj;
  /** The renderer of a watch's event objects (the first Table event carries the columns). */
  watch(): (obj: Obj) => Obj;
}

export interface ConversionContext {
  readonly headers: IncomingHttpHeaders;
  readonly search: URLSearchParams;
  readonly def: ResourceDef;
  readonly platformDomain: string;
  readonly now: () => Date;
}

/** The conversion a request asks for, or undefined for plain objects; 406/400 for a bad request. */
export function responseConversion(c: ConversionContext): ResponseConversion | undefined {
  const target = targetOf(c.headers.accept, c.platformDomain);
  if (target === undefined) return undefined;
  if (target.kind === 'Table')
    return tableConversion(c, target.apiVersion, includeObjectOf(c.search));
  const partial = (o: Obj): Obj => ({
    kind: 'PartialObjectMetadata',
    apiVersion: target.apiVersion,
    metadata: metaOf(o),
  });
  const notAcceptable = (message: string): StatusError =>
    new StatusError(406, 'NotAcceptable', message);
  if (target.kind === 'PartialObjectMetadata') {
    return {
      list: () => {
        throw notAcceptable(
          `you requested PartialObjectMetadata, but the requested object is a list ` +
            `(${goType(c.def, true)})`,
        );
      },
      one: partial,
      watch: () => partial,
    };
  }
  const notList = (): never => {
    throw notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list ` +
        `(${goType(c.def, false)})`,
    );
  };
  return {
    list: (items, listMeta) => ({
      kind: 'PartialObjectMetadataList',
      apiVersion: target.apiVersion,
      metadata: listMeta,
      items: items.map(partial),
    }),
    one: notList,
    watch: notList,
  };
}

/** The printer of a resource; a view prints as its storage resource. */
function printerFor(def: ResourceDef): Printer {
  return PRINTERS[(def.view?.storage ?? def).resource] ?? defaultPrinter;
}

function tableConversion(
  c: ConversionContext,
  apiVersion: string,
  include: IncludeObject,
): ResponseConversion {
  const printer = printerFor(c.def);
  const rowObject = (o: Obj): Obj | null => {
    if (include === 'None') return null;
    if (include === 'Object') return { ...o, kind: c.def.kind, apiVersion: apiVersionOf(c.def) };
    return { kind: 'PartialObjectMetadata', apiVersion, metadata: metaOf(o) };
  };
  const table = (items: readonly Obj[], listMeta: Obj, withColumns: boolean): Obj => {
    const now = c.now();
    return {
      kind: 'Table',
      apiVersion,
      metadata: listMeta,
      // The reference leaves the definitions out (null) when it prints no headers: watch events
      // after the first.
      columnDefinitions: withColumns ? printer.columns : null,
      // A view (events.k8s.io Event) prints as its storage resource, as the reference's printers
      // do.
      rows: items.map((o) => ({
        cells: printer.cells(c.def.view === undefined ? o : c.def.view.toStorage(o), now),
        object: rowObject(o),
      })),
    };
  };
  return {
    list: (items, listMeta) => table(items, listMeta, true),
    one: (obj) => table([obj], { resourceVersion: metaOf(obj)['resourceVersion'] }, true),
    watch: () => {
      let first = true;
      return (obj) => {
        const out = table([obj], { resourceVersion: metaOf(obj)['resourceVersion'] }, first);
        first = false;
        return out;
      };
    },
  };
}
