// ESLint flat config. It lives in .config/ to keep the top level as the design asks;
// `npm run lint` passes it with --config.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import i18next from 'eslint-plugin-i18next';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const partImports = (forbidden, message) => ({
  'no-restricted-imports': [
    'error',
    { patterns: forbidden.map((group) => ({ group: [group], message })) },
  ],
});

// The dashboard's features, one folder each: a feature imports what lies below it (core/,
// components/, shared/, i18n/, paths.ts) and never another feature, so each can change alone.
const features = readdirSync(new URL('../src/dashboard/features/', import.meta.url), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const dashboardForbidden = [
  {
    group: ['**/service/**', 'node:*'],
    message: 'The dashboard talks to the service only through the kit.',
  },
];
// The dashboard's floors from the top down (see dashboardFloors below).
const DASHBOARD_FLOORS = [
  { name: 'app', group: ['**/app/**'] },
  { name: 'features', group: ['**/features/**'] },
  { name: 'components', group: ['**/components/**'] },
  { name: 'shared', group: ['**/shared/**'] },
  { name: 'paths', group: ['**/paths.ts'] },
  { name: 'core', group: ['**/core/**'] },
  { name: 'i18n', group: ['**/i18n/**'] },
];
/** A floor's files may import their own floor and those below it, never one above. */
const dashboardFloor = (files, name) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...dashboardForbidden,
          ...DASHBOARD_FLOORS.slice(
            0,
            DASHBOARD_FLOORS.findIndex((floor) => floor.name === name),
          ).map((floor) => ({
            group: floor.group,
            message: `The dashboard's ${floor.name}/ stands above this file, which never imports it (floors in .config/eslint.config.js).`,
          })),
        ],
      },
    ],
  },
});
const featureImports = (feature) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        ...dashboardForbidden,
        ...features
          .filter((other) => other !== feature)
          .map((other) => ({
            group: [
              `../${other}`,
              `../${other}/**`,
              `**/features/${other}`,
              `**/features/${other}/**`,
            ],
            message: `A feature never imports another (here ${other}): move what both need to dashboard/shared/ or dashboard/components/.`,
          })),
        {
          group: ['**/app/**'],
          message:
            'A feature never imports the shell (app/): what it needs lies in core/, shared/ or components/.',
        },
      ],
    },
  ],
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'data/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      '.bench/**',
      // The kit package's build output (src/kit/build.mjs).
      'src/kit/dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  // Imports flow one way: dashboard → kit, service → kit (types and wire constants); the
  // kit imports nothing else of the project.
  {
    files: ['src/kit/**/*.ts'],
    ignores: ['src/kit/**/*.test.ts', 'src/kit/cli/**'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      ...partImports(
        ['**/service/**', '**/dashboard/**', 'node:*', 'react', 'react-*'],
        'The kit is isomorphic: no service, dashboard, Node or React imports.',
      ),
      'no-restricted-globals': [
        'error',
        'window',
        'document',
        'localStorage',
        'sessionStorage',
        'navigator',
        'process',
        'Buffer',
      ],
    },
  },
  {
    files: ['src/service/**/*.ts', 'src/service/**/*.mjs', 'src/bench/**/*.ts', 'src/fuzz/**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: partImports(['**/dashboard/**'], 'The service never imports the dashboard.'),
  },
  // A promise left unawaited, or tested as if it were its value, is a check that always
  // passes or a write that may be lost (the service's state is behind an async store since
  // issue 28). The compiler does not see either; these type-aware rules do, everywhere.
  {
    files: ['src/**/*.{ts,tsx}', 'e2e/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: new URL('..', import.meta.url).pathname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['src/dashboard/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { patterns: dashboardForbidden }],
    },
  },
  // The dashboard in floors, each importing only those below it: app/ (the shell: router,
  // layout, switcher, the table of pages) over features/, over components/, over shared/,
  // over paths.ts, over core/ (sign-in, clients, preferences, polling), over i18n/. Nothing
  // below reaches up, so the shell can change without its foundations and back.
  dashboardFloor(['src/dashboard/components/**'], 'components'),
  dashboardFloor(['src/dashboard/shared/**'], 'shared'),
  dashboardFloor(['src/dashboard/*.ts'], 'paths'),
  dashboardFloor(['src/dashboard/core/**'], 'core'),
  dashboardFloor(['src/dashboard/i18n/**'], 'i18n'),
  ...features.map((feature) => ({
    files: [`src/dashboard/features/${feature}/**`],
    rules: featureImports(feature),
  })),
  // Every word a user reads comes from the catalogue (src/dashboard/i18n/locales): a literal
  // in JSX text or in a JSX attribute (aria-label, title, placeholder…) fails the lint.
  {
    files: ['src/dashboard/**/*.tsx'],
    ignores: ['src/dashboard/**/*.test.tsx'],
    plugins: { i18next },
    rules: {
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'jsx-only',
          // Attributes someone reads or hears; every other attribute is code.
          'jsx-attributes': {
            include: [
              'aria-label',
              'aria-description',
              'aria-valuetext',
              'title',
              'placeholder',
              'alt',
              'label',
              'disabledReason',
              'hint',
              'description',
              'heading',
              'emptyText',
            ],
          },
          // Marks and symbols are the same in every language.
          words: { exclude: ['[0-9!-/:-@[-`{-~]+', '[✕✓›‹«»…—–·×↻⟳▲▼●○■□ ]+'] },
        },
      ],
    },
  },
  {
    files: [
      'e2e/**/*.ts',
      'src/kit/**/*.test.ts',
      'src/kit/cli/**/*.ts',
      'src/kit/*.mjs',
      '*.ts',
      '.config/*.js',
    ],
    languageOptions: { globals: { ...globals.node } },
  },
);
