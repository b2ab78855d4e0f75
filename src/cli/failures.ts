/** The repository's typed errors, which a failed command reports with their hint (`main.ts` imports it with `import()`). */
export { RefNotFoundError, RepositoryError } from "../core/index.js";
