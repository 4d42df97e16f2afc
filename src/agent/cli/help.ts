// `nodeagent --help`: the usage line and every flag in the reference's pflag layout, with its
// type, help, default and markers, all derived from the flag table.
import { describeFeatureGates } from './feature-gates.js';
import {
  flagSignature,
  flagUsage,
  MARKER_LEGEND,
  PROGRAM_SUMMARY,
  PRECEDENCE_TEXT,
  sortedFlags,
} from './describe.js';

function wrap(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(indent + line);
  return out.join('\n');
}

export function renderHelp(): string {
  const flags = sortedFlags();
  const lefts = flags.map((f) => {
    const { short, long } = flagSignature(f);
    return short === '' ? `      ${long}` : `  ${short}, ${long}`;
  });
  const width = Math.max(...lefts.map((l) => l.length));
  const pad = ' '.repeat(width + 3);
  const lines: string[] = [
    wrap(PROGRAM_SUMMARY, 100),
    '',
    'Usage:',
    '  nodeagent [flags]',
    '',
    wrap(PRECEDENCE_TEXT, 100),
    '',
    'Flags:',
  ];
  flags.forEach((f, i) => {
    const left = lefts[i] ?? '';
    let usage = flagUsage(f);
    if (f.type === 'featureGates') usage += ` Known gates:\n${describeFeatureGates().join('\n')}`;
    lines.push(`${left.padEnd(width)}   ${usage.split('\n').join(`\n${pad}`)}`);
  });
  lines.push('', 'Markers:');
  for (const [m, meaning] of MARKER_LEGEND) lines.push(`  ${m.padEnd(8)} ${meaning}`);
  return `${lines.join('\n')}\n`;
}
