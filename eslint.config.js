// The lint `npm test` runs: a small set of rules that catch bugs, no formatting rules (docs/decisions.md, issue 27).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

export default defineConfig(
  { ignores: ['node_modules/', 'data/', 'test-results/', 'dist/'] },
  {
    files: ['**/*.ts', '**/*.js'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Promises: one dropped or passed where a callback's result is ignored loses its error.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Promise.all over "a promise or null" is fine; an array with no promise in it at all is the bug.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // Type escapes: `any`, and @ts-ignore (in recommended), hide the bugs the type checker would find.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_',
      }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      'no-fallthrough': 'error',
      // A committed `.only` runs one test and passes the rest silently; `.skip` hides a failure.
      'no-restricted-properties': ['error',
        ...['describe', 'it', 'context'].flatMap((object) => ['only', 'skip'].map((property) => ({ object, property, message: 'No .only/.skip in committed tests.' }))),
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' },
  },
  {
    // Pages are built with the `html` tag (src/http/pages/html.ts): markup (SafeHtml) put into a plain template string or
    // joined as a string would lose its brand, so both are refused here.
    files: ['src/http/pages/**/*.ts', 'src/http/docs.ts'],
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-base-to-string': 'error',
    },
  },
  {
    // Plain JavaScript is not in the TypeScript project: lint it without types.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The console's one script runs in the browser.
    files: ['src/http/pages/console/assets/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', console: 'readonly' } },
  },
);
