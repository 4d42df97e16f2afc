// A duration from the configuration in milliseconds, for the parts that take one: a bad value is a
// ConfigError naming the field and its flag.
import { ConfigError, userMessage } from '../../common/util/errors.js';
import { parseDurationMs } from '../../common/util/values/duration.js';

export function durationMs(value: string, field: string, flag: string): number {
  try {
    return parseDurationMs(value, flag);
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${field} (${flag}) ${userMessage(err)}`, {
      field,
      flag,
    });
  }
}
