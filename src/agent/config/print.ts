// --print-config: the effective configuration as a NodeAgentConfiguration YAML document (every
// field, defaults included, secrets masked), then a NodeAgentFlags document with the flag-only
// settings. A configuration that opens the command endpoints to anyone is marked first. A string
// that YAML 1.1 (how config files are read) or 1.2 could take for another type is quoted.
import jsyaml from 'js-yaml';
import type { NodeAgentFlags } from './flags-type.js';
import { maskUrlUserinfoDeep } from '../../common/util/url-userinfo.js';
import { redactConfiguration } from './redact.js';
import { GO_DUMP_SCHEMA } from '../../common/util/go-yaml-jsyaml.js';
import type { NodeAgentConfiguration } from './schema.js';
import { unsafeServingWarning } from './unsafe-serving.js';

function sortedKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}

export function renderPrintConfig(config: NodeAgentConfiguration, flags: NodeAgentFlags): string {
  const { apiVersion, kind, ...rest } = redactConfiguration(config);
  const first = { apiVersion, kind, ...sortedKeys(rest) };
  const second = {
    apiVersion,
    kind: 'NodeAgentFlags',
    ...sortedKeys(maskUrlUserinfoDeep({ ...flags })),
  };
  const opts = { lineWidth: -1, noRefs: true, sortKeys: false, schema: GO_DUMP_SCHEMA } as const;
  // an unsafe serving configuration is marked with a YAML comment: the output still loads
  const warning = unsafeServingWarning(config);
  const mark = warning === undefined ? '' : `# WARNING (unsafe): ${warning}\n`;
  return `${mark}${jsyaml.dump(first, opts)}---\n${jsyaml.dump(second, opts)}`;
}
