// ESLint 9 flat config. Layout is Prettier's job (.prettierrc.json); these rules are about
// bugs. TypeScript files get typescript-eslint's type-aware `recommendedTypeChecked` set
// (the project service finds tsconfig.json, which includes src, test and bench), with the
// changes below; the .mjs scripts and benchmarks get ESLint's recommended set.
//
//   npx eslint .          the whole tree (npm run lint does this, after prettier --check)
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** `_`-prefixed names are deliberately unused: `const { d: _d, ...publicJwk } = jwk`, `(_req, res) => ...`. */
const unusedVars = {
  args: 'after-used',
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrors: 'all',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'packages/*/dist/',
      'coverage/',
      'node_modules/',
      '.dist-*/',
      'vectors/',
      '.stryker-tmp/',
      '.stryker-tmp-*/',
      'reports/',
      'scratch/',
      '.scratch/',
      'docs/api/',
      'examples/*/node_modules/',
      'examples/*/.wrangler/',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'always'],
      // `let server; const handler = () => server.close(); server = listen(handler)`: assigned
      // once, but read (in a closure) above the assignment, so it cannot be a const there.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-unused-vars': ['error', unusedVars],
    },
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', unusedVars],
      // verbatimModuleSyntax already makes a type imported without `type` a compile error;
      // this rule adds the autofix. Both `import type { A }` and `import { type A }` pass.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-explicit-any': 'warn',
      // `Promise.all(list.map((x) => (cond ? work(x) : undefined)))` is a deliberate idiom.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // `declare global { namespace Express { ... } }` is how Express is augmented.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // Re-rejecting a caught `unknown` (`catch (e) { return Promise.reject(e) }`) is fine;
      // rejecting with a string or a plain object is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // `async` without `await` is how a function turns its synchronous throws into rejections.
      '@typescript-eslint/require-await': 'off',
      // The same file is type-checked under several environments (tsconfig.json with Node
      // types, tsconfig.core.json with none, the README check against dist/): an assertion
      // that is redundant under one can be needed under another, so no autofix removes them.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Public functions check their arguments at run time for JavaScript callers
      // (`Array.isArray(x)`, `x instanceof Map`), and TypeScript narrows those checks to
      // `any[]` / `Map<any, any>`: the no-unsafe-* rules then flag correct code by the dozen.
      // `any` written by hand is still reported (no-explicit-any) and calling an `any` is an error.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // `expect(obj.method)`, `importSign: provider.importSign` in fakes.
      '@typescript-eslint/unbound-method': 'off',
      // Structured-field and header fuzzing builds control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
