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
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

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

/**
 * Adapters import the core through its barrel, src/core/index.ts, alone. esbuild splits chunks by
 * which entry reaches a file, so every command that imports the barrel would reach every module it
 * re-exports (both presets, the authoring commands) even when it uses one function. This plugin
 * reads the barrel's `export { ... } from "./x.js"` lines and rewrites each adapter's imports from
 * the barrel into imports from the modules that define the names: a command then loads what it
 * uses, and the presets still load when a config names them (src/core/presets.ts). Type-only
 * imports are dropped (esbuild strips them anyway); a value the barrel does not export fails the build.
 */
const CORE = join(ROOT, "src", "core");
const ADAPTER = /[\\/]src[\\/](cli|git|github|app|action)[\\/][^\\/]+\.ts$/;
const BARREL_IMPORT = /^(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*"(\.\.\/core\/index\.js)";?/gm;

/** Name exported by the barrel → the module (relative to src/core) and the name it has there. */
function barrelExports() {
  const names = new Map();
  const text = readFileSync(join(CORE, "index.ts"), "utf8");
  for (const [, typeOnly, list, module] of text.matchAll(/^export(\s+type)?\s*\{([^}]*)\}\s*from\s*"([^"]+)";/gm)) {
    for (const item of list
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)) {
      const isType = Boolean(typeOnly) || item.startsWith("type ");
      const [name, alias = name] = item.replace(/^type\s+/, "").split(/\s+as\s+/);
      if (!isType) names.set(alias, { module, name });
    }
  }
  return names;
}

const barrel = {
  name: "taskgate-barrel",
  setup(build) {
    const names = barrelExports();
    build.onLoad({ filter: ADAPTER }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const errors = [];
      const contents = text.replace(BARREL_IMPORT, (_, keyword, typeOnly, list) => {
        if (typeOnly) return "";
        const byModule = new Map();
        for (const item of list
          .split(",")
          .map((part) => part.trim())
          .filter(Boolean)) {
          if (item.startsWith("type ")) continue;
          const [name, local = name] = item.split(/\s+as\s+/);
          const found = names.get(name);
          if (!found) {
            errors.push({ text: `src/core/index.ts exports no value "${name}"` });
            continue;
          }
          const specifier = relative(dirname(args.path), join(CORE, found.module)).split(sep).join("/");
          if (!byModule.has(specifier)) byModule.set(specifier, []);
          byModule.get(specifier).push(found.name === local ? local : `${found.name} as ${local}`);
        }
        return [...byModule]
          .map(([specifier, items]) => `${keyword} { ${items.join(", ")} } from "${specifier}";`)
          .join(" ");
      });
      return { contents, loader: "ts", errors };
    });
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
  plugins: [builtins, barrel],
});
writeFileSync(join(DIST, "bundle", "meta.json"), `${JSON.stringify(result.metafile, null, 1)}\n`);
