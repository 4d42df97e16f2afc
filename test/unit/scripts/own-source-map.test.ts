import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/apiserver.js';

type Own = (
  map: SourceMapPayload,
  own: (source: string) => boolean,
  options?: { lines?: boolean },
) => SourceMapPayload;
const { ownSourceMap } = (await import(
  pathToFileURL(join(repoRoot(), 'scripts', 'own-source-map.mjs')).href
)) as { ownSourceMap: Own };

// Generated line 1: columns 0-9 are src/a.ts line 1, 10-29 a dependency (two of its lines), 30-
// src/a.ts line 3.
const BUNDLE_MAP: SourceMapPayload = {
  version: 3,
  file: 'out.js',
  sourceRoot: '',
  sources: ['src/a.ts', 'node_modules/x/index.js'],
  sourcesContent: [],
  names: [],
  mappings: 'AAAA,UCAA,UACA,UDCA',
};

const sourceAt = (map: SourceMapPayload, column: number): string | undefined => {
  const e = new SourceMap(map).findEntry(0, column) as {
    originalSource?: string;
    originalLine?: number;
  };
  return e.originalSource === undefined ? undefined : `${e.originalSource}:${e.originalLine}`;
};

for (const lines of [false, true]) {
  test(`own sources only${lines ? ' (lines)' : ''}: a dependency's code maps to nothing, not to the project's code before it`, () => {
    const own = ownSourceMap(BUNDLE_MAP, (s) => !s.includes('node_modules'), { lines });
    assert.deepEqual(own.sources, ['src/a.ts']);
    assert.equal(sourceAt(own, 5), 'src/a.ts:0');
    assert.equal(sourceAt(own, 10), undefined);
    assert.equal(sourceAt(own, 25), undefined);
    assert.equal(sourceAt(own, 31), 'src/a.ts:2');
    // The dependency's run is one segment without a source: 3 segments on the line.
    assert.equal(own.mappings.split(',').length, 3);
  });
}
