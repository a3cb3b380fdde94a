import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'client/dist/',
      'node_modules/',
      'coverage/',
      'jest.config.js',
      '.dependency-cruiser.cjs',
      'eslint.config.mjs',
      'bin/',
      'test-artifacts/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The dashboard's one browser script, served as it is.
    files: ['public/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      parserOptions: { projectService: false, project: false, program: null },
      globals: {
        document: 'readonly',
        navigator: 'readonly',
        getSelection: 'readonly',
        confirm: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // supertest bodies are untyped JSON; the assertions are the type checks there.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
