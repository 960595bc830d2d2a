import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'oclif.manifest.json', '.mem-bench/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_'}],
      // Prettier lays code out in 120 columns but leaves comments and strings whole; messages and
      // descriptions stay one string each (they read and grep as the user sees them).
      'max-len': [
        'error',
        {code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true},
      ],
    },
  },
  {
    files: ['**/*.cjs', 'bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {require: 'readonly', module: 'writable', __dirname: 'readonly'},
    },
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    languageOptions: {globals: {process: 'readonly', console: 'readonly'}},
  },
)
