// Both programs' --help through the one layout (src/common/cli/help-layout.ts): the reference's
// first lines and headings (the kubelet: description, `Usage:`, `Flags:`; kube-apiserver:
// description, `Usage:`, then one section per flag group in component-base's order), no line
// wider than the width, and 80 columns when stdout is not a terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flagUsages, helpWidth, wrapText } from '../../../../src/common/cli/help-layout.js';
import { renderHelp } from '../../../../src/agent/cli/help.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { renderApiServerHelp, SECTION_OF, sectionedFlags } from '../../../../src/apiserver/help.js';
import { FLAG_DEFS } from '../../../../src/apiserver/flags.js';
import { EXTRA_FLAGS } from '../../../../src/apiserver/plugins.js';

function widest(text: string): number {
  return Math.max(...text.split('\n').map((l) => l.length));
}

test("the width is the terminal's, or 80 when stdout is not a terminal", () => {
  assert.equal(helpWidth({ isTTY: true, columns: 132 }), 132);
  assert.equal(helpWidth({ isTTY: false, columns: 132 }), 80);
  assert.equal(helpWidth({}), 80);
});

test('wrapping keeps newlines and every line within the width', () => {
  assert.equal(wrapText('aaa bbb ccc', 7), 'aaa bbb\nccc');
  assert.equal(
    wrapText('one\ntwo three', 9, 2),
    '  one\n  two three'.replace('two three', 'two\n  three'),
  );
  assert.equal(wrapText('x'.repeat(10), 4), 'xxxx\nxxxx\nxx');
  const rows = [
    { name: 'v', short: 'v', valueName: 'int', usage: 'Log level.' },
    { name: 'address', valueName: 'string', usage: 'word '.repeat(40).trim() },
  ];
  const listing = flagUsages(rows, 60);
  assert.equal(listing.split('\n')[0], `  -v, --v int${' '.repeat(12)}Log level.`);
  assert.match(listing, /^ {6}--address string {3}word word/m);
  assert.ok(widest(listing) <= 60);
});

for (const width of [80, 100, 132, 200]) {
  test(`nodeagent --help at ${width} columns: the kubelet's layout, no line wider`, () => {
    const help = renderHelp(width);
    assert.ok(widest(help) <= width, `widest line ${widest(help)}`);
    const lines = help.split('\n');
    assert.match(lines[0] ?? '', /^nodeagent is the agent that runs on every node of a cluster\./);
    const usage = lines.indexOf('Usage:');
    assert.equal(lines[usage + 1], '  nodeagent [flags]');
    assert.equal(lines[usage + 2], '');
    assert.equal(lines[usage + 3], 'Flags:');
    assert.deepEqual(
      lines.filter((l) => /^\S.*:$/.test(l)),
      ['Usage:', 'Flags:', 'Markers:'],
    );
    for (const f of FLAGS) assert.ok(help.includes(`--${f.name}`), f.name);
  });

  test(`plat-apiserver --help at ${width} columns: kube-apiserver's sections, no line wider`, () => {
    const help = renderApiServerHelp(EXTRA_FLAGS, width);
    assert.ok(widest(help) <= width, `widest line ${widest(help)}`);
    const lines = help.split('\n');
    assert.match(lines[0] ?? '', /^plat-apiserver is a lightweight control plane/);
    const usage = lines.indexOf('Usage:');
    assert.deepEqual(lines.slice(usage, usage + 3), ['Usage:', '  plat-apiserver [flags]', '']);
    assert.deepEqual(
      lines.filter((l) => /^\S.* flags:$/.test(l)),
      [
        'Generic flags:',
        'Etcd flags:',
        'Secure serving flags:',
        'Authentication flags:',
        'Authorization flags:',
        'Admission flags:',
        'Logs flags:',
        'Traces flags:',
        'Misc flags:',
        'Global flags:',
      ],
    );
    assert.match(
      help,
      /^Global flags:\n\n {2}-h, --help {3,}help for plat-apiserver\n {6}--version version\[=true\] +--version, --version=raw prints/m,
    );
    assert.match(
      help,
      /^Logs flags:\n\n {2}-v, --v Level {3}Number for the log level verbosity\. \(default 0\)$/m,
    );
  });
}

test('every plat-apiserver flag is filed in a section on purpose, and listed once', () => {
  const names = [...FLAG_DEFS.map((f) => f.name), 'help', ...EXTRA_FLAGS.map((f) => f.name)];
  for (const n of names) assert.ok(SECTION_OF[n] !== undefined, `--${n} has no section`);
  const listed = sectionedFlags(EXTRA_FLAGS).flatMap((s) => s.defs.map((d) => d.name));
  assert.deepEqual([...listed].sort(), [...names].sort());
});
