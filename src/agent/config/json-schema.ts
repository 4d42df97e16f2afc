// The JSON Schema of the config file, generated from the zod schema and annotated from the flag
// table (help text, flag name, default), so editors can complete and check nodeagent config files.
// `npm run schema` writes it to schema/nodeagent-config.schema.json; a test fails when it is stale.
import { z } from 'zod';
import type { FlagSpec } from '../cli/flag-spec.js';
import { DEFAULT_PLATFORM_DOMAIN } from '../../common/names.js';
import { defaultConfiguration } from './defaults.js';
import { getPath } from './merge.js';
import { nodeAgentConfigurationSchema } from './schema.js';
import { FILE_ONLY_FIELDS } from './file-only-fields.js';

export const SCHEMA_FILE = 'schema/nodeagent-config.schema.json';

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  [k: string]: unknown;
}

export function configJsonSchema(specs: readonly FlagSpec[]): JsonSchema {
  const schema = z.toJSONSchema(nodeAgentConfigurationSchema, { io: 'input' }) as JsonSchema;
  const defaults = defaultConfiguration('file');
  schema['$id'] = `https://${DEFAULT_PLATFORM_DOMAIN}/schemas/nodeagent-config.schema.json`;
  schema['title'] = 'NodeAgentConfiguration';
  schema['description'] =
    'nodeagent configuration file (--config) or drop-in (--config-dir/*.conf). Defaults shown ' +
    'are those of a config file (with --config).';
  const props = schema.properties ?? {};
  props['apiVersion'] = {
    type: 'string',
    pattern: '^nodeagent\\.config\\.[a-z0-9]([-a-z0-9.]*[a-z0-9])?/v1beta1$',
    description:
      `nodeagent.config.{platform_domain}/v1beta1 (default platform domain: ` +
      `${DEFAULT_PLATFORM_DOMAIN})`,
  };
  props['kind'] = { type: 'string', const: 'NodeAgentConfiguration' };
  schema['required'] = ['apiVersion', 'kind'];
  for (const spec of specs) {
    if (spec.configPath === undefined) continue;
    let node: JsonSchema | undefined = schema;
    for (const part of spec.configPath.split('.')) node = node?.properties?.[part];
    if (node === undefined) continue;
    node['description'] = `${spec.help} (flag --${spec.name})`;
    const d = getPath(defaults, spec.configPath);
    if (d !== undefined) node['default'] = d;
  }
  for (const [field, help] of Object.entries(FILE_ONLY_FIELDS)) {
    const node = props[field];
    if (node === undefined) continue;
    node['description'] = `${help} (config file only, no flag)`;
    const d = getPath(defaults, field);
    if (d !== undefined) node['default'] = d;
  }
  return schema;
}

export function renderJsonSchema(specs: readonly FlagSpec[]): string {
  return `${JSON.stringify(configJsonSchema(specs), null, 2)}\n`;
}
