#!/usr/bin/env node
// Bundles the GitHub Action into ONE file, action/dist/index.js (committed: the Action runs it
// without installing anything). `.ci/run` rebuilds it and fails if the committed file differs.
//
// The file holds two parts. The entry (src/action/index.ts: read the inputs, send GitHub the first
// question) is plain code. The rest (src/action/main.ts: Octokit and all of taskgate's rules, nine
// tenths of the file) is kept as a string and compiled when the entry imports it, once the first
// request is on the wire: parsing it costs Node.js tens of milliseconds that are better spent while
// GitHub answers. It is compiled the way Node.js compiles a CommonJS module (a function of
// exports, require, module, __filename and __dirname), with the same trust as the file it sits in.
//
// The entry exports `run()` (actions/typescript-action's convention: GitHub's local-action imports the
// file and calls it) and runs the Action by itself only when Node.js executes the file, as the runner
// does: importing it runs nothing.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { coreBarrel } from "./core-barrel.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const common = {
  bundle: true,
  platform: "node",
  // Runs on GitHub's node24 runners (the tests run it on Node.js 24 too: test/helpers/action.ts); the
  // target stays at the oldest Node.js the project supports.
  target: "node20",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

const rest = await build({
  ...common,
  entryPoints: [join(ROOT, "src/action/main.ts")],
  format: "cjs",
  write: false,
  plugins: [coreBarrel(ROOT)],
});
const source = rest.outputFiles[0].text;

/** Resolves the entry's `import("./main.js")` to the compiled-on-demand rest of the Action. */
const deferred = {
  name: "taskgate-deferred-main",
  setup(build) {
    build.onResolve({ filter: /^\.\/main\.js$/ }, (args) =>
      args.importer.endsWith(join("src", "action", "index.ts"))
        ? { path: "main", namespace: "taskgate-deferred" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "taskgate-deferred" }, () => ({
      loader: "js",
      contents: `
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runInThisContext } from "node:vm";
const source = ${JSON.stringify(source)};
const filename = fileURLToPath(import.meta.url);
const module = { exports: {} };
runInThisContext("(function (exports, require, module, __filename, __dirname) {" + source + "\\n})", {
  filename: filename + "#main",
})(module.exports, createRequire(import.meta.url), module, filename, dirname(filename));
export const main = module.exports.main;
`,
    }));
  },
};

/**
 * The entry's Node.js builtins, taken with `process.getBuiltinModule` rather than imported. An ES module
 * import of a builtin builds the builtin's module facade, which reads every one of its exports; on
 * Node.js 24 that runs lazy getters that load what the entry never uses (all of undici behind
 * `node:http`'s WebSocket exports, the fs streams behind `node:fs`'s ReadStream), tens of
 * milliseconds before the first request.
 */
const builtins = {
  name: "taskgate-builtins",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "taskgate-builtin" }));
    build.onLoad({ filter: /.*/, namespace: "taskgate-builtin" }, (args) => ({
      loader: "js",
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
    }));
  },
};

await build({
  ...common,
  entryPoints: [join(ROOT, "src/action/index.ts")],
  outfile: join(ROOT, "action/dist/index.js"),
  format: "esm",
  // Imported only when a host (GitHub's local-action) calls the exported run(): its @actions/core.
  external: ["@actions/core"],
  // The entry imports the core's barrel for one constant: the barrel plugin keeps it to that module.
  plugins: [deferred, builtins, coreBarrel(ROOT)],
});
