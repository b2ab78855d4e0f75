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
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const common = {
  bundle: true,
  platform: "node",
  // Runs on GitHub's node24 runners; the tests run it on the Node.js the project needs (20).
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

await build({
  ...common,
  entryPoints: [join(ROOT, "src/action/index.ts")],
  outfile: join(ROOT, "action/dist/index.js"),
  format: "esm",
  plugins: [deferred],
});
