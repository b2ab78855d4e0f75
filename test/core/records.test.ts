/**
 * The one writer of recorded decisions, read back by the same formats' readers, and accepted by the
 * check when the bot commits what it wrote.
 */
import { describe, expect, it } from "vitest";
import { readBoard } from "../../src/core/board/reader.js";
import { evaluate, writeRecords } from "../../src/core/evaluate.js";
import { readTask } from "../../src/core/phases/reader.js";
import type { BotRecord, Report } from "../../src/core/kernel/types.js";
import { PHASES_PRESET } from "../../src/core/phases/preset.js";
import { buildWorkflow, mergeWorkflow, type Workflow } from "../../src/core/phases/workflow.js";
import { board, claimed, def, entry, escalated, inReview, step } from "../helpers/board.js";
import {
  AT,
  approve,
  botStep,
  config,
  prHistory,
  snapshot,
  task,
  type FileSpec,
  type PrSpec,
  type Step,
} from "../helpers/phases.js";

const SPEC = { "SPEC.md": "# Spec\n" };

/** Runs a PR, lets the bot commit what the writer makes of its records, and runs it again. */
function recordAndRecheck(
  conf: ReturnType<typeof config>,
  start: Record<string, FileSpec>,
  steps: Step[],
  spec: PrSpec,
): { first: Report; second: Report; written: Map<string, string> } {
  const { base, head, pr } = prHistory(start, steps, spec);
  const first = evaluate(conf, base, head, pr);
  const written = writeRecords(conf, head, first.records, { now: "2026-11-02T00:00:00Z" });
  const files: Record<string, FileSpec> = {};
  for (const [path, entry] of head.files) files[path] = entry.text!;
  for (const [path, content] of written) files[path] = content;
  const again = prHistory(start, [...steps, botStep("bot", {}, { files })], spec);
  return { first, second: evaluate(conf, again.base, again.head, again.pr), written };
}

