// The `text` logging format: one readable line per record, in the reference's klog layout:
//   I1122 11:57:03.123456 config] Loaded configuration files=2 path="/etc/nodeagent/config.yaml"
// severity letter + month/day, UTC time, component, message, then key=value pairs (values quoted
// when they contain spaces, quotes or '=', objects as JSON).

import { systemClock } from '../util/clock.js';
import { mapStack } from './mapped-stack.js';
import { isRecord } from '../util/json-shape.js';
const LETTER: Record<number, string> = { 10: 'T', 20: 'D', 30: 'I', 40: 'W', 50: 'E', 60: 'F' };

/** pino's own record fields that are not key=value pairs. */
const RESERVED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component', 'v']);

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

export function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=\\]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (v === undefined) return '<undefined>';
  return JSON.stringify(v);
}

/** Renders one pino record (already parsed from its JSON line) as one text line with "\n". */
export function renderTextLine(rec: Record<string, unknown>): string {
  const level = typeof rec['level'] === 'number' ? rec['level'] : 30;
  // pino stamps every record; a record without a time (written by hand) shows the system clock's
  // now
  const d = new Date(typeof rec['time'] === 'number' ? rec['time'] : systemClock.nowMs());
  const ts =
    `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:` +
    `${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
  const component = typeof rec['component'] === 'string' ? rec['component'] : 'nodeagent';
  const msg = typeof rec['msg'] === 'string' ? rec['msg'] : '';
  let line = `${LETTER[level] ?? 'I'}${ts} ${component}] ${msg.replace(/\n/g, '\\n')}`;
  for (const [k, v] of Object.entries(rec)) {
    if (RESERVED.has(k)) continue;
    if (k === 'err' && isRecord(v)) {
      // The message of an error is what a person acts on; the stack only at trace level.
      line += ` err=${formatValue(v['message'] ?? v['type'] ?? v)}`;
      if (level <= 10 && typeof v['stack'] === 'string')
        line += ` stack=${JSON.stringify(mapStack(v['stack']))}`;
      continue;
    }
    line += ` ${k}=${formatValue(v)}`;
  }
  return `${line}\n`;
}
