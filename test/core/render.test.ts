import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createModel, audit } from "../../src/core/evaluate.js";
import type { WorkflowModel } from "../../src/core/kernel/model.js";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import { config, snapshot, task, type FileSpec } from "../helpers/memory.js";
import { fileStartsWith } from "../../src/core/kernel/files.js";
import { compareIds, stamp } from "../../src/core/kernel/markdown.js";
import { staleViolations, type RenderPlan } from "../../src/core/kernel/stale.js";
import type { Snapshot } from "../../src/core/kernel/types.js";

function model(yaml: string): WorkflowModel {
  const created = createModel(config(yaml));
  if (!created.ok) throw new Error("config");
  return created.model;
}

const boardModel = model("preset: board\n");
const defs = [
  def("a", { stage: "S1" }),
  def("b", { stage: "S2", role: "front", depends_on: ["a"] }),
  def("r", { stage: "S2" }),
];
const blocked = entry("blocked", {
  blocked_by: ["r"],
  history: [step("claim", "todo", "in_progress", "x/1"), step("escalate", "in_progress", "blocked", "x/1")],
});
const files = board(defs, { a: claimed("carol/a1"), b: blocked }, 3);

function withRendered(source: Record<string, FileSpec>, m = boardModel): Record<string, FileSpec> {
  return { ...source, ...Object.fromEntries(m.render(snapshot(source))) };
}

describe("render: board", () => {
  it("writes the matrix, stages and a card per task, stamped with the revision", () => {
    const out = boardModel.render(snapshot(files));
    expect([...out.keys()]).toEqual([
      "docs/status/matrix.md",
      "docs/status/stages.md",
      "docs/status/cards/a.md",
      "docs/status/cards/b.md",
      "docs/status/cards/r.md",
    ]);
    for (const content of out.values()) expect(content.split("\n")[0]).toContain("state/tasks.json revision 3");
    const matrix = out.get("docs/status/matrix.md")!;
    expect(matrix).toContain("### S2");
    expect(matrix).toContain("| [b](cards/b.md) | Task b | front | blocked |  |");
    expect(matrix).toContain("| front | 0 | 0 | 0 | 0 | 1 | 1 |");
    const stages = out.get("docs/status/stages.md")!;
    expect(stages).toContain("stateDiagram-v2");
    expect(stages).toContain("t2 -. resolves .-> t1");
    expect(stages).toContain("class t1 blocked");
    const card = out.get("docs/status/cards/b.md")!;
    expect(card).toContain("| depends on | [a](a.md) (in_progress) |");
    expect(card).toContain("| blocked by | [r](r.md) (todo) |");
    expect(card).toContain("| 2026-11-01T13:00:00Z | x/1 | escalate | in_progress | blocked |  |");
    expect(card).toContain("[state/handoffs/b.md](../../../state/handoffs/b.md)");
  });

  it("gives byte-identical files for the same state, however the JSON is formatted", () => {
    const compact = { ...files, "state/tasks.json": JSON.stringify(JSON.parse(files["state/tasks.json"] as string)) };
    expect(boardModel.render(snapshot(compact))).toEqual(boardModel.render(snapshot(files)));
  });

  it("escapes table cells and Mermaid labels", () => {
    const tricky = board([def("a", { title: 'pipes | and <b>html</b> "quotes"' })], {}, 0);
    const out = boardModel.render(snapshot(tricky));
    expect(out.get("docs/status/matrix.md")).toContain("pipes \\| and &lt;b&gt;html&lt;/b&gt;");
  });

  it("audit reports matrix-stale once a repository renders and its files fall behind", () => {
    const cfg = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n  front: [erin]\n");
    expect(audit(cfg, snapshot(files)).violations).toEqual([]);
    const rendered = withRendered(files);
    expect(audit(cfg, snapshot(rendered)).violations).toEqual([]);
    const moved = {
      ...rendered,
      "state/tasks.json": board(defs, { a: claimed("carol/a1"), b: blocked, r: claimed("dave") }, 4)[
        "state/tasks.json"
      ]!,
    };
    const stale = audit(cfg, snapshot(moved)).violations;
    expect(stale.map((item) => item.code)).toEqual([
      "matrix-stale",
      "matrix-stale",
      "matrix-stale",
      "matrix-stale",
      "matrix-stale",
    ]);
    const orphan = audit(cfg, snapshot({ ...rendered, "docs/status/cards/zz.md": "old" })).violations;
    expect(orphan).toEqual([expect.objectContaining({ code: "matrix-stale", path: "docs/status/cards/zz.md" })]);
  });
});

