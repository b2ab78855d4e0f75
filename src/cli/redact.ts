/**
 * The secret redactor, which every command's output passes: the one part of the core a usage error
 * loads. `main.ts` imports it with `import()`; the core's barrel is tree-shaken to the redactor
 * (scripts/bundle-cli.mjs).
 */
export { redactDeep, redactSecrets } from "../core/index.js";
