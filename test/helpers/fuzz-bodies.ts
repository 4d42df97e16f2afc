// Request-body texts for the fuzz suites that feed plat-apiserver's decoders: nesting far past the
// depth limits (JSON and YAML openers), and strings of structural characters of both languages
// (anchors, aliases, block scalars, document markers among them).
import fc from 'fast-check';

export const nestedBody = fc
  .tuple(
    fc.constantFrom('[', '{"a":', '- ', '{a: ', '? ', '[{"b":'),
    fc.integer({ min: 1, max: 12_000 }),
    fc.constantFrom('', '1', ']', '}'),
  )
  .map(([open, n, tail]) => open.repeat(n) + tail);

export const structuralBody = fc.string({
  unit: fc.constantFrom(
    ...[
      '[',
      ']',
      '{',
      '}',
      ',',
      ':',
      '"',
      '-',
      ' ',
      '\n',
      '&a ',
      '*a',
      'a',
      '1',
      '|',
      '---\n',
      '  ',
    ],
  ),
  maxLength: 300,
});