describe("render: phases", () => {
  const phases = model("preset: phases\n");
  const tasks = {
    ...task("login", "implement", { "SPEC.md": "s" }),
    "tasks/login/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
    ...task("cache", "research"),
  };

  it("renders tasks × phase, the pipeline as a state diagram and a card per task", () => {
    const out = phases.render(snapshot(tasks));
    const matrix = out.get("docs/status/matrix.md")!;
    expect(matrix).toContain("| task | state | research | decomposition | design | test_design | implement |");
    expect(matrix).toMatch(/\| \[login\]\(cards\/login\.md\) \| implement \| ✓ \| {2}\| {2}\| {2}\| ● \|/);
    expect(matrix).toMatch(/\| \[cache\]\(cards\/cache\.md\) \| research \| ● \|/);
    const stages = out.get("docs/status/stages.md")!;
    expect(stages).toContain("stateDiagram-v2");
    expect(stages).toContain("research_awaiting_approval --> research_approved: approval");
    expect(stages).toContain("referee --> complete: verdict pass");
    expect(out.get("docs/status/cards/login.md")).toContain("[SPEC.md](../../../tasks/login/SPEC.md) (research)");
    expect(phases.render(snapshot(tasks))).toEqual(out);
  });

  it("changes the stamp when a task moves", () => {
    const before = phases.render(snapshot(tasks)).get("docs/status/matrix.md")!.split("\n")[0];
    const after = phases
      .render(snapshot({ ...tasks, "tasks/cache/.state": "research:awaiting_approval\n" }))
      .get("docs/status/matrix.md")!
      .split("\n")[0];
    expect(after).not.toEqual(before);
  });
});

describe("staleness judged from the stamps", () => {
  /** The rule as it read before: every expected path built and looked up, in the plan's order. */
  function byPaths(plan: RenderPlan, ids: readonly string[], snap: Snapshot, root: string) {
    if (!snap.files.has(`${root}/matrix.md`)) return [];
    const paths = [...plan.files, ...[...ids].sort(compareIds).map((id) => `${root}/cards/${id}.md`)];
    const expected = new Set(paths);
    const problems: { path: string; message: string }[] = [];
    for (const path of paths) {
      const found = snap.files.get(path);
      if (!found) problems.push({ path, message: `${path} is missing` });
      else if (!fileStartsWith(found, `${plan.stamp}\n`))
        problems.push({ path, message: `${path} was rendered from another state than the current one` });
    }
    const orphans = [...snap.files.keys()].filter((path) => path.startsWith(`${root}/cards/`) && !expected.has(path));
    for (const path of orphans.sort()) problems.push({ path, message: `${path} belongs to no task any more` });
    return problems;
  }

  it("finds the same problems, in the same order, as looking every expected file up", () => {
    const ids = ["T1", "T2", "T10", "T11", "T3", "a", "b-2", "T100"];
    const state = fc.constantFrom("current", "stale", "missing");
    fc.assert(
      fc.property(
        fc.record({
          matrix: fc.constantFrom("current", "stale"),
          stages: state,
          cards: fc.array(state, { minLength: ids.length, maxLength: ids.length }),
          extra: fc.subarray(["T4", "zz", "T1.txt", "sub/T1", "T10x", ".md"]),
        }),
        ({ matrix, stages, cards, extra }) => {
          const root = "docs/status";
          const stampLine = stamp("state/tasks.json revision 7");
          const text = (kind: string) => (kind === "current" ? `${stampLine}\n\n# card\n` : "<!-- old -->\n# card\n");
          const spec: Record<string, string> = { [`${root}/matrix.md`]: text(matrix) };
          if (stages !== "missing") spec[`${root}/stages.md`] = text(stages);
          ids.forEach((id, i) => {
            if (cards[i] !== "missing") spec[`${root}/cards/${id}.md`] = text(cards[i]!);
          });
          for (const name of extra) spec[`${root}/cards/${name.includes(".") ? name : `${name}.md`}`] = text("current");
          const snap = snapshot(spec);
          const plan: RenderPlan = {
            stamp: stampLine,
            files: [`${root}/matrix.md`, `${root}/stages.md`],
            cards: new Set(ids),
          };
          const expected = byPaths(plan, ids, snap, root);
          const shown = expected.slice(0, 10).map(({ path, message }) => ({ path, message }));
          const found = staleViolations(() => plan, snap, root);
          expect(found.slice(0, 10).map(({ path, message }) => ({ path, message }))).toEqual(shown);
          expect(found.length).toBe(expected.length > 10 ? 11 : expected.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
