import type { Plugin } from "esbuild";

/** The esbuild plugin that rewrites adapters' imports of src/core/index.ts to the modules defining the names. */
export function coreBarrel(root: string): Plugin;
