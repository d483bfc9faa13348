// ESLint for the whole project (`npm run lint`, part of `npm test`): TypeScript's recommended
// type-checked rules, React and its hooks, and jsx-a11y for the components. Layout is Prettier's
// business.
//
// Type-checked: `recommendedTypeChecked`, not `strictTypeChecked`. The recommended set catches what
// types show to be wrong (a floating or misused promise, an `any` leaking out of JSON or a catch, a
// thrown non-error, an assertion the compiler already knows); the strict set adds opinions on style
// (no `!`, no template literals of numbers, "unnecessary" conditions that `noUncheckedIndexedAccess`
// makes necessary) that would churn the code without finding faults. TypeScript files only: the
// few .mjs/.js files are outside tsconfig's program.
import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/", "public/build/", "app/generated/", "data/", "test-results*/", "playwright-report/", ".build-*/", ".cache/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Remix answers a loader or action early by throwing a Response (`throw redirect(...)`,
      // `throw new Response(...)`) or single fetch's `throw data(value, { status })`: those are
      // allowed, every other throw is an Error.
      "@typescript-eslint/only-throw-error": [
        "error",
        {
          allow: [
            { from: "lib", name: "Response" },
            { from: "package", package: "undici-types", name: "Response" },
            { from: "package", package: "@remix-run/server-runtime", name: "TypedResponse" },
            { from: "package", package: "@remix-run/router", name: "DataWithResponseInit" },
          ],
        },
      ],
      // Passing on a rejection's unknown reason as it came is allowed, as only-throw-error allows
      // rethrowing a caught unknown.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  { files: ["**/*.{js,mjs,cjs}"], ...tseslint.configs.disableTypeChecked },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Off: `async` without `await` is how a function keeps its Promise signature (a Remix loader that
      // only throws, a storage or fake method of an async interface) and turns its throws into
      // rejections; the rule would have each wrap its answer in Promise.resolve instead.
      "@typescript-eslint/require-await": "off",
      // `_name` marks a value that is there on purpose and not used.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // A variable a signal handler reads before its one assignment stays `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read JSON answers, raw SQL rows and parsed XML as `any` and check their shape with
    // expect(), which is the point of the test: the no-unsafe rules would only add casts there.
    files: ["tests/**/*.ts", "e2e/**/*.ts", "app/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  { files: ["**/*.tsx"], ...react.configs.flat.recommended },
  { files: ["**/*.tsx"], ...react.configs.flat["jsx-runtime"] },
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, "jsx-a11y": jsxA11y },
    languageOptions: { globals: { ...globals.browser } },
    settings: { react: { version: "18.3" } },
    rules: {
      // The two classic rules of hooks; the React Compiler's stricter rules are not ours to follow.
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      ...jsxA11y.flatConfigs.recommended.rules,
      // A scrolling region (a wide table or chart) must be reachable by keyboard (WCAG 2.1.1).
      "jsx-a11y/no-noninteractive-tabindex": ["error", { roles: ["tabpanel", "region"] }],
    },
  },
);
