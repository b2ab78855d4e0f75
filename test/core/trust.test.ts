/**
 * Attacks on the gate, one class at a time: each test is something a person trying to get a task
 * past its gate would do, and the rule that stops it.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/core/evaluate.js";
import { MAX_REVISIONS, wantedRevisions } from "../../src/core/service.js";
import type { Report } from "../../src/core/kernel/types.js";
import { board, claimed, def, entry, escalated, inReview, step } from "../helpers/board.js";
import {
  AT,
  LATER,
  SPEC,
  approve,
  botStep,
  codes,
  config,
  line,
  phases,
  prHistory,
  pullRequest,
  runSteps,
  snapshot,
  task,
  type FileSpec,
  type PrSpec,
  type Step,
} from "../helpers/phases.js";

const WRITE = { bob: "write", erin: "write" };

function run(start: Record<string, FileSpec>, steps: Step[], spec: PrSpec = {}, conf = phases): Report {
  return runSteps(start, steps, { permissions: WRITE, ...spec }, conf).report;
}

const START = task("t1", "research", SPEC);
const AWAIT = { "tasks/t1/.state": "research:awaiting_approval\n" };
const RECORD = { "tasks/t1/.state": "research:approved\n", "tasks/t1/.state.approvals": line("research", "bob") };

describe("1. recorded decisions count only when the bot's own commit added them", () => {
  it("refuses an approval the author wrote, even when a reviewer then approves the head holding it", () => {
    const report = run(
      START,
      [
        { sha: "c1", changes: { ...AWAIT } },
        { sha: "c2", changes: RECORD },
      ],
      {
        reviews: [approve("bob", "c2")],
      },
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "approval-forged", path: "tasks/t1/.state.approvals", line: 1 }),
    ]);
    expect(report.violations[0]!.message).toContain("no commit by taskgate[bot] added it");
  });

  it("refuses P:approved written without the bot's approval line", () => {
    const report = run(START, [{ sha: "c1", changes: { "tasks/t1/.state": "research:approved\n" } }], {
      reviews: [approve("bob", "c1")],
    });
    expect(codes(report)).toEqual(["illegal-transition"]);
    expect(report.violations[0]!.message).toContain("without an approval recorded by taskgate");
  });

  it("refuses a line the bot added when the author had already written the approved state", () => {
    const report = run(
      START,
      [
        { sha: "c1", changes: { "tasks/t1/.state": "research:approved\n" } },
        botStep("c2", { "tasks/t1/.state.approvals": line("research", "bob") }),
      ],
      { reviews: [approve("bob", "c1")] },
    );
    expect(codes(report)).toEqual(["approval-forged"]);
    expect(report.violations[0]!.message).toContain("together with the approved state");
  });

  it("refuses a human_intervention exit whose approval line the author wrote", () => {
    const done = { ...SPEC, "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };
    const failed = { ...done, "VERDICT.md": "FAIL\n" };
    const start = task("t1", "human_intervention", failed);
    const exit = { "tasks/t1/.state": "implement\n" };
    const forged = run(
      start,
      [{ sha: "c1", changes: { ...exit, "tasks/t1/.state.approvals": line("human_intervention", "bob") } }],
      { reviews: [approve("bob", "c1")] },
    );
    expect(codes(forged)).toEqual(["approval-forged"]);
    const recorded = run(
      start,
      [{ sha: "c1", changes: exit }, botStep("c2", { "tasks/t1/.state.approvals": line("human_intervention", "bob") })],
      { reviews: [approve("bob", "c1")] },
    );
    expect(recorded.violations).toEqual([]);
    expect(recorded.conclusion).toBe("success");
  });

  it("holds a recorded human_intervention exit to the exit the reviewer approved", () => {
    const done = { ...SPEC, "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };
    const start = task("t1", "human_intervention", { ...done, "VERDICT.md": "FAIL\n" });
    const steps = (final: string): Step[] => [
      { sha: "c1", changes: { "tasks/t1/.state": "implement\n" } },
      botStep("c2", { "tasks/t1/.state.approvals": line("human_intervention", "bob") }),
      { sha: "c3", changes: { "tasks/t1/.state": final } },
    ];
    // Approved back to implement; then the author turns the same exit into `complete`.
    const retargeted = run(start, steps("complete\n"), { reviews: [approve("bob", "c1")] });
    expect(retargeted.conclusion).toBe("failure");
    expect(retargeted.records).toEqual([]);
    const onward = run(start, steps("bug_find\n"), { reviews: [approve("bob", "c1")] });
    expect(onward.violations).toEqual([]);
  });

  it("lets one review record one gate of a task, never two", () => {
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      botStep("c2", RECORD),
      {
        sha: "c3",
        changes: { "tasks/t1/.state": "design:awaiting_approval\n", "tasks/t1/DESIGN.md": "the design\n" },
      },
      botStep("c4", {
        "tasks/t1/.state": "design:approved\n",
        "tasks/t1/.state.approvals": line("research", "bob") + line("design", "bob"),
      }),
    ];
    const report = run(START, steps, { reviews: [approve("bob", "c1")] });
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "approval-forged", path: "tasks/t1/.state.approvals", line: 2 }),
    ]);
    expect(report.violations[0]!.message).toContain("already records another approval");
  });

  it("does not let an approval that recorded one gate open the next, whatever invalidate_on_push says", () => {
    const lax = config("preset: phases\napprovals:\n  invalidate_on_push: false\n");
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      botStep("c2", RECORD),
      {
        sha: "c3",
        changes: { "tasks/t1/.state": "design:awaiting_approval\n", "tasks/t1/DESIGN.md": "the design\n" },
      },
    ];
    const report = run(START, steps, { reviews: [approve("bob", "c1")] }, lax);
    expect(report.records).toEqual([]);
    expect(report.conclusion).toBe("action_required");
    expect(report.pending[0]!.message).toContain("already recorded another gate");
    const second = run(START, steps, { reviews: [approve("bob", "c1"), approve("bob", "c3", LATER)] }, lax);
    expect(second.records).toEqual([expect.objectContaining({ to: "design:approved", at: LATER })]);
  });

  it("refuses a bot record copied into another task", () => {
    const start = { ...START, ...task("t2", "research:awaiting_approval", SPEC) };
    const report = run(
      start,
      [
        { sha: "c1", changes: AWAIT },
        botStep("c2", RECORD),
        {
          sha: "c3",
          changes: { "tasks/t2/.state": "research:approved\n", "tasks/t2/.state.approvals": line("research", "bob") },
        },
      ],
      { reviews: [approve("bob", "c1")] },
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "approval-forged", task: "t2", path: "tasks/t2/.state.approvals" }),
    ]);
  });

  it("refuses a bot record that names a review time no review has", () => {
    const report = run(
      START,
      [
        { sha: "c1", changes: AWAIT },
        botStep("c2", { ...RECORD, "tasks/t1/.state.approvals": line("research", "bob", LATER) }),
      ],
      { reviews: [approve("bob", "c1", AT)] },
    );
    expect(codes(report)).toEqual(["approval-forged"]);
  });
});

describe("2. a commit is the bot's only when GitHub says so", () => {
  it("reads the bot's commits first when it must choose which commits to read", () => {
    const reviews = Array.from({ length: 60 }, (_, index) =>
      approve(`r${index}`, `review-${index}`, `2026-11-01T10:${String(index).padStart(2, "0")}:00Z`),
    );
    const { pr } = prHistory(START, [{ sha: "c1", changes: AWAIT }, botStep("c2", RECORD)], { reviews });
    const wanted = wantedRevisions(phases, pr);
    expect(wanted).toHaveLength(MAX_REVISIONS);
    expect(wanted.slice(0, 1)).toEqual(["c1"]);
  });

  const recordAs = (extra: Partial<Step>) =>
    run(
      START,
      [
        { sha: "c1", changes: AWAIT },
        { sha: "c2", changes: RECORD, ...extra },
      ],
      {
        reviews: [approve("bob", "c1")],
      },
    );

  it("accepts GitHub's attribution to the bot login, in any case", () => {
    expect(recordAs({ author: "taskgate[bot]" }).conclusion).toBe("success");
    expect(recordAs({ author: "TaskGate[Bot]" }).conclusion).toBe("success");
  });

  it("never takes a git author name, another bot or an unverified signature for the bot", () => {
    expect(codes(recordAs({ author: null, gitName: "taskgate[bot]" }))).toEqual(["approval-forged"]);
    expect(codes(recordAs({ author: "dependabot[bot]" }))).toEqual(["approval-forged"]);
    expect(codes(recordAs({ author: "taskgate[bot]", verified: false }))).toEqual(["approval-forged"]);
    expect(codes(recordAs({ author: "carol" }))).toEqual(["approval-forged"]);
  });

  it("follows the configured bot identity", () => {
    const actions = config("preset: phases\nbot: github-actions[bot]\n");
    const steps = (author: string): Step[] => [
      { sha: "c1", changes: AWAIT },
      { sha: "c2", changes: RECORD, author },
    ];
    expect(run(START, steps("github-actions[bot]"), { reviews: [approve("bob", "c1")] }, actions).conclusion).toBe(
      "success",
    );
    expect(codes(run(START, steps("taskgate[bot]"), { reviews: [approve("bob", "c1")] }, actions))).toEqual([
      "approval-forged",
    ]);
  });

  it("accepts either identity when the app and the Action both record (a list of bots)", () => {
    const both = config('preset: phases\nbot: ["taskgate[bot]", "github-actions[bot]"]\n');
    for (const author of ["taskgate[bot]", "github-actions[bot]"]) {
      const steps: Step[] = [
        { sha: "c1", changes: AWAIT },
        { sha: "c2", changes: RECORD, author },
      ];
      expect(run(START, steps, { reviews: [approve("bob", "c1")] }, both).conclusion).toBe("success");
    }
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      { sha: "c2", changes: RECORD, author: "other[bot]" },
    ];
    expect(codes(run(START, steps, { reviews: [approve("bob", "c1")] }, both))).toEqual(["approval-forged"]);
  });

  it("treats a commit GitHub names nobody for as an unknown contributor, barred by its git name", () => {
    const steps: Step[] = [
      { sha: "c0", author: null, gitName: "Dave", changes: { "tasks/t1/SPEC.md": "# Spec\nby dave\n" } },
      { sha: "c1", changes: AWAIT },
    ];
    const report = run(START, steps, { reviews: [approve("dave", "c1")], permissions: { dave: "admin" } });
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.message).toContain("dave pushed commits to the pull request (c0)");
    // The PR author's name on such a commit exempts nothing: allow_author does not cover it.
    const authorName: Step[] = [
      { sha: "c0", author: null, gitName: "carol", changes: { "tasks/t1/SPEC.md": "# Spec\nby ?\n" } },
      { sha: "c1", changes: AWAIT },
    ];
    const allowAuthor = config("preset: phases\napprovals:\n  allow_author: true\n");
    const self = run(
      START,
      authorName,
      { reviews: [approve("carol", "c1")], permissions: { carol: "admin" } },
      allowAuthor,
    );
    expect(self.records).toEqual([]);
  });
});

describe("3. staleness is judged by content, not by the list of commits", () => {
  const review = { reviews: [approve("bob", "c1")] };

  it("sees a change a merge brings in from another branch", () => {
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      { sha: "side", parents: ["base"], changes: { "tasks/t1/SPEC.md": "# Spec\nrewritten on a side branch\n" } },
      {
        sha: "m1",
        parents: ["c1", "side"],
        files: { ...START, ...AWAIT, "tasks/t1/SPEC.md": "# Spec\nrewritten on a side branch\n" },
      },
    ];
    const report = run(START, steps, review);
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.message).toContain("tasks/t1/SPEC.md changed after bob reviewed c1");
  });

  it("keeps an approval whose task content is unchanged after a rewrite, a revert or a bot render", () => {
    const rewritten: Step[] = [
      { sha: "c1", changes: AWAIT },
      { sha: "c1b", parents: ["base"], files: { ...START, ...AWAIT } },
    ];
    expect(run(START, rewritten, review).records).toHaveLength(1);
    const reverted: Step[] = [
      { sha: "c1", changes: AWAIT },
      { sha: "c2", changes: { "tasks/t1/SPEC.md": "# Spec\nchanged\n" } },
      { sha: "c3", changes: { "tasks/t1/SPEC.md": SPEC["SPEC.md"] } },
    ];
    expect(run(START, reverted, review).records).toHaveLength(1);
    const rendered: Step[] = [{ sha: "c1", changes: AWAIT }, botStep("c2", { "docs/status/matrix.md": "rendered\n" })];
    expect(run(START, rendered, review).records).toHaveLength(1);
  });

  it("counts a change to the task's files by a bot commit as a change", () => {
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      botStep("c2", { "tasks/t1/SPEC.md": "# Spec\nslipped in by a bot commit\n" }),
    ];
    expect(run(START, steps, review).records).toEqual([]);
  });

  it("never counts a review without a commit or a time, and says why", () => {
    for (const broken of [
      { ...approve("bob", "c1"), commit_id: null },
      { ...approve("bob", "c1"), submitted_at: null },
      { ...approve("bob", "c1"), submitted_at: "yesterday" },
    ]) {
      const report = run(START, [{ sha: "c1", changes: AWAIT }], { reviews: [broken] });
      expect(report.records).toEqual([]);
      expect(report.pending[0]!.message).toMatch(/names no commit|has no submission time/);
    }
  });

  it("refuses a recorded approval whose review saw other content than the bot recorded on", () => {
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      { sha: "side", parents: ["base"], changes: { "tasks/t1/SPEC.md": "# Spec\nother\n" } },
      { sha: "m1", parents: ["c1", "side"], files: { ...START, ...AWAIT, "tasks/t1/SPEC.md": "# Spec\nother\n" } },
      botStep("c2", RECORD),
    ];
    expect(codes(run(START, steps, review))).toEqual(["approval-stale"]);
  });
});

describe("3b. a board approval covers the task's files as the pull request leaves them", () => {
  const cfg = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n");
  const defs = [def("a")];
  const files = { "state/evidence/a.md": "ok\n", "state/handoffs/a.md": "ok\n" };
  const inReview = entry("review", {
    owner: "carol",
    history: [
      step("claim", "todo", "in_progress", "carol"),
      step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/a.md" }),
    ],
  });
  const done = entry("done", {
    history: [...inReview.history, step("approve", "review", "done", "quinn", { at: AT })],
  });
  const steps = (after: Record<string, string>): Step[] => [
    { sha: "c1", files: board(defs, { a: inReview }, 2, { ...files, "src/a/x.ts": "reviewed\n" }) },
    botStep("c2", {}, { files: board(defs, { a: done }, 3, { ...files, "src/a/x.ts": "reviewed\n" }) }),
    { sha: "c3", changes: after },
  ];
  const judge = (after: Record<string, string>) => {
    const { base, head, pr } = prHistory(board(defs, {}, 0), steps(after), {
      reviews: [approve("quinn", "c1", AT)],
      permissions: { quinn: "write" },
    });
    return evaluate(cfg, base, head, pr);
  };

  it("lets the claim, the work, the submission and the bot's approval merge together", () => {
    expect(judge({ "docs/notes.md": "x" }).violations.map((item) => item.path)).toEqual(["docs/notes.md"]);
    expect(judge({}).conclusion).toBe("success");
  });

  it("refuses a change to the task's files after the approval was recorded", () => {
    const report = judge({ "src/a/x.ts": "slipped in after the approval\n" });
    expect(codes(report)).toEqual(["out-of-scope", "approval-stale"]);
    expect(report.violations[1]!.message).toContain("after the approval was recorded");
  });
});

describe("4. a retracted review backs nothing", () => {
  const recorded: Step[] = [{ sha: "c1", changes: AWAIT }, botStep("c2", RECORD)];

  it("cancels a recorded approval line with a later change request or dismissal", () => {
    for (const state of ["CHANGES_REQUESTED", "DISMISSED"]) {
      const report = run(START, recorded, { reviews: [approve("bob", "c1"), approve("bob", "c2", LATER, state)] });
      expect(codes(report)).toEqual(["approval-forged"]);
      expect(report.violations[0]!.message).toContain(`retracted by a later ${state}`);
    }
    const dismissedItself = run(START, recorded, { reviews: [approve("bob", "c1", AT, "DISMISSED")] });
    expect(dismissedItself.violations[0]!.message).toContain("was dismissed");
  });

  it("keeps a recorded approval when the reviewer only comments or approves again", () => {
    const report = run(START, recorded, {
      reviews: [approve("bob", "c1"), approve("bob", "c2", LATER, "COMMENTED"), approve("bob", "c2", LATER)],
    });
    expect(report.violations).toEqual([]);
  });
});

describe("5. board ownership", () => {
  const cfg = config(
    "preset: board\nmaintainers: [alice]\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n  coordinator: [cora]\n",
  );
  const QA = { quinn: "write", cora: "write", dave: "write" };
  const defs = [def("a"), def("b"), def("c")];
  const check = (base: Record<string, FileSpec>, head: Record<string, FileSpec>, spec: PrSpec = {}) => {
    const b = snapshot(base);
    const h = snapshot(head);
    return evaluate(cfg, b, h, pullRequest(b, h, { permissions: QA, ...spec }));
  };

  it("refuses owner strings that are not login or login/agent-id", () => {
    for (const owner of [
      "carol/",
      "/a1",
      "carol//a1",
      "carol/a b",
      "carol/a..b",
      "carol/a\u200bx",
      "ca rol",
      "carol/a/b",
    ]) {
      const report = check(board(defs, {}, 0), board(defs, { a: claimed(owner) }, 1));
      expect(codes(report), owner).toContain("owner-mismatch");
      expect(report.violations.find((item) => item.code === "owner-mismatch")!.hint).toContain("login/agent-id");
    }
  });

  it("compares owners without regard to case: the author, the one-task limit and retirement", () => {
    expect(check(board(defs, {}, 0), board(defs, { a: claimed("CAROL/A1") }, 1)).conclusion).toBe("success");
    const limit = check(
      board(defs, { a: claimed("carol/a1") }, 1),
      board(defs, { a: claimed("carol/a1"), b: claimed("Carol/A1") }, 2),
    );
    expect(codes(limit)).toEqual(["owner-limit"]);
    const escalated = entry("blocked", {
      blocked_by: ["c"],
      history: [
        step("claim", "todo", "in_progress", "carol/a1"),
        step("escalate", "in_progress", "blocked", "carol/a1"),
      ],
    });
    const retired = check(board(defs, { a: escalated }, 2), board(defs, { a: escalated, b: claimed("CAROL/a1") }, 3));
    expect(codes(retired)).toEqual(["agent-retired"]);
  });

  it("lets a pull request submit or escalate only for its author", () => {
    const base = board(defs, { a: claimed("dave/x") }, 1, {
      "state/evidence/a.md": "ok\n",
      "state/handoffs/a.md": "ok\n",
    });
    const submittedForDave = entry("review", {
      owner: "dave/x",
      history: [
        step("claim", "todo", "in_progress", "dave/x"),
        step("submit", "in_progress", "review", "dave/x", { evidence: "state/evidence/a.md" }),
      ],
    });
    const submit = check(
      base,
      board(defs, { a: submittedForDave }, 2, { "state/evidence/a.md": "ok\n", "state/handoffs/a.md": "ok\n" }),
    );
    expect(codes(submit)).toEqual(["owner-mismatch"]);
    expect(submit.violations[0]!.message).toContain("pull request is by carol");
  });

  it("compares every key of an entry with what its history allows", () => {
    const mine = claimed("carol");
    const base = board(defs, { a: mine, b: claimed("dave/x") }, 2);
    const changed = (a: Record<string, unknown>, b: Record<string, unknown> = {}) =>
      check(base, board(defs, { a: { ...mine, ...a } as never, b: { ...claimed("dave/x"), ...b } as never }, 2));
    expect(codes(changed({ blocked_by: ["c"] }))).toEqual(["illegal-transition"]);
    expect(codes(changed({ external_wait: true }))).toEqual(["illegal-transition"]);
    expect(codes(changed({ approved_by: "quinn" }))).toEqual(["illegal-transition"]);
    expect(codes(changed({ owner: "carol/other" }))).toEqual(["owner-mismatch"]);
    const others = changed({}, { note: "mine now" });
    expect(codes(others)).toEqual(["owner-mismatch"]);
    expect(others.violations[0]!.message).toContain("belongs to dave/x");
  });

  it("opens a task's paths only to its author's legal work, never by touching its entry", () => {
    const base = board(defs, { b: claimed("dave/x") }, 1);
    const touched = check(
      base,
      board(defs, { b: { ...claimed("dave/x"), note: "x" } as never }, 1, { "src/b/x.ts": "mine\n" }),
    );
    expect(touched.violations.map((item) => [item.code, item.path])).toEqual([
      ["out-of-scope", "src/b/x.ts"],
      ["owner-mismatch", "state/tasks.json"],
    ]);
    const stolen = check(base, board(defs, { b: claimed("carol") }, 1, { "src/b/x.ts": "mine\n" }));
    expect(codes(stolen)).toContain("out-of-scope");
  });

  it("reads a `!glob` in a task's paths as an exclusion, never as everything else", () => {
    const narrow = [def("a", { paths: ["src/a/**", "!src/a/gen/**"] }), def("b")];
    const claim = (files: Record<string, string>) =>
      check(board(narrow, {}, 0), board(narrow, { a: claimed("carol") }, 1, files));
    expect(claim({ "src/a/x.ts": "x" }).conclusion).toBe("success");
    expect(codes(claim({ "src/a/gen/x.ts": "x" }))).toEqual(["out-of-scope"]);
    expect(codes(claim({ "src/b/x.ts": "x", "README.md": "y" }))).toEqual(["out-of-scope", "out-of-scope"]);
  });

  it("adds resolvers only by escalation and removes them only by the bot's unblock", () => {
    const issue = { "state/issues/a-a1.json": "{}\n", "state/handoffs/a.md": "blocked\n" };
    const escalated = (blockedBy: string[]) =>
      entry("blocked", {
        blocked_by: blockedBy,
        history: [
          step("claim", "todo", "in_progress", "carol/a1"),
          step("escalate", "in_progress", "blocked", "carol/a1"),
        ],
      });
    const withR = [...defs, def("r")];
    const base = board(withR, { a: escalated(["r"]) }, 2, issue);
    const dropped = check(base, board(withR, { a: escalated([]) }, 2, issue));
    expect(codes(dropped)).toEqual(["illegal-transition"]);
    expect(dropped.violations[0]!.message).toContain("blocked_by");
    const existing = check(board(defs, { a: claimed("carol/a1") }, 1), board(defs, { a: escalated(["b"]) }, 2, issue));
    expect(codes(existing)).toEqual(["blocked-without-resolver"]);
  });

  it("creates an external resolver waiting, in the escalation, and never lets it be claimed early", () => {
    const issue = { "state/issues/a-a1.json": "{}\n", "state/handoffs/a.md": "blocked\n" };
    const external = def("x", { external: true });
    const escalated = entry("blocked", {
      blocked_by: ["x"],
      history: [
        step("claim", "todo", "in_progress", "carol/a1"),
        step("escalate", "in_progress", "blocked", "carol/a1"),
      ],
    });
    const before = board(defs, { a: claimed("carol/a1") }, 1);
    const noEntry = check(before, board([...defs, external], { a: escalated }, 2, issue));
    expect(codes(noEntry)).toEqual(["illegal-transition"]);
    expect(noEntry.violations[0]!.message).toContain("x is an external resolver");
    const waiting = entry("blocked", { external_wait: true });
    const created = board([...defs, external], { a: escalated, x: waiting }, 2, issue);
    expect(check(before, created).conclusion).toBe("success");
    const claimedEarly = check(created, board([...defs, external], { a: escalated, x: claimed("dave") }, 3, issue), {
      author: "dave",
    });
    expect(codes(claimedEarly)).toContain("illegal-transition");
  });

  it("leaves new definitions to maintainers, unless one is an escalation's resolver", () => {
    const added = board([...defs, def("n")], {}, 0);
    expect(codes(check(board(defs, {}, 0), added))).toEqual(["out-of-scope"]);
    expect(check(board(defs, {}, 0), added, { author: "alice" }).conclusion).toBe("success");
    const unknownRole = check(board(defs, {}, 0), board([...defs, def("n", { reviewer_role: "nobody" })], {}, 0), {
      author: "alice",
    });
    expect(codes(unknownRole)).toEqual(["state-invalid"]);
  });

  it("finds a definition added twice, even byte-identical to an existing one", () => {
    const twice = board([...defs, def("a")], {}, 0);
    const report = check(board(defs, {}, 0), twice, { author: "alice" });
    expect(codes(report)).toEqual(["id-reused"]);
    const fresh = check(board(defs, {}, 0), board([...defs, def("n"), def("n")], {}, 0), { author: "alice" });
    expect(codes(fresh)).toEqual(["id-reused"]);
  });

  it("never lets a retired reporter approve", () => {
    const issue = { "state/issues/b-quinn.json": "{}\n", "state/handoffs/b.md": "blocked\n" };
    const reporter = escalated("quinn", ["c"]);
    const submitted = inReview("carol", "state/evidence/a.md");
    const files = { ...issue, "state/evidence/a.md": "ok\n", "state/handoffs/a.md": "ok\n" };
    const report = check(
      board(defs, { a: claimed("carol"), b: reporter }, 3, files),
      board(defs, { a: submitted, b: reporter }, 4, files),
      {
        reviews: [approve("quinn")],
      },
    );
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.message).toContain("quinn escalated a blocker and is retired");
  });
});

describe("6. secrets never leave the core, whatever field they came in", () => {
  const cfg = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n");
  const token = `ghp_${"Rt5".repeat(12)}`;

  it("redacts review bodies, owners and paths in the report itself", () => {
    const defs = [def("a")];
    const inReview = entry("review", {
      owner: `${token}/a1`,
      history: [
        step("claim", "todo", "in_progress", `${token}/a1`),
        step("submit", "in_progress", "review", `${token}/a1`, { evidence: `state/evidence/${token}.md` }),
      ],
    });
    const files = { [`state/evidence/${token}.md`]: "ok\n", "state/handoffs/a.md": "ok\n" };
    const b = snapshot(board(defs, {}, 0));
    const h = snapshot(board(defs, { a: inReview }, 2, files));
    const report = evaluate(
      cfg,
      b,
      h,
      pullRequest(b, h, {
        reviews: [{ ...approve("quinn", "c1", AT, "CHANGES_REQUESTED"), body: `drop ${token} from the logs` }],
        permissions: { quinn: "write" },
      }),
    );
    expect(report.records).toEqual([
      expect.objectContaining({ kind: "reject", reason: "drop [redacted] from the logs" }),
    ]);
    expect(codes(report)).toContain("owner-mismatch");
    expect(JSON.stringify(report)).not.toContain(token);
    expect(JSON.stringify(report)).not.toContain("Rt5Rt5Rt5Rt5");
  });

  it("refuses binary and oversized files in the board's folders instead of skipping them", () => {
    const defs = [def("a")];
    const b = snapshot(board(defs, {}, 0));
    const h = snapshot(
      board(defs, { a: claimed("carol") }, 1, {
        "state/evidence/a.bin": { kind: "binary", size: 20 },
        "state/handoffs/a.md": { kind: "oversized", size: 5_000_000 },
      }),
    );
    const report = evaluate(cfg, b, h, pullRequest(b, h));
    expect(report.violations.map((item) => [item.code, item.path])).toEqual([
      ["evidence-missing", "state/evidence/a.bin"],
      ["evidence-missing", "state/handoffs/a.md"],
    ]);
  });
});

describe("8. names from content or config are only ever names", () => {
  it("survives roles, ids, permissions and phases named after Object.prototype members", () => {
    const cfg = config(
      "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\napprovals:\n  approvers: ['role:constructor']\n",
    );
    const defs = [def("constructor", { reviewer_role: "toString" }), def("a")];
    const inReview = entry("review", {
      owner: "carol",
      history: [
        step("claim", "todo", "in_progress", "carol"),
        step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/c.md" }),
      ],
    });
    const files = { "state/evidence/c.md": "ok\n", "state/handoffs/constructor.md": "ok\n" };
    const b = snapshot(board(defs, {}, 0));
    const h = snapshot(board(defs, { constructor: inReview }, 2, files));
    const report = evaluate(
      cfg,
      b,
      h,
      pullRequest(b, h, { reviews: [approve("quinn")], permissions: { quinn: "constructor" } }),
    );
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.approvers).toEqual(["role:toString"]);
    expect(codes(report)).toContain("state-invalid");
    const ph = run(START, [{ sha: "c1", changes: AWAIT }], {
      reviews: [approve("bob", "c1")],
      permissions: { bob: "toString" },
    });
    expect(ph.records).toEqual([]);
    expect(ph.pending[0]!.message).toContain("bob has no known permission");
  });
});

describe("7. what `taskgate render` writes is within every scope", () => {
  it("accepts rendered files with a phases task's move and alone, never as a way into other files", () => {
    const withRender = run(START, [{ sha: "c1", changes: { ...AWAIT, "docs/status/matrix.md": "x\n" } }]);
    expect(withRender.violations).toEqual([]);
    const alone = run(START, [{ sha: "c1", changes: { "docs/status/cards/t1.md": "x\n" } }]);
    expect(alone).toMatchObject({ conclusion: "success", violations: [] });
    const sneaky = run(START, [
      { sha: "c1", changes: { "docs/status/../../src/app.ts": "x\n", "docs/statusx.md": "y" } },
    ]);
    expect(codes(sneaky)).toEqual(["task-missing"]);
  });
});

describe("8. input built to crash the check", () => {
  it("refuses deeply nested board files with a violation naming the line", () => {
    const cfg = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n");
    const deep = `{"revision": 1,\n"tasks": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const b = snapshot(board([def("a")], {}, 0));
    const h = snapshot({ ...board([def("a")], {}, 0), "state/tasks.json": deep });
    const report = evaluate(cfg, b, h, pullRequest(b, h));
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "state-invalid", path: "state/tasks.json", line: 2 }),
    ]);
    expect(report.violations[0]!.message).toContain("nested more than 64 levels deep");
  });
});
