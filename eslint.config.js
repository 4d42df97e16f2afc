// Lint: the recommended rules, plus the two the house style insists on (no floating promises,
// type-only imports spelled as such).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'man/**', 'schema/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', {
        // node:test's test()/describe() return promises the runner itself awaits.
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  // Layout boundaries (DESIGN.md): the two programs never import each other, and src/common imports
  // neither of them.
  {
    files: ['src/common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/agent/**', '**/apiserver/**'], message: 'src/common imports nothing from either program.' }] }] },
  },
  {
    files: ['src/agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/apiserver/**'], message: 'the agent does not import plat-apiserver code; shared code lives in src/common.' }] }] },
  },
  {
    files: ['src/apiserver/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/agent/**'], message: 'plat-apiserver does not import agent code; shared code lives in src/common.' }] }] },
  },
);
