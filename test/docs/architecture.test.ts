/**
 * docs/architecture.md draws the code as it is: every file it names exists, and every folder of the
 * source and every file of the core's rooms and kernel is on the page, so a move, a new folder or a
 * new file of the core without its line in the page fails here.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const PAGE = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
/** Everything the page writes as code: `…`. */
const CODE = [...PAGE.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

const SOURCES = filesBelow(join(ROOT, "src")).map((path) => path.slice(ROOT.length + 1));

describe("docs/architecture.md", () => {
  it("names only files that exist", () => {
    const named = CODE.filter((code) => /^[\w./-]+\.(ts|mjs)$/.test(code));
    expect(named.length).toBeGreaterThan(40);
    const missing = named.filter((name) =>
      name.includes("/")
        ? ![join("src", name), name].some((path) => existsSync(join(ROOT, path)))
        : !SOURCES.some((source) => basename(source) === name),
    );
    expect(missing).toEqual([]);
  });

  it("names every folder of the source and every file of the core's rooms and kernel", () => {
    const folders = readdirSync(join(ROOT, "src")).filter((name) => statSync(join(ROOT, "src", name)).isDirectory());
    for (const folder of folders) expect(PAGE, `src/${folder}/`).toContain(`${folder}/`);
    const core = ["phases", "board", "kernel"].flatMap((room) =>
      readdirSync(join(ROOT, "src/core", room)).map((name) => ({ room, name })),
    );
    const unnamed = core.filter(({ name }) => !CODE.some((code) => code === name || code.endsWith(`/${name}`)));
    expect(unnamed).toEqual([]);
  });
});
