/**
 * The board authoring builders called directly on in-memory work trees: the ledger entries and
 * files each command would write, the judgement of writing them, the refusals with their codes and
 * hints, and the read-only next, list and packet.
 */
import { describe, expect, it } from "vitest";
import {
  claimTask,
  escalateTask,
  listTasks,
  nextTask,
  reassignTask,
  releaseExternal,
  submitTask,
  taskPacket,
} from "../../src/core/board/authoring.js";
import { AuthoringRefusal, type Authored } from "../../src/core/kernel/change.js";
import { board, claimed, def, entry } from "../helpers/board.js";
import { config, snapshot, type FileSpec } from "../helpers/memory.js";

const cfg = config(
  "preset: board\nmaintainers: [alice]\nroles:\n  qa: [quinn]\n  coordinator: [cora]\n  backend: [carol, dave]\n",
);
const NOW = "2026-11-03T09:00:00Z";
const defs = [def("a", { outcome: "the parser reads dates" }), def("b", { depends_on: ["a"] })];
const ctx = (files: Record<string, FileSpec>, actor = "carol") => ({
  config: cfg,
  snapshot: snapshot(files),
  actor,
  now: NOW,
});

function refusal(build: () => unknown) {
  try {
    build();
  } catch (error) {
    if (error instanceof AuthoringRefusal) return error.violations;
    throw error;
  }
  throw new Error("expected a refusal");
}

/** The ledger entry of `id` as the command would write it. */
function ledgerEntry(authored: Authored, id: string) {
  const ledger = authored.changes.find((change) => change.path === "state/tasks.json")!;
  return (JSON.parse(ledger.content!) as { tasks: Record<string, unknown> }).tasks[id];
}

describe("authoring board: claim", () => {
  it("writes the claim into the ledger, owned by the actor's agent, and the rules accept it", () => {
    const authored = claimTask(ctx(board(defs, {}, 1)), "a", "x1");
    expect(authored.facts).toEqual({ task: "a", owner: "carol/x1", status: "in_progress" });
    expect(ledgerEntry(authored, "a")).toMatchObject({
      status: "in_progress",
      owner: "carol/x1",
      history: [{ at: NOW, by: "carol/x1", action: "claim", from: "todo", to: "in_progress" }],
    });
    expect(authored.report.violations).toEqual([]);
  });

  it("judges a claim before the dependencies are done as the check does", () => {
    expect(claimTask(ctx(board(defs, {}, 1)), "b").report.violations.map((item) => item.code)).toEqual([
      "dependency-unmet",
    ]);
  });

  it("refuses an unknown task with the closest id, and an agent id that makes no owner", () => {
    expect(refusal(() => claimTask(ctx(board(defs, {}, 1)), "aa"))).toEqual([
      expect.objectContaining({ code: "dependency-unknown", hint: "Did you mean a?" }),
    ]);
    expect(refusal(() => claimTask(ctx(board(defs, {}, 1)), "a", "not an agent")).map((item) => item.code)).toEqual([
      "owner-mismatch",
    ]);
  });

  it("refuses a board it cannot read with the reading problems", () => {
    const files = { ...board(defs, {}, 1), "state/tasks.json": "{ not json" };
    expect(refusal(() => claimTask(ctx(files), "a")).map((item) => item.code)).toEqual(["state-invalid"]);
  });
});

describe("authoring board: submit", () => {
  const start = board(defs, { a: claimed("carol") }, 1);
  const files = {
    evidence: { name: "tests.md", content: "all tests pass\n" },
    handoff: { name: "handoff.md", content: "done\n" },
  };

  it("copies the evidence and the handoff to their places and names them in the history", () => {
    const authored = submitTask(ctx(start), "a", files);
    expect(authored.changes.map((change) => change.path)).toEqual([
      "state/evidence/tests.md",
      "state/handoffs/a.md",
      "state/tasks.json",
    ]);
    expect(authored.facts).toMatchObject({ status: "review", evidence: "state/evidence/tests.md" });
    expect(ledgerEntry(authored, "a")).toMatchObject({ status: "review", owner: "carol" });
    expect(authored.report.violations).toEqual([]);
  });

  it("never overwrites evidence, and refuses an evidence name that cannot be a file name", () => {
    const taken = { ...start, "state/evidence/tests.md": "other\n" };
    expect(refusal(() => submitTask(ctx(taken), "a", files))).toEqual([
      expect.objectContaining({ code: "evidence-missing", hint: "Give the evidence file a name of its own." }),
    ]);
    const badName = { ...files, evidence: { name: "..", content: "x\n" } };
    expect(refusal(() => submitTask(ctx(start), "a", badName)).map((item) => item.code)).toEqual(["path-escape"]);
  });
});

