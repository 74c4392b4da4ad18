import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const webFeatures = readdirSync(new URL('./apps/web/src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Server source files under these folders (apps/server/src/<dir>/…). */
const server = (...dirs) => dirs.map((dir) => `apps/server/src/${dir}/**/*.ts`);
/** A `no-restricted-imports` pattern: importing one of the server's `folders` from a sibling folder. */
const layer = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`, message });
/** One layer rule: `files` (tests excepted) must not import `forbidden` (each `[folders, message]`), minus `ignores`. */
const serverLayer = (files, forbidden, ignores = []) => ({
  files,
  ignores: ['**/*.test.ts', ...ignores],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map(([folders, message]) => layer(folders, message)) },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'coverage/**',
      'playwright-report/**',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.mjs', '*.ts', 'scripts/*.mjs', 'bench/*.mjs', '.ci/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'e2e/**/*.ts'],
    rules: {
      // Tests read untyped JSON bodies from responses.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  // The web app's layers import one way: components/lib/config/i18n → features → app; no feature imports another.
  {
    files: ['apps/web/src/{components,lib,config,i18n}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)(features|app)(/|$)',
              message: 'Shared layers (components, lib, config, i18n) must not import features or the app.',
            },
          ],
        },
      ],
    },
  },
  ...webFeatures.map((feature) => ({
    files: [`apps/web/src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${webFeatures.filter((f) => f !== feature).join('|')}|app)(/|$)`,
              message:
                'A feature must not import another feature or the app; move shared code to components or lib.',
            },
          ],
        },
      ],
    },
  })),
  // The server's layers (docs/architecture.md): routes → services → repositories; presenters and coordination below
  // them. Tests may reach any layer to set up and inspect, so `*.test.ts` files are not checked.
  serverLayer(server('routes'), [
    [['repositories'], 'Routes call a service, never a repository: put the query behind a service function.'],
  ]),
  serverLayer(
    [...server('services', 'tasks'), 'apps/server/src/chat/**/*.service.ts'],
    [
      [['routes'], 'Services must not import routes: move what both need into the service (or a presenter).'],
      [
        ['http'],
        'Services hold no HTTP: take plain values, throw application errors (not from http/); leave replies to routes.',
      ],
    ],
  ),
  serverLayer(server('presenters'), [
    [
      ['services', 'routes', 'http', 'chat'],
      'Presenters only map rows to contract shapes: take what they need as arguments; mapping helpers live in presenters/.',
    ],
  ]),
  serverLayer(server('coordination'), [
    [
      ['chat'],
      'coordination/ sits below chat/: declare the interface here (coordination/) and let chat/ import it.',
    ],
  ]),
  serverLayer(server('repositories'), [
    [
      ['services', 'routes', 'chat', 'http', 'presenters'],
      'Repositories only talk SQL: take values, return rows; rules, errors and shapes belong to the layers above.',
    ],
  ]),
  // Only repositories/ and db/ talk SQL: no `kysely` import (not even its types: rows come from db/schema, the
  // executor type from repositories/executor) and no query building on a database handle elsewhere. Opening a
  // transaction (`db.transaction().execute(trx => …)`) in a service and passing `trx` to repositories is allowed.
  {
    files: ['apps/server/src/**/*.ts'],
    ignores: [
      'apps/server/src/repositories/**',
      'apps/server/src/db/**',
      'apps/server/src/test/**',
      '**/*.test.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'kysely', message: 'Only repositories/ and db/ talk SQL: add a repository method.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
          message: 'Only repositories/ talk SQL: add a repository method named for the question it answers.',
        },
      ],
    },
  },
  // The ask pipeline and the source adapters read as steps: no function longer than about a screen.
  {
    files: ['apps/server/src/{chat,sources}/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // Dependency cycles anywhere in the tree (type-only imports do not count: they vanish at run time).
  {
    files: ['**/*.{ts,tsx,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: [
            'apps/*/tsconfig.json',
            'packages/*/tsconfig.json',
            'e2e/tsconfig.json',
            'bench/tsconfig.json',
          ],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
