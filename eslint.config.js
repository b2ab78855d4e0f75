import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "action/dist/", ".scratch/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        performance: "readonly",
        structuredClone: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "no-control-regex": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  ...importBoundaries(),
);

/**
 * The core's folders import one way: `kernel/` imports only itself, each model (`phases/`, `board/`)
 * only itself and the kernel, and the root (`index.ts`, `evaluate.ts`, `service.ts`, ...) anything
 * below it. Adapters reach the core only through its barrel, `core/index.js`, statically or with
 * `import()`. test/docs/boundaries.test.ts proves each rule on a snippet.
 */
function importBoundaries() {
  // esquery's regular expressions take no slash nor group: `\\x2F` is "/", `:not()` the exception.
  const only = (files, regex, selector, message) => ({
    files,
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex, message }] }],
      "no-restricted-syntax": ["error", { selector, message }],
    },
  });
  const parent = "ImportExpression[source.value=/^\\.\\.\\x2F/]";
  const outsideKernel = `${parent}:not([source.value=/^\\.\\.\\x2Fkernel\\x2F/])`;
  return [
    only(
      ["src/{cli,git,github,app,action,pages}/**/*.ts"],
      "/core/(?!index\\.js$)",
      "ImportExpression[source.value=/\\x2Fcore\\x2F/]:not([source.value=/\\x2Fcore\\x2Findex\\.js$/])",
      "Adapters import the core only through its barrel: ../core/index.js.",
    ),
    only(["src/core/kernel/**/*.ts"], "^\\.\\./", parent, "The kernel imports only the kernel."),
    only(
      ["src/core/phases/**/*.ts"],
      "^\\.\\./(?!kernel/)",
      outsideKernel,
      "The phases model imports only itself and ../kernel/ (never the board nor the core's root).",
    ),
    only(
      ["src/core/board/**/*.ts"],
      "^\\.\\./(?!kernel/)",
      outsideKernel,
      "The board model imports only itself and ../kernel/ (never the phases model nor the core's root).",
    ),
  ];
}