describe("authoring board: escalate", () => {
  const start = board(defs, { a: claimed("carol/x1") }, 1);
  const input = (definition: string, issue = '{"blocker":"the API is down"}') => ({
    issue: { name: "issue.json", content: issue },
    handoff: { name: "handoff.md", content: "blocked on the API\n" },
    resolver: "r",
    definition: { name: "r.json", content: definition },
  });
  const resolver = JSON.stringify({ title: "Fix the API", role: "backend", stage: "S1", reviewer_role: "qa" });

  it("blocks the task on a new resolver, adds its definition and retires the reporter", () => {
    const authored = escalateTask(ctx(start), "a", input(resolver), "x1");
    expect(authored.changes.map((change) => change.path)).toEqual([
      "planning/tasks.json",
      "state/issues/a-x1.json",
      "state/handoffs/a.md",
      "state/tasks.json",
    ]);
    expect(authored.facts).toMatchObject({ status: "blocked", resolution_task: "r", agent_must_exit: true });
    expect(ledgerEntry(authored, "a")).toMatchObject({ status: "blocked", blocked_by: ["r"] });
    expect(authored.report.violations).toEqual([]);
  });

  it("refuses a resolver that exists, a report that is not JSON and a definition that is not one", () => {
    const taken = JSON.stringify({ id: "b", title: "t", role: "backend", stage: "S1", reviewer_role: "qa" });
    expect(refusal(() => escalateTask(ctx(start), "a", { ...input(taken), resolver: "b" }, "x1"))).toEqual([
      expect.objectContaining({ code: "id-reused", message: "b is already a task; a resolver is a new task" }),
    ]);
    expect(refusal(() => escalateTask(ctx(start), "a", input(resolver, "not json"), "x1"))).toEqual([
      expect.objectContaining({
        code: "evidence-missing",
        hint: "Write the report as JSON; it is kept as state/issues/a-x1.json.",
      }),
    ]);
    expect(refusal(() => escalateTask(ctx(start), "a", input("[]"), "x1"))).toEqual([
      expect.objectContaining({ code: "state-invalid", message: "r.json: is not a JSON object" }),
    ]);
    expect(refusal(() => escalateTask(ctx(start), "a", input('{"id":"q"}'), "x1"))).toEqual([
      expect.objectContaining({
        code: "state-invalid",
        hint: "Use the same id in both, or leave `id` out of the file.",
      }),
    ]);
  });
});

describe("authoring board: reassign and release", () => {
  it("reassigns an in-progress task to another owner, keeping the previous one in the facts", () => {
    const authored = reassignTask(ctx(board(defs, { a: claimed("dave") }, 1), "alice"), "a", { owner: "carol" });
    expect(authored.facts).toEqual({ task: "a", owner: "carol", previous_owner: "dave", status: "in_progress" });
    expect(ledgerEntry(authored, "a")).toMatchObject({ owner: "carol", status: "in_progress" });
  });

  it("proposes releasing an external resolver: blocked to todo, by the actor", () => {
    const external = [def("e", { external: true })];
    const waiting = entry("blocked", { external_wait: true });
    const authored = releaseExternal(ctx(board(external, { e: waiting }, 1), "cora"), "e");
    expect(authored.facts).toEqual({ task: "e", status: "todo" });
    expect(ledgerEntry(authored, "e")).toMatchObject({
      history: [{ by: "cora", action: "release", from: "blocked", to: "todo" }],
    });
  });
});

describe("authoring board: next, list and packet", () => {
  const files = board(defs, { a: claimed("dave") }, 1);

  it("offers the first task of a role a claim is allowed on", () => {
    expect(nextTask(ctx(board(defs, {}, 1)), "backend")).toMatchObject({ id: "a", status: "todo" });
    expect(nextTask(ctx(files), "backend")).toBeUndefined();
  });

  it("lists tasks by status and text, and refuses a status that does not exist", () => {
    expect(listTasks(ctx(files), { status: "todo" }).map((row) => row.id)).toEqual(["b"]);
    expect(listTasks(ctx(files), { query: "PARSER" }).map((row) => row.id)).toEqual(["a"]);
    expect(refusal(() => listTasks(ctx(files), { status: "doing" }))).toEqual([
      expect.objectContaining({ code: "state-invalid", message: '"doing" is not a status' }),
    ]);
  });

  it("writes the packet of a task: its title, status and outcome", () => {
    const packet = taskPacket(ctx(files), "a");
    expect(packet.split("\n")[0]).toBe("# a: Task a");
    expect(packet).toContain("- Status: in_progress (owner dave)");
    expect(packet).toContain("the parser reads dates");
  });
});
