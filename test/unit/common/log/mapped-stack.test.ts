import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { mapStack } from '../../../../src/common/log/mapped-stack.js';
import { renderTextLine } from '../../../../src/common/log/text-format.js';

/**
 * A generated file `gen.cjs` whose map says: line 1, column 1 is src/a.ts 1:1; line 1, column 11
 * is src/a.ts 5:3. Nothing else of line 1 and no other line is mapped.
 */
function withMappedFile(use: (dir: string, gen: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'mapped-stack-'));
  try {
    const gen = join(dir, 'out', 'gen.cjs');
    mkdirSync(join(dir, 'out'));
    writeFileSync(gen, 'module.exports = 1;\n');
    writeFileSync(
      `${gen}.map`,
      JSON.stringify({ version: 3, sources: ['../src/a.ts'], names: [], mappings: 'AAAA,UAIE' }),
    );
    use(dir, gen);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a frame of a file with a map names the source, line and column; the other lines stay', () => {
  withMappedFile((dir, gen) => {
    const stack = [
      'Error: boom (at /not/a/frame.cjs:1:11)',
      `    at run (${gen}:1:11)`,
      `    at ${gen}:1:1`,
      `    at async Promise.all (index 0)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at other (${join(dir, 'out', 'no-map.cjs')}:1:11)`,
      `    at unknownPosition (${gen}:7:1)`,
    ].join('\n');
    const mapped = mapStack(stack).split('\n');
    const src = join(dir, 'src', 'a.ts');
    assert.deepEqual(mapped, [
      'Error: boom (at /not/a/frame.cjs:1:11)',
      `    at run (${src}:5:3)`,
      `    at ${src}:1:1`,
      `    at async Promise.all (index 0)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at other (${join(dir, 'out', 'no-map.cjs')}:1:11)`,
      `    at unknownPosition (${gen}:7:1)`,
    ]);
  });
});

test('a frame named by a file: URL (an ES module) is mapped too', () => {
  withMappedFile((dir, gen) => {
    const url = pathToFileURL(gen).href;
    assert.equal(
      mapStack(`Error: x\n    at f (${url}:1:11)`),
      `Error: x\n    at f (${join(dir, 'src', 'a.ts')}:5:3)`,
    );
  });
});

test('a file: URL that names no path leaves the frame as it is', () => {
  const frame = 'Error: x\n    at f (file:///%E0%A4%A:1:11)';
  assert.equal(mapStack(frame), frame);
});

test('a map that is not JSON, not a v3 map, or larger than 16 MB, leaves the frame as it is', () => {
  const spoil: ((map: string) => void)[] = [
    ...[
      { version: 3, sources: 'src/a.ts', mappings: 'AAAA' },
      { version: 3, sources: [1], mappings: 'AAAA' },
      { version: 3, sources: ['src/a.ts'], mappings: 7 },
      [],
    ].map((bad) => (map: string) => writeFileSync(map, JSON.stringify(bad))),
    (map) => writeFileSync(map, '{"version": 3, "sources": ['),
    (map) => truncateSync(map, 17 * 1024 * 1024),
  ];
  for (const write of spoil)
    withMappedFile((_dir, gen) => {
      write(`${gen}.map`);
      const frame = `Error: x\n    at f (${gen}:1:11)`;
      assert.equal(mapStack(frame), frame);
    });
});

test('the text format prints the stack of a trace-level record through the maps', () => {
  withMappedFile((dir, gen) => {
    const line = renderTextLine({
      level: 10,
      time: 0,
      msg: 'failed',
      err: { message: 'boom', stack: `Error: boom\n    at f (${gen}:1:11)` },
    });
    assert.ok(
      line.includes(
        `stack=${JSON.stringify(`Error: boom\n    at f (${join(dir, 'src', 'a.ts')}:5:3)`)}`,
      ),
      line,
    );
  });
});

test('any text: mapStack never throws, keeps the line count, and changes no line that is not a frame', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 400 }), (text) => {
      const out = mapStack(text).split('\n');
      const lines = text.split('\n');
      assert.equal(out.length, lines.length);
      lines.forEach((l, i) => {
        if (!/^\s*at /.test(l)) assert.equal(out[i], l);
      });
    }),
    { numRuns: 500 },
  );
});
