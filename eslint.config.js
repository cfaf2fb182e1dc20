// Lint config: typescript-eslint recommended rules over everything we ship and test.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'dist/**',
      'drizzle/**',
      'drizzle-pg/**',
      'coverage/**',
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The launcher and its bundler run on Node as plain JavaScript (bin/).
    files: ['bin/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // Tool configs that must be CommonJS (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly' },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    // Every metadata read and write is asynchronous (src/engine/db/store.ts): a promise
    // nobody awaits is a check that never ran or a write that may fail unseen.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/app/**'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/await-thenable': 'error',
      // `return promise` inside try/catch/finally escapes the catch: await it there.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
    },
  },
);
