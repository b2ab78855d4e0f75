#!/usr/bin/env node
// Bundles the command line for a fast start: `npm run build` runs it after tsc. The entry replaces
// tsc's dist/cli/main.js (what bin/taskgate.js imports) and the rest goes to dist/bundle/, one file
// per part a command loads with `import()`, so each command still loads only what it needs.
//
// Why: Node.js 20 resolves, reads and compiles every ES module on its own. zod alone is about 70 of
// them and yaml and the core another hundred; as a few files they load in about 0.2 s less CPU for a
// `check`. `--version` and `--help` are not affected (they load the entry only).
//
// The bundle is not committed: dist/ never is. A later tsc-only build (`tsc -p tsconfig.build.json`)
// writes its own dist/cli/main.js over the entry, so bin/taskgate.js then runs tsc's output and never
// a bundle older than dist/. dist/bundle/meta.json maps each output file to the sources in it
// (test/cli/lazy-load.test.ts reads it to name what a command loaded).
//
// hook.ts finds bin/taskgate.js at `../../bin/taskgate.js` from its own file: every output file
// stays two folders below the repository's root.
import { build } from "esbuild";
import { rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { coreBarrel } from "./core-barrel.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const BUILTINS = new Set(builtinModules);

/** The first line of every output file: tells a reader (and test/cli/lazy-load.test.ts) the bundle from tsc's output. */
const BUNDLE_BANNER =
  "// taskgate's bundled CLI (scripts/bundle-cli.mjs); dist/bundle/meta.json lists the sources of each file.";

/**
 * Node.js builtins, taken with `process.getBuiltinModule`: the CommonJS libraries in the bundle
 * (yaml, picomatch) `require()` them, which an ES module cannot do; and an ES module import of a
 * builtin builds its module facade, which on Node.js 24 runs lazy getters that load what taskgate
 * never uses (the same plugin as the Action's bundle, scripts/bundle.mjs).
 */
const builtins = {
  name: "taskgate-builtins",
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, "");
      if (!args.path.startsWith("node:") && !BUILTINS.has(name)) return undefined;
      return { path: `node:${name}`, namespace: "taskgate-builtin" };
    });
    build.onLoad({ filter: /.*/, namespace: "taskgate-builtin" }, (args) => ({
      loader: "js",
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
    }));
  },
};

rmSync(join(DIST, "bundle"), { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { "cli/main": "src/cli/main.ts" },
  outdir: DIST,
  chunkNames: "bundle/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Minifying saves no measurable CPU: V8 compiles functions when they first run.
  minify: false,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
  banner: { js: BUNDLE_BANNER },
  metafile: true,
  plugins: [builtins, coreBarrel(ROOT)],
});
writeFileSync(join(DIST, "bundle", "meta.json"), `${JSON.stringify(result.metafile, null, 1)}\n`);
