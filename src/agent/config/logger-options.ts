// Logger options from the effective configuration's `logging` block.
import type { NodeAgentConfiguration } from './schema.js';
import { tryDurationMs, tryQuantity } from './values.js';
import type { LoggerOptions } from '../../common/log/logger.js';

export function loggerOptionsFromConfig(c: NodeAgentConfiguration): LoggerOptions {
  const l = c.logging;
  return {
    verbosity: l.verbosity,
    vmodule: l.vmodule,
    flushFrequencyMs: tryDurationMs(l.flushFrequency) ?? 5000,
    splitStream: l.options.text.splitStream,
    infoBufferSize: tryQuantity(l.options.text.infoBufferSize) ?? 0,
    component: 'nodeagent',
  };
}