describe("phases records", () => {
  const conf = config();
  const workflow = (): Workflow => {
    const built = buildWorkflow(mergeWorkflow(PHASES_PRESET, undefined));
    if (!built.ok) throw new Error("the preset is unsound");
    return built.workflow;
  };

  it("writes the approved state and one line per deciding review, read back as such", () => {
    const head = snapshot({ ...task("t1", "research:awaiting_approval", SPEC), "tasks/t1/.state.approvals": "" });
    const record: BotRecord = {
      task: "t1",
      from: "research:awaiting_approval",
      to: "research:approved",
      by: "bob,erin",
      kind: "approve",
      reviews: [
        { by: "bob", at: AT },
        { by: "erin", at: "2026-11-01T11:00:00Z" },
      ],
    };
    const written = writeRecords(conf, head, [record]);
    expect([...written.keys()].sort()).toEqual(["tasks/t1/.state", "tasks/t1/.state.approvals"]);
    const files = new Map([...written].map(([path, text]) => [path.slice("tasks/t1/".length), fileOf(path, text)]));
    const back = readTask(workflow(), "t1", files);
    expect(back.state).toBe("research:approved");
    expect(back.problems).toEqual([]);
    expect(back.approvals.map(({ phase, at, login }) => ({ phase, at, login }))).toEqual([
      { phase: "research", at: AT, login: "bob" },
      { phase: "research", at: "2026-11-01T11:00:00Z", login: "erin" },
    ]);
  });

  it("appends to a log without a final newline, and leaves the state of a proposed exit alone", () => {
    const done = { ...SPEC, "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };
    const head = snapshot({
      ...task("t1", "implement", { ...done, "VERDICT.md": "FAIL\n" }),
      "tasks/t1/.state.approvals": `research:approved|${AT}|bob`,
    });
    const written = writeRecords(conf, head, [
      { task: "t1", from: "human_intervention", to: "implement", by: "dave", kind: "approve", at: AT },
    ]);
    expect(written.get("tasks/t1/.state")).toBeUndefined();
    expect(written.get("tasks/t1/.state.approvals")).toBe(
      `research:approved|${AT}|bob\nhuman_intervention:approved|${AT}|dave\n`,
    );
  });

  it("writes what the check then accepts as the bot's record", () => {
    const { first, second } = recordAndRecheck(
      conf,
      task("t1", "research", SPEC),
      [{ sha: "c1", changes: { "tasks/t1/.state": "research:awaiting_approval\n" } }],
      { reviews: [approve("bob", "c1")], permissions: { bob: "write" } },
    );
    expect(first.records).toHaveLength(1);
    expect(second.violations).toEqual([]);
    expect(second).toMatchObject({ conclusion: "success", records: [] });
  });
});

describe("board records", () => {
  const conf = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n");
  const EVIDENCE = { "state/evidence/a.md": "tests pass\n", "state/handoffs/a.md": "done\n" };
  const submitted = entry("review", {
    owner: "carol/a1",
    history: [
      step("claim", "todo", "in_progress", "carol/a1"),
      step("submit", "in_progress", "review", "carol/a1", { evidence: "state/evidence/a.md" }),
    ],
  });

  it("appends one history entry per record, raises the revision and keeps unknown keys", () => {
    const ledger = JSON.stringify({ revision: 2, custom: { keep: true }, tasks: { a: { ...submitted, note: "x" } } });
    const head = snapshot({ ...board([def("a")], {}, 0), "state/tasks.json": ledger });
    const written = writeRecords(
      conf,
      head,
      [{ task: "a", from: "review", to: "todo", by: "quinn", kind: "reject", at: AT, reason: "no error path" }],
      { now: "2026-11-02T00:00:00Z" },
    );
    const back = readBoard(
      snapshot({ ...board([def("a")], {}, 0), "state/tasks.json": written.get("state/tasks.json")! }),
      conf.board,
    );
    expect(back.problems).toEqual([]);
    expect(back.ledger.revision).toBe(3);
    expect((back.ledger as unknown as { custom: unknown }).custom).toEqual({ keep: true });
    const a = back.ledger.tasks.a!;
    expect(a).toMatchObject({ status: "todo", owner: null, note: "x" });
    expect(a.history.at(-1)).toEqual({
      at: AT,
      by: "quinn",
      action: "reject",
      from: "review",
      to: "todo",
      note: "no error path",
    });
  });

  it("writes an approval and an unblock the check then accepts as the bot's", () => {
    const approved = recordAndRecheck(
      conf,
      board([def("a")], { a: claimed("carol/a1") }, 1, EVIDENCE),
      [{ sha: "c1", files: board([def("a")], { a: submitted }, 2, EVIDENCE) }],
      { reviews: [approve("quinn", "c1")], permissions: { quinn: "write" } },
    );
    expect(approved.first.records).toEqual([expect.objectContaining({ kind: "approve", by: "quinn" })]);
    expect(approved.second.violations).toEqual([]);
    expect(approved.second.conclusion).toBe("success");

    const blocked = escalated("dave/x", ["r"]);
    const rReview = inReview("carol", "state/evidence/r.md");
    const files = {
      "state/evidence/r.md": "ok\n",
      "state/handoffs/r.md": "ok\n",
      "state/issues/p-x.json": "{}\n",
      "state/handoffs/p.md": "blocked\n",
    };
    const defs = [def("p"), def("r")];
    const start = board(defs, { p: blocked, r: claimed("carol") }, 3, files);
    const { first } = recordAndRecheck(
      conf,
      start,
      [{ sha: "c1", files: board(defs, { p: blocked, r: rReview }, 4, files) }],
      {
        reviews: [approve("quinn", "c1")],
        permissions: { quinn: "write" },
      },
    );
    expect(first.records).toEqual([expect.objectContaining({ task: "r", kind: "approve" })]);
    // With r done (recorded by the bot), the bot's next record unblocks p.
    const withDone = prHistory(start, [{ sha: "c1", files: board(defs, { p: blocked, r: rReview }, 4, files) }], {
      reviews: [approve("quinn", "c1")],
      permissions: { quinn: "write" },
    });
    const report = evaluate(conf, withDone.base, withDone.head, withDone.pr);
    const afterApprove = writeRecords(conf, withDone.head, report.records, { now: "2026-11-02T00:00:00Z" });
    const doneFiles = { ...board(defs, {}, 0), ...files, "state/tasks.json": afterApprove.get("state/tasks.json")! };
    const steps: Step[] = [
      { sha: "c1", files: board(defs, { p: blocked, r: rReview }, 4, files) },
      botStep("c2", {}, { files: doneFiles }),
    ];
    const unblock = recordAndRecheck(conf, start, steps, {
      reviews: [approve("quinn", "c1")],
      permissions: { quinn: "write" },
    });
    expect(unblock.first.records).toEqual([
      { task: "p", from: "blocked", to: "todo", by: "taskgate[bot]", kind: "unblock" },
    ]);
    expect(unblock.second.violations).toEqual([]);
    expect(unblock.second.conclusion).toBe("success");
    const p = JSON.parse(unblock.written.get("state/tasks.json")!).tasks.p;
    expect(p).toMatchObject({ status: "todo", owner: null, blocked_by: [] });
  });
});

function fileOf(path: string, text: string) {
  return { path, kind: "file" as const, size: text.length, text };
}
