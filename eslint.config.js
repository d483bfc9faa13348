// ESLint for the whole project (`npm run lint`, part of `npm test`): TypeScript's recommended
// rules, React and its hooks, and jsx-a11y for the components. Layout is Prettier's business.
import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/", "public/build/", "app/generated/", "data/", "test-results*/", "playwright-report/", ".build-*/", ".cache/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a value that is there on purpose and not used.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // A variable a signal handler reads before its one assignment stays `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
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
