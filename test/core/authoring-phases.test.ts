/**
 * The phases authoring builders called directly on in-memory work trees: the files each command
 * would write, the judgement of writing them, and the refusals with their codes and hints.
 */
import { describe, expect, it } from "vitest";
import { AuthoringRefusal } from "../../src/core/kernel/change.js";
import { canEdit, moveTask, newTask, taskScope, upgradeTasks } from "../../src/core/phases/authoring.js";
import { SPEC, codes, phases, snapshot, task, type FileSpec } from "../helpers/phases.js";

const ctx = (files: Record<string, FileSpec>, actor = "carol") => ({
  config: phases,
  snapshot: snapshot(files),
  actor,
});

/** The violations a builder refuses with before judging anything. */
function refusal(build: () => unknown) {
  try {
    build();
  } catch (error) {
    if (error instanceof AuthoringRefusal) return error.violations;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("authoring phases: new", () => {
  it("writes the initial state and an empty approvals log, and the rules accept it", () => {
    const authored = newTask(ctx({}), "t1");
    expect(authored.changes).toEqual([
      { path: "tasks/t1/.state", content: "new\n" },
      { path: "tasks/t1/.state.approvals", content: "" },
    ]);
    expect(authored.facts).toEqual({ task: "t1", state: "new", folder: "tasks/t1" });
    expect(authored.report.violations).toEqual([]);
  });

  it("refuses a reused id, with the hint that ids are never reused", () => {
    expect(refusal(() => newTask(ctx(task("t1", "design", SPEC)), "t1"))).toEqual([
      expect.objectContaining({
        code: "id-reused",
        message: "task t1 already exists (at design)",
        hint: "Give the new task a fresh id; ids are never reused.",
      }),
    ]);
  });

  it("refuses an untracked folder of the same id, pointing at upgrade", () => {
    expect(refusal(() => newTask(ctx({ "tasks/t1/SPEC.md": "spec\n" }), "t1"))).toEqual([
      expect.objectContaining({ code: "id-reused", hint: "Run `taskgate upgrade t1` to track the existing folder." }),
    ]);
  });

  it("refuses an invalid id", () => {
    expect(refusal(() => newTask(ctx({}), "../x")).map((item) => item.code)).toEqual(["task-invalid-id"]);
  });
});

describe("authoring phases: move", () => {
  it("writes the new state of a legal move", () => {
    const authored = moveTask(ctx(task("t1", "research", SPEC)), "t1", "research:awaiting_approval");
    expect(authored.changes).toEqual([{ path: "tasks/t1/.state", content: "research:awaiting_approval\n" }]);
    expect(authored.facts).toEqual({ task: "t1", from: "research", to: "research:awaiting_approval" });
    expect(authored.report.violations).toEqual([]);
    expect(authored.report.pending.map((item) => item.code)).toEqual(["approval-required"]);
  });

  it("judges a move past a bot gate as the check does, with the hint of where approvals come from", () => {
    const authored = moveTask(ctx(task("t1", "research:awaiting_approval", SPEC)), "t1", "research:approved");
    expect(codes(authored.report)).toEqual(["illegal-transition"]);
    expect(authored.report.violations[0]!.hint).toBe(
      "Approval comes from a PR review: move t1 to research:awaiting_approval and open a pull request; an eligible reviewer approves it and taskgate records research:approved.",
    );
  });

  it("refuses an unknown state with the closest one, and a move to the state it is at", () => {
    expect(refusal(() => moveTask(ctx(task("t1", "research", SPEC)), "t1", "desgin"))).toEqual([
      expect.objectContaining({ code: "state-invalid", hint: "Did you mean design?" }),
    ]);
    expect(refusal(() => moveTask(ctx(task("t1", "research", SPEC)), "t1", "research"))).toEqual([
      expect.objectContaining({ code: "illegal-transition", message: "t1 is already at research" }),
    ]);
  });

  it("refuses a missing task with the closest id, and an untracked one pointing at upgrade", () => {
    expect(refusal(() => moveTask(ctx(task("t1", "research", SPEC)), "t2", "design"))).toEqual([
      expect.objectContaining({ code: "task-missing", hint: "Did you mean t1?" }),
    ]);
    expect(refusal(() => moveTask(ctx({ "tasks/t1/SPEC.md": "spec\n" }), "t1", "design"))).toEqual([
      expect.objectContaining({
        code: "task-untracked",
        hint: "Run `taskgate upgrade t1` to give it one from its artifacts.",
      }),
    ]);
  });
});

describe("authoring phases: upgrade", () => {
  it("places untracked folders by their artifacts; one past a gate is adopted", () => {
    const files = { "tasks/a/SPEC.md": "spec\n", "tasks/b/SPEC.md": "spec\n", "tasks/b/DESIGN.md": "design\n" };
    const authored = upgradeTasks(ctx(files));
    expect(authored.changes.map((change) => change.path)).toEqual(["tasks/a/.state", "tasks/b/.state"]);
    const placed = authored.facts["tasks"] as { task: string; adopted: boolean }[];
    expect(placed.map((item) => [item.task, item.adopted])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("refuses a tracked task and a missing folder, writing nothing", () => {
    const problems = refusal(() => upgradeTasks(ctx(task("t1", "research", SPEC)), ["t1", "t9"]));
    expect(problems.map((item) => [item.task, item.code])).toEqual([
      ["t1", "id-reused"],
      ["t9", "task-missing"],
    ]);
  });
});

describe("authoring phases: can-edit and scope", () => {
  const files = { ...task("t1", "research", SPEC), ...task("t2", "implement", SPEC) };

  it("answers for a task's files, its approvals log and another task's files", () => {
    expect(canEdit(ctx(files), "tasks/t1/NOTES.md", "t1")).toMatchObject({ allowed: true, kind: "task" });
    expect(canEdit(ctx(files), "tasks/t1/.state.approvals", "t1")).toMatchObject({
      allowed: false,
      code: "approval-forged",
    });
    expect(canEdit(ctx(files), "tasks/t2/NOTES.md", "t1")).toMatchObject({ allowed: false, code: "out-of-scope" });
  });

  it("answers for project files by the task's state, or by any task without one", () => {
    expect(canEdit(ctx(files), "src/app.ts", "t1")).toMatchObject({ allowed: false, code: "out-of-scope" });
    expect(canEdit(ctx(files), "src/app.ts", "t2")).toMatchObject({ allowed: true, kind: "project" });
    expect(canEdit(ctx(files), "src/app.ts")).toMatchObject({
      allowed: true,
      reason: "a pull request on t2 may edit project files",
    });
  });

  it("refuses framework files and paths that are not plain", () => {
    expect(canEdit(ctx(files), ".github/taskgate.yml")).toMatchObject({ allowed: false, kind: "framework" });
    expect(canEdit(ctx(files), "../etc/passwd")).toMatchObject({ allowed: false, code: "path-escape" });
  });

  it("lists what a task may edit now and never", () => {
    const scope = taskScope(ctx(files), "t1");
    expect(scope).toMatchObject({ task: "t1", state: "research", projectFiles: false, editable: ["tasks/t1/**"] });
    expect(scope.outOfScope).toContain("tasks/t1/.state.approvals (taskgate records approvals)");
    expect(taskScope(ctx(files), "t2").projectFiles).toBe(true);
  });
});
