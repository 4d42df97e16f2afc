// Our OpenAPI v2 JSON document as gnostic's openapi.v2 message (OpenAPIv2.proto), the shape
// kube-openapi gives /openapi/v2 as protobuf: maps become repeated Named* pairs, `$ref` is `_ref`,
// `type` a TypeItem, `items` an ItemsItem, parameters and responses the oneofs ParametersItem and
// ResponseValue, and every example, default, enum value and `x-` extension an Any carrying the
// value as YAML (NamedAny{name, value: Any{yaml}}). A key gnostic's v2 model has no field for is
// left out and named in `dropped` (`<where>.<key>`), for the caller to log once.

import jsyaml from 'js-yaml';
import { recordOf } from '../../common/util/json-shape.js';

type Json = Record<string, unknown>;
export type Message = Record<string, unknown>;

export interface Converted {
  readonly message: Message;
  readonly dropped: ReadonlySet<string>;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Copied keys whose gnostic field is a small message of scalars, with those scalars' keys. */
const OBJECT_KEYS = new Map<string, readonly string[]>([
  ['xml', ['name', 'namespace', 'prefix', 'attribute', 'wrapped']],
  ['externalDocs', ['description', 'url']],
  ['contact', ['name', 'url', 'email']],
  ['license', ['name', 'url']],
]);
/** Copied keys whose gnostic field is a repeated string. */
const STRING_LIST_KEYS = new Set(['tags', 'schemes', 'produces', 'consumes']);
const NUMBER_KEYS = new Set([
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
]);
const BOOLEAN_KEYS = new Set([
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'readOnly',
  'allowEmptyValue',
  'deprecated',
  'attribute',
  'wrapped',
]);

/**
 * Whether a JSON value has the type of the gnostic field a copied key maps to (`required`: a list
 * in a schema, a bool elsewhere; the rest strings).
 */
function fits(where: string, key: string, v: unknown): boolean {
  if (OBJECT_KEYS.has(key)) return isObj(v);
  if (STRING_LIST_KEYS.has(key) || (key === 'required' && where.endsWith('schema')))
    return Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (NUMBER_KEYS.has(key)) return typeof v === 'number' && Number.isFinite(v);
  if (BOOLEAN_KEYS.has(key) || key === 'required') return typeof v === 'boolean';
  return typeof v === 'string';
}
const snake = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * gnostic's Any: the value as YAML (yaml.v3 style: double-quoted strings, no line folding), map
 * keys sorted as the reference's JSON has them (Go marshals its extension maps sorted).
 */
export function anyOf(v: unknown): Message {
  return {
    yaml: jsyaml.dump(v, { quotingType: '"', lineWidth: -1, noRefs: true, sortKeys: true }),
  };
}

class Converter {
  readonly dropped = new Set<string>();

  /**
   * Copies the keys of `copy` as they are (snake_cased) when their value has the field's shape,
   * the Any keys as Any, `x-` keys as vendor extensions; any other key is named in `dropped`.
   */
  fields(
    where: string,
    src: Json,
    spec: { copy: readonly string[]; any?: readonly string[]; handled?: readonly string[] },
  ): Message {
    const out: Message = {};
    const ext: Message[] = [];
    for (const [k, v] of Object.entries(src)) {
      if (k.startsWith('x-')) ext.push({ name: k, value: anyOf(v) });
      else if (spec.copy.includes(k) && fits(where, k, v))
        out[k === '$ref' ? '_ref' : snake(k)] = isObj(v)
          ? this.fields(k, v, { copy: OBJECT_KEYS.get(k) ?? [] })
          : v;
      else if (spec.any?.includes(k) === true && (k !== 'enum' || Array.isArray(v)))
        out[snake(k)] = Array.isArray(v) && k === 'enum' ? v.map(anyOf) : anyOf(v);
      else if (spec.handled?.includes(k) !== true) this.dropped.add(`${where}.${k}`);
    }
    if (ext.length > 0) out['vendor_extension'] = ext;
    return out;
  }

  named<T>(src: unknown, convert: (v: unknown) => T): { name: string; value: T }[] {
    return isObj(src) ? Object.entries(src).map(([name, v]) => ({ name, value: convert(v) })) : [];
  }

