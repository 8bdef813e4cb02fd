// One lint config for the whole repo (flat config): ESLint's and typescript-eslint's
// recommended rules, plus the few habits this codebase keeps.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/test-results/**', '.tools/**', '.redis-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // The demo page's script runs in the browser.
    files: ['apps/demo/public/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', FormData: 'readonly', setInterval: 'readonly' },
    },
  },
  {
    // README examples and test fixture scripts print what they do.
    files: ['**/examples/**', '**/test/fixtures/**'],
    rules: { 'no-console': 'off' },
  },
);
