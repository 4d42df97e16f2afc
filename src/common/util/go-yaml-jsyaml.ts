// js-yaml schemas for reading and writing as the reference's go-yaml v2 reads (go-yaml-resolve.ts):
// GO_LOAD_SCHEMA resolves plain scalars as go-yaml v2 does (everything else a string); with
// GO_DUMP_SCHEMA, dump quotes every string that go-yaml v2 or YAML 1.2 could read as another type.
import jsyaml from 'js-yaml';
import { goResolvePlain, goScalarValue } from './go-yaml-resolve.js';

const GO_PLAIN = new jsyaml.Type('tag:yaml.org,2002:go-yaml-v2-plain', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && goResolvePlain(data).kind !== 'str',
  construct: (data: string) => goScalarValue(goResolvePlain(data)),
});

export const GO_LOAD_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: [GO_PLAIN] });
export const GO_DUMP_SCHEMA = jsyaml.CORE_SCHEMA.extend({ implicit: [GO_PLAIN] });