  schema(s: unknown): Message {
    if (!isObj(s)) return {};
    const out = this.fields('schema', s, {
      copy: [
        '$ref',
        'format',
        'title',
        'description',
        'multipleOf',
        'maximum',
        'exclusiveMaximum',
        'minimum',
        'exclusiveMinimum',
        'maxLength',
        'minLength',
        'pattern',
        'maxItems',
        'minItems',
        'uniqueItems',
        'maxProperties',
        'minProperties',
        'required',
        'discriminator',
        'readOnly',
        'xml',
        'externalDocs',
      ],
      any: ['default', 'example', 'enum'],
      handled: ['type', 'items', 'allOf', 'properties', 'additionalProperties'],
    });
    const types: unknown[] = Array.isArray(s['type'])
      ? s['type']
      : s['type'] === undefined
        ? []
        : [s['type']];
    if (types.every((t) => typeof t === 'string')) {
      if (types.length > 0) out['type'] = { value: types };
    } else this.dropped.add('schema.type');
    if (s['items'] !== undefined)
      out['items'] = {
        schema: (Array.isArray(s['items']) ? s['items'] : [s['items']]).map((x) => this.schema(x)),
      };
    if (Array.isArray(s['allOf'])) out['all_of'] = s['allOf'].map((x) => this.schema(x));
    if (s['properties'] !== undefined)
      out['properties'] = {
        additional_properties: this.named(s['properties'], (v) => this.schema(v)),
      };
    const ap = s['additionalProperties'];
    if (typeof ap === 'boolean') out['additional_properties'] = { boolean: ap };
    else if (ap !== undefined) out['additional_properties'] = { schema: this.schema(ap) };
    return out;
  }

  primitives(where: string, p: unknown): Message {
    if (!isObj(p)) return {};
    const out = this.fields(where, p, {
      copy: [
        'required',
        'in',
        'description',
        'name',
        'allowEmptyValue',
        'type',
        'format',
        'collectionFormat',
        'maximum',
        'exclusiveMaximum',
        'minimum',
        'exclusiveMinimum',
        'maxLength',
        'minLength',
        'pattern',
        'maxItems',
        'minItems',
        'uniqueItems',
        'multipleOf',
      ],
      any: ['default', 'enum'],
      handled: ['items'],
    });
    if (p['items'] !== undefined) out['items'] = this.primitives(`${where}.items`, p['items']);
    return out;
  }

  parameter(p: unknown): Message {
    if (!isObj(p)) return {};
    if (typeof p['$ref'] === 'string')
      return { json_reference: this.fields('parameter', p, { copy: ['$ref', 'description'] }) };
    if (p['in'] === 'body') {
      const body = this.fields('parameter', p, {
        copy: ['description', 'name', 'in', 'required'],
        handled: ['schema'],
      });
      if (p['schema'] !== undefined) body['schema'] = this.schema(p['schema']);
      return { parameter: { body_parameter: body } };
    }
    const where = typeof p['in'] === 'string' ? p['in'] : JSON.stringify(p['in']);
    const kind = new Map([
      ['header', 'header'],
      ['formData', 'form_data'],
      ['query', 'query'],
      ['path', 'path'],
    ]).get(where);
    if (kind === undefined) {
      this.dropped.add(`parameter.in=${where}`);
      return {};
    }
    return {
      parameter: {
        non_body_parameter: { [`${kind}_parameter_sub_schema`]: this.primitives('parameter', p) },
      },
    };
  }

  response(r: unknown): Message {
    if (!isObj(r)) return {};
    if (typeof r['$ref'] === 'string')
      return { json_reference: this.fields('response', r, { copy: ['$ref', 'description'] }) };
    const out = this.fields('response', r, {
      copy: ['description'],
      handled: ['schema', 'headers', 'examples'],
    });
    const s = r['schema'];
    if (s !== undefined)
      out['schema'] =
        isObj(s) && s['type'] === 'file'
          ? {
              file_schema: this.fields('response.schema', s, {
                copy: [
                  'format',
                  'title',
                  'description',
                  'required',
                  'type',
                  'readOnly',
                  'externalDocs',
                ],
                any: ['default', 'example'],
              }),
            }
          : { schema: this.schema(s) };
    if (r['headers'] !== undefined)
      out['headers'] = {
        additional_properties: this.named(r['headers'], (h) => this.primitives('header', h)),
      };
    if (r['examples'] !== undefined)
      out['examples'] = { additional_properties: this.named(r['examples'], anyOf) };
    return { response: out };
  }

