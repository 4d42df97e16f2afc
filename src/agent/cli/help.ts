// `nodeagent --help`, laid out as the reference kubelet prints its help: the description, the
// usage line, then `Flags:` with every flag sorted by name (the kubelet keeps its global flags in
// that one list), each with its type, help, default and markers from the flag table, wrapped to
// the terminal's width (80 when stdout is not a terminal; src/common/cli/help-layout.ts).
import { flagUsages, helpWidth, wrapText } from '../../common/cli/help-layout.js';
import { describeFeatureGates } from './feature-gates.js';
import {
  flagUsage,
  MARKER_LEGEND,
  PROGRAM_SUMMARY,
  PRECEDENCE_TEXT,
  sortedFlags,
  valueName,
} from './describe.js';

export function renderHelp(width: number = helpWidth()): string {
  const rows = sortedFlags().map((f) => ({
    name: f.name,
    short: f.short,
    valueName: valueName(f),
    usage:
      f.type === 'featureGates'
        ? `${flagUsage(f)} Known gates:\n${describeFeatureGates().join('\n')}`
        : flagUsage(f),
  }));
  const lines: string[] = [
    wrapText(PROGRAM_SUMMARY, width),
    '',
    wrapText(PRECEDENCE_TEXT, width),
    '',
    'Usage:',
    '  nodeagent [flags]',
    '',
    'Flags:',
    flagUsages(rows, width),
    '',
    'Markers:',
    ...MARKER_LEGEND.map(
      ([m, meaning]) => `  ${m.padEnd(9)}${wrapText(meaning, width, 11).slice(11)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
