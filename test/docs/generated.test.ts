import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedFiles } from "../../src/core/generated.js";

describe("generated docs", () => {
  it.each(Object.entries(generatedFiles()))(
    "%s is up to date with the zod schema (run `npm run schema`)",
    (path, content) => {
      const committed = readFileSync(join(import.meta.dirname, "../..", path), "utf8");
      expect(committed).toBe(content);
    },
  );

  it("describes the contract keys of the config", () => {
    const schema = JSON.parse(generatedFiles()["docs/taskgate.schema.json"]!) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(["preset", "roles", "approvals", "render", "maintainers", "workflow"]),
    );
    expect(schema.required).toEqual(["preset"]);
  });
});

describe("examples", () => {
  it("ships the board sample's rendered status files up to date (rerender: taskgate render in a checkout of it)", async () => {
    const { WorkTree } = await import("../../src/git/worktree.js");
    const { renderStatus } = await import("../../src/core/service.js");
    const result = await renderStatus(new WorkTree(join(import.meta.dirname, "../../examples/board")), "work tree");
    expect(result).toBeDefined();
    expect({ stale: result!.stale, extra: result!.extra }).toEqual({ stale: [], extra: [] });
    expect(result!.files.size).toBe(7);
  });
});