  operation(op: unknown): Message {
    if (!isObj(op)) return {};
    const out = this.fields('operation', op, {
      copy: [
        'tags',
        'summary',
        'description',
        'externalDocs',
        'operationId',
        'produces',
        'consumes',
        'schemes',
        'deprecated',
      ],
      handled: ['parameters', 'responses', 'security'],
    });
    if (Array.isArray(op['parameters']))
      out['parameters'] = op['parameters'].map((p) => this.parameter(p));
    if (isObj(op['responses'])) {
      const codes = Object.fromEntries(
        Object.entries(op['responses']).filter(([k]) => !k.startsWith('x-')),
      );
      out['responses'] = {
        ...this.fields('responses', op['responses'], { copy: [], handled: Object.keys(codes) }),
        response_code: this.named(codes, (r) => this.response(r)),
      };
    }
    if (Array.isArray(op['security']))
      out['security'] = op['security'].map((r) => this.security(r));
    return out;
  }

  security(r: unknown): Message {
    return { additional_properties: this.named(r, (v) => ({ value: Array.isArray(v) ? v : [] })) };
  }

  pathItem(item: unknown): Message {
    if (!isObj(item)) return {};
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
    const out = this.fields('path', item, { copy: ['$ref'], handled: [...methods, 'parameters'] });
    for (const m of methods) if (item[m] !== undefined) out[m] = this.operation(item[m]);
    if (Array.isArray(item['parameters']))
      out['parameters'] = item['parameters'].map((p) => this.parameter(p));
    return out;
  }

  document(doc: Json): Message {
    const out = this.fields('document', doc, {
      copy: ['swagger', 'host', 'basePath', 'schemes', 'consumes', 'produces', 'externalDocs'],
      handled: [
        'tags',
        'info',
        'paths',
        'definitions',
        'parameters',
        'responses',
        'security',
        'securityDefinitions',
      ],
    });
    if (Array.isArray(doc['tags']))
      out['tags'] = doc['tags'].map((t) =>
        isObj(t) ? this.fields('tag', t, { copy: ['name', 'description', 'externalDocs'] }) : {},
      );
    if (isObj(doc['info']))
      out['info'] = this.fields('info', doc['info'], {
        copy: ['title', 'version', 'description', 'termsOfService', 'contact', 'license'],
      });
    if (isObj(doc['paths'])) {
      const paths = Object.fromEntries(
        Object.entries(doc['paths']).filter(([k]) => k.startsWith('/')),
      );
      out['paths'] = {
        ...this.fields('paths', doc['paths'], { copy: [], handled: Object.keys(paths) }),
        path: this.named(paths, (p) => this.pathItem(p)),
      };
    }
    if (doc['definitions'] !== undefined)
      out['definitions'] = {
        additional_properties: this.named(doc['definitions'], (s) => this.schema(s)),
      };
    if (doc['parameters'] !== undefined)
      out['parameters'] = {
        additional_properties: this.named(doc['parameters'], (p) =>
          recordOf(this.parameter(p)['parameter']),
        ),
      };
    if (doc['responses'] !== undefined)
      out['responses'] = {
        additional_properties: this.named(doc['responses'], (r) =>
          recordOf(this.response(r)['response']),
        ),
      };
    if (Array.isArray(doc['security']))
      out['security'] = doc['security'].map((r) => this.security(r));
    if (doc['securityDefinitions'] !== undefined)
      out['security_definitions'] = {
        additional_properties: this.named(doc['securityDefinitions'], (d) =>
          this.securityDefinition(d),
        ),
      };
    return out;
  }

  securityDefinition(d: unknown): Message {
    if (!isObj(d)) return {};
    const f = (copy: string[]): Message =>
      this.fields('securityDefinition', d, { copy, handled: ['scopes'] });
    if (d['type'] === 'basic') return { basic_authentication_security: f(['type', 'description']) };
    if (d['type'] === 'apiKey')
      return { api_key_security: f(['type', 'name', 'in', 'description']) };
    const flow = new Map([
      ['implicit', 'implicit'],
      ['password', 'password'],
      ['application', 'application'],
      ['accessCode', 'access_code'],
    ]).get(typeof d['flow'] === 'string' ? d['flow'] : '');
    if (d['type'] !== 'oauth2' || flow === undefined) {
      this.dropped.add(`securityDefinition.type=${JSON.stringify(d['type'])}`);
      return {};
    }
    const msg = f(['type', 'flow', 'authorizationUrl', 'tokenUrl', 'description']);
    msg['scopes'] = {
      additional_properties: this.named(d['scopes'], (v) =>
        typeof v === 'string' ? v : JSON.stringify(v),
      ),
    };
    return { [`oauth2_${flow}_security`]: msg };
  }
}

/** The gnostic openapi.v2.Document message of a Swagger 2.0 JSON document. */
export function toGnosticDocument(doc: Json): Converted {
  const c = new Converter();
  return { message: c.document(doc), dropped: c.dropped };
}
