import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The only files that may import `@aws-sdk/*`: each wraps one AWS service behind a plain
 * function or class. A new adapter must be added here; domain code calls the adapter.
 */
const AWS_ADAPTERS = [
  'shared/aws/**',
  'shared/store/dynamodb-store.ts',
  'shared/credentials/kms-cipher.ts',
  'shared/doctor/sns-check.ts',
  'shared/memory/agentcore-mirror.ts',
  'shared/integrations/agentcore-browser.ts',
  'shared/integrations/agentcore-code-interpreter.ts',
];
const AWS_ONLY_IN_ADAPTERS =
  'The AWS SDK may be imported only in adapter files (AWS_ADAPTERS in eslint.config.js).';
const PRODUCT_CODE = ['shared/**', 'lib/**', 'lambdas/**', 'bin/**'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'cdk.out/', '.handoff/', 'test-artifacts/', 'spike/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/lambdas/**', '**/lib/**'], message: 'shared/ never imports lambdas/ or lib/.' },
          ],
        },
      ],
    },
  },
  {
    // The typescript-eslint twin of no-restricted-imports, so the layer rules above stay whole.
    files: PRODUCT_CODE,
    ignores: AWS_ADAPTERS,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@aws-sdk/*'], message: AWS_ONLY_IN_ADAPTERS }] },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/^@aws-sdk\\//]', message: AWS_ONLY_IN_ADAPTERS },
      ],
    },
  },
  {
    // No import cycles in product code: a cycle is a design problem, not something to hide behind import().
    files: PRODUCT_CODE,
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
);
