// /openapi/v2 and /openapi/v3: documents generated from the schema table of the served kinds
// (catalog.ts, documents.ts), built once when first asked and served with the reference's
// caching rules (http.ts). The protobuf form of either document is not offered: a client that
// accepts only it gets 406, as the reference answers a media type it does not offer.

import type { Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import { describerFor, type Describe } from './descriptions.js';
import type { ResourceDef } from '../registry/types.js';
import { Catalog, gvKey, type ReviewEndpoint } from './catalog.js';
import { v2Document, v3Document } from './documents.js';
import { rootEntries, v3RootDocument } from './root-documents.js';
import { acceptsJson, NOT_ACCEPTABLE, serveContent, served, serveGroupVersion, type OpenApiAnswer, type OpenApiRequest, type Served } from './http.js';

export type { OpenApiAnswer, OpenApiRequest } from './http.js';

export interface OpenApiOptions {
  readonly defs: readonly ResourceDef[];
  readonly reviews: readonly ReviewEndpoint[];
  /** info.title of the documents. */
  readonly title: string;
  /** info.version. */
  readonly version: string;
  readonly clock: Pick<Clock, 'now'>;
  /** The profile's names: the reference's descriptions are carried with them substituted (descriptions.ts). */
  readonly names: Names;
}

export class OpenApi {
  private readonly catalog: Catalog;
  private readonly o: OpenApiOptions;
  private readonly describe: Describe;
  private builtAt: Date | undefined;
  private v2: Served | undefined;
  private readonly v3 = new Map<string, Served>();

  constructor(o: OpenApiOptions) {
    this.o = o;
    this.catalog = new Catalog(o.defs, o.reviews, o.version);
    this.describe = describerFor(o.names);
  }

  private build(): Date {
    if (this.builtAt !== undefined) return this.builtAt;
    for (const gv of this.catalog.groupVersions) this.v3.set(gvKey(gv), served(v3Document(this.catalog, gv, this.o.title, this.describe)));
    for (const e of rootEntries(this.catalog.groupVersions.map((gv) => gv.group))) this.v3.set(e.key, served(v3RootDocument(e, { title: this.o.title, version: this.o.version }, this.describe)));
    this.v2 = served(v2Document(this.catalog, this.o.title, this.describe));
    this.builtAt = this.o.clock.now();
    return this.builtAt;
  }

  /** Served resources the documents leave out, having no schema in schema/kinds.ts (`<resource>.<group>`). */
  get undocumented(): readonly string[] {
    return this.catalog.undocumented;
  }

  /** The v3 index: each group-version's URL with its current hash. */
  index(): { paths: Record<string, { serverRelativeURL: string }> } {
    this.build();
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of [...this.v3.keys()].sort()) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${this.v3.get(key)?.etag ?? ''}` };
    return { paths };
  }

  /** The parsed v3 document of a group-version key (`api/v1`, `apis/<group>/<version>`), or undefined. */
  v3Document(key: string): unknown {
    this.build();
    const doc = this.v3.get(key);
    return doc === undefined ? undefined : JSON.parse(doc.bytes.toString('utf8'));
  }

  /** The answer to a GET or HEAD of an /openapi path, or undefined when the path is not one (404). */
  answer(path: string, req: OpenApiRequest): OpenApiAnswer | undefined {
    const builtAt = this.build();
    if (path === '/openapi/v2') {
      const doc = this.v2;
      if (doc === undefined || acceptsJson(req.accept, []) !== 'json') return NOT_ACCEPTABLE;
      return serveContent(req, doc.bytes, doc.etag, builtAt);
    }
    if (path === '/openapi/v3') return serveContent(req, Buffer.from(JSON.stringify(this.index())), undefined, this.o.clock.now());
    if (!path.startsWith('/openapi/v3/')) return undefined;
    const key = path.slice('/openapi/v3/'.length);
    const doc = this.v3.get(key);
    return doc === undefined ? undefined : serveGroupVersion(req, key, doc, builtAt, this.o.clock.now());
  }
}
