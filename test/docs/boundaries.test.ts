/**
 * The import boundaries eslint.config.js enforces, proven on snippets linted with the real config:
 * adapters reach the core only through `core/index.js`; the kernel imports only itself; each model
 * imports only itself and the kernel; the core's root imports anything below it.
 */
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BOUNDARY_RULES = new Set(["no-restricted-imports", "no-restricted-syntax"]);

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The boundary errors of `source` as if it were the file at `path`, with their rules. */
async function boundaryErrors(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${ROOT}${path}` });
  return result!.messages
    .filter((message) => message.ruleId !== null && BOUNDARY_RULES.has(message.ruleId))
    .map((message) => `${message.ruleId}: ${message.message}`);
}

const staticImport = (from: string) => `import { x } from "${from}";\nexport const y = x;\n`;
const dynamicImport = (from: string) => `export const load = () => import("${from}");\n`;
const reExport = (from: string) => `export { x } from "${from}";\n`;

/** Every way to import `from`, each expected to be refused (or each expected to pass). */
async function expectImports(path: string, from: string, refused: boolean): Promise<void> {
  for (const source of [staticImport(from), dynamicImport(from), reExport(from)]) {
    const errors = await boundaryErrors(path, source);
    if (refused) expect(errors, `${path}: ${source}`).toHaveLength(1);
    else expect(errors, `${path}: ${source}`).toEqual([]);
  }
}

describe("import boundaries (eslint.config.js)", () => {
  it("adapters import the core only through its barrel", async () => {
    for (const path of [
      "src/cli/x.ts",
      "src/git/x.ts",
      "src/github/x.ts",
      "src/app/x.ts",
      "src/action/x.ts",
      "src/pages/x.ts",
    ]) {
      await expectImports(path, "../core/index.js", false);
      for (const from of ["../core/kernel/config.js", "../core/service.js", "../core/phases/model.js"]) {
        await expectImports(path, from, true);
      }
      await expectImports(path, "./io.js", false);
    }
    const [message] = await boundaryErrors("src/cli/x.ts", staticImport("../core/kernel/secrets.js"));
    expect(message).toContain("only through its barrel");
  });

  it("the kernel imports only the kernel", async () => {
    await expectImports("src/core/kernel/x.ts", "./config.js", false);
    for (const from of ["../phases/reader.js", "../board/reader.js", "../service.js", "../index.js"]) {
      await expectImports("src/core/kernel/x.ts", from, true);
    }
  });

  it("the phases model imports only itself and the kernel", async () => {
    for (const from of ["./reader.js", "../kernel/config.js"]) await expectImports("src/core/phases/x.ts", from, false);
    for (const from of ["../board/reader.js", "../evaluate.js", "../judge.js", "../presets.js"]) {
      await expectImports("src/core/phases/x.ts", from, true);
    }
  });

  it("the board model imports only itself and the kernel", async () => {
    for (const from of ["./reader.js", "../kernel/config.js"]) await expectImports("src/core/board/x.ts", from, false);
    for (const from of ["../phases/reader.js", "../evaluate.js", "../service.js", "../index.js"]) {
      await expectImports("src/core/board/x.ts", from, true);
    }
  });

  it("the core's root imports anything below it", async () => {
    for (const from of ["./kernel/config.js", "./phases/model.js", "./board/model.js", "./judge.js"]) {
      await expectImports("src/core/x.ts", from, false);
    }
  });
});
