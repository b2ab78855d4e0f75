#!/usr/bin/env node
// Bundles the GitHub Action into ONE file, action/dist/index.js (committed: the Action runs it
// without installing anything). `.ci/run` rebuilds it and fails if the committed file differs.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

await build({
  entryPoints: [join(ROOT, "src/action/index.ts")],
  outfile: join(ROOT, "action/dist/index.js"),
  bundle: true,
  platform: "node",
  // Runs on GitHub's node24 runners; the tests run it on the Node.js the project needs (20).
  target: "node20",
  format: "esm",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  // Some dependencies are CommonJS and call require(); ESM gives them one.
  banner: {
    js: "import { createRequire as __taskgateRequire } from 'node:module'; const require = __taskgateRequire(import.meta.url);",
  },
});
