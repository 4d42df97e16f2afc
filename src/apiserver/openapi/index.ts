// /openapi/v2 and /openapi/v3: documents generated from the schema table of the served kinds
// (catalog.ts, documents.ts), built once when first asked and served with the reference's
// caching rules (http.ts). /openapi/v2 is offered as JSON and as gnostic's protobuf
// (v2-protobuf.ts), encoded when first asked, with its own ETag; the v3 protobuf form is not
// offered: a client that accepts only it gets 406, as the reference answers a type not offered.

import type { Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import { describerFor, type Describe } from './descriptions.js';
import type { ResourceDef } from '../registry/types.js';
import { Catalog, gvKey, type ReviewEndpoint } from './catalog.js';
import { v2Document, v3Document } from './documents.js';
import { rootEntries, v3RootDocument } from './root-documents.js';
import {
  NOT_ACCEPTABLE,
  negotiateV2,
  serveContent,
  served,
  servedBytes,
  serveGroupVersion,
  type OpenApiAnswer,
  type OpenApiRequest,
  type Served,
} from './http.js';
import { encodeV2Document } from './v2-protobuf.js';
import { recordOf } from '../../common/util/json-shape.js';

export type { OpenApiAnswer, OpenApiRequest } from './http.js';

export interface OpenApiOptions {
  readonly defs: readonly ResourceDef[];
  readonly reviews: readonly ReviewEndpoint[];
  /** info.title of the documents. */
  readonly title: string;
  /** info.version. */
  readonly version: string;
  readonly clock: Pick<Clock, 'now'>;
  /** The profile's names, which the kinds' descriptions use (descriptions.ts). */
  readonly names: Names;
  /** Told once, when the v2 protobuf form is first encoded, of keys gnostic's model leaves out. */
  readonly logger?: { warn(fields: object, msg: string): void };
}

export class OpenApi {
  private readonly catalog: Catalog;
  private readonly o: OpenApiOptions;
  private readonly describe: Describe;
  private builtAt: Date | undefined;
  private v2: Served | undefined;
  private v2Protobuf: Served | undefined;
  private readonly v3 = new Map<string, Served>();

  constructor(o: OpenApiOptions) {
    this.o = o;
    this.catalog = new Catalog(o.defs, o.reviews, o.version);
    this.describe = describerFor(o.names);
  }

  private build(): Date {
    if (this.builtAt !== undefined) return this.builtAt;
    for (const gv of this.catalog.groupVersions)
      this.v3.set(gvKey(gv), served(v3Document(this.catalog, gv, this.o.title, this.describe)));
    for (const e of rootEntries(this.catalog.groupVersions.map((gv) => gv.group)))
      this.v3.set(
        e.key,
        served(v3RootDocument(e, { title: this.o.title, version: this.o.version }, this.describe)),
      );
    this.v2 = served(v2Document(this.catalog, this.o.title, this.describe));
    this.builtAt = this.o.clock.now();
    return this.builtAt;
  }

  /**
   * Served resources the documents leave out, having no schema in schema/kinds.ts
   * (`<resource>.<group>`).
   */
  get undocumented(): readonly string[] {
    return this.catalog.undocumented;
  }

  /** The v3 index: each group-version's URL with its current hash. */
  index(): { paths: Record<string, { serverRelativeURL: string }> } {
    this.build();
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of [...this.v3.keys()].sort())
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${this.v3.get(key)?.etag ?? ''}` };
    return { paths };
  }

  /**
   * The parsed v3 document of a group-version key (`api/v1`, `apis/<group>/<version>`), or
   * undefined.
   */
  v3Document(key: string): unknown {
    this.build();
    const doc = this.v3.get(key);
    return doc === undefined ? undefined : JSON.parse(doc.bytes.toString('utf8'));
  }

  /** The v2 document as gnostic's protobuf, encoded once from the JSON one. */
  private protobufV2(): Served | undefined {
    if (this.v2Protobuf !== undefined || this.v2 === undefined) return this.v2Protobuf;
    const { bytes, dropped } = encodeV2Document(
      recordOf(JSON.parse(this.v2.bytes.toString('utf8'))),
    );
    if (dropped.length > 0)
      this.o.logger?.warn(
        { keys: dropped },
        "/openapi/v2 as protobuf leaves out keys gnostic's OpenAPI v2 model has no field for",
      );
    this.v2Protobuf = servedBytes(bytes);
    return this.v2Protobuf;
  }

  /**
   * The answer to a GET or HEAD of an /openapi path, or undefined when the path is not one (404).
   */
  answer(path: string, req: OpenApiRequest): OpenApiAnswer | undefined {
    const builtAt = this.build();
    if (path === '/openapi/v2') {
      const type = negotiateV2(req.accept);
      const doc =
        type === 'application/json' ? this.v2 : type === undefined ? undefined : this.protobufV2();
      if (doc === undefined || type === undefined) return NOT_ACCEPTABLE;
      return serveContent(req, doc.bytes, doc.etag, builtAt, {}, type);
    }
    if (path === '/openapi/v3')
      return serveContent(
        req,
        Buffer.from(JSON.stringify(this.index())),
        undefined,
        this.o.clock.now(),
      );
    if (!path.startsWith('/openapi/v3/')) return undefined;
    const key = path.slice('/openapi/v3/'.length);
    const doc = this.v3.get(key);
    return doc === undefined
      ? undefined
      : serveGroupVersion(req, key, doc, builtAt, this.o.clock.now());
  }
}
