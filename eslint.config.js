import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The only files that may import `@aws-sdk/*`: each wraps one AWS service behind a plain
 * function or class. A new adapter must be added here; domain code calls the adapter.
 */
const AWS_ADAPTERS = [
  'shared/aws/**',
  'shared/store/dynamodb-*.ts',
  'shared/credentials/kms-cipher.ts',
  'shared/doctor/sns-check.ts',
  'shared/memory/agentcore-mirror.ts',
  'shared/integrations/agentcore-browser.ts',
  'shared/integrations/agentcore-code-interpreter.ts',
  'shared/speech/aws-speech.ts',
];
const AWS_ONLY_IN_ADAPTERS =
  'The AWS SDK may be imported only in adapter files (AWS_ADAPTERS in eslint.config.js).';
const PRODUCT_CODE = ['shared/**', 'lib/**', 'lambdas/**', 'bin/**'];
const AWS_PATTERN = { group: ['@aws-sdk/*'], message: AWS_ONLY_IN_ADAPTERS };

/** Import patterns of the layers above `layer`, for the rule that keeps it from importing them. */
const above = (layer, folders) => ({
  group: folders.map((f) => `**/${f}/**`),
  message: `${layer} may not import ${folders.join(', ')} (the code map in docs/code-map.md).`,
});
const ORCHESTRATION = ['runs', 'graph', 'web', 'cli', 'aws'];

/**
 * The layers of shared/, bottom first: each folder and what it may not import
 * (docs/code-map.md). Records import only zod, errors and store/ids; the run state only types from the gate.
 */
const LAYERS = [
  ...['errors', 'config', 'store', 'logging'].map((folder) => ({
    folders: [folder],
    patterns: [
      above(folder, ['records', 'memory', 'sources', 'run-state', 'gate', 'agents', ...ORCHESTRATION]),
    ],
  })),
  {
    folders: ['records'],
    patterns: [
      {
        group: ['../*/*', '!../errors/*', '!../store/ids.ts'],
        message: 'records may import only zod, errors and store/ids.ts.',
      },
    ],
  },
  ...['memory', 'sources'].map((folder) => ({
    folders: [folder],
    patterns: [above(folder, ['run-state', 'gate', 'agents', ...ORCHESTRATION])],
  })),
  {
    folders: ['run-state'],
    patterns: [
      above('run-state', ['agents', ...ORCHESTRATION]),
      {
        ...above('run-state', ['gate']),
        message: 'run-state may import only types from gate.',
        allowTypeImports: true,
      },
    ],
  },
  { folders: ['gate'], patterns: [above('gate', ['agents', ...ORCHESTRATION])] },
  { folders: ['agents'], patterns: [above('agents', ORCHESTRATION)] },
  { folders: ['graph'], patterns: [above('graph', ['runs', 'web', 'cli', 'aws'])] },
  { folders: ['runs'], patterns: [above('runs', ['web', 'cli', 'aws'])] },
];

/**
 * One @typescript-eslint/no-restricted-imports config per layer. A later config replaces an
 * earlier one's options for the same rule, so each carries the AWS pattern too (except in adapters).
 */
const layerConfigs = LAYERS.flatMap(({ folders, patterns }) => {
  const files = folders.map((f) => `shared/${f}/**`);
  const adapters = AWS_ADAPTERS.filter((a) => folders.some((f) => a.startsWith(`shared/${f}/`)));
  const rule = (extra) => ({
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...patterns, ...extra] }],
  });
  return [
    { files, ignores: AWS_ADAPTERS, rules: rule([AWS_PATTERN]) },
    ...(adapters.length > 0 ? [{ files: adapters, rules: rule([]) }] : []),
  ];
});

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
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [AWS_PATTERN] }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/^@aws-sdk\\//]', message: AWS_ONLY_IN_ADAPTERS },
      ],
    },
  },
  ...layerConfigs,
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
