// An esbuild plugin shared by the CLI's bundle (scripts/bundle-cli.mjs) and the tests that bundle an
// adapter module on its own (test/git/transaction.test.ts).
import { readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * Adapters (and the pages) import the core through its barrel, src/core/index.ts, alone. esbuild splits chunks by
 * which entry reaches a file, so every command that imports the barrel would reach every module it
 * re-exports (both presets, the authoring commands) even when it uses one function. This plugin
 * reads the barrel's `export { ... } from "./x.js"` lines and rewrites each adapter's imports from
 * the barrel into imports from the modules that define the names: a command then loads what it
 * uses, and the presets still load when a config names them (src/core/presets.ts). Type-only
 * imports are dropped (esbuild strips them anyway); a value the barrel does not export fails the build.
 */
const ADAPTER = /[\\/]src[\\/](cli|git|github|app|action|pages)[\\/][^\\/]+\.ts$/;
const BARREL_IMPORT = /^(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*"(\.\.\/core\/index\.js)";?/gm;

/** Name exported by the barrel → the module (relative to src/core) and the name it has there. */
function barrelExports(core) {
  const names = new Map();
  const text = readFileSync(join(core, "index.ts"), "utf8");
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

/** The plugin for a repository at `root`. */
export function coreBarrel(root) {
  const core = join(root, "src", "core");
  return {
    name: "taskgate-barrel",
    setup(build) {
      const names = barrelExports(core);
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
            const specifier = relative(dirname(args.path), join(core, found.module)).split(sep).join("/");
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
}
