import { describe, expect, it } from "vitest";
import { audit, evaluate } from "../../src/core/evaluate.js";
import { scanSecrets } from "../../src/core/kernel/secrets.js";
import type { Report } from "../../src/core/kernel/types.js";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import {
  approve,
  botStep,
  config,
  prHistory,
  pullRequest,
  snapshot,
  type FileSpec,
  type PrSpec,
} from "../helpers/memory.js";

const cfg = config(
  'preset: board\nmaintainers: [alice]\nroles:\n  qa: [quinn, "@acme/qa"]\n  coordinator: [cora]\n  backend: [carol, dave]\n  frontend: [erin]\n',
);
const QA = { quinn: "write", cora: "write", carol: "write", dave: "write" };

function check(base: Record<string, FileSpec>, head: Record<string, FileSpec>, spec: PrSpec = {}): Report {
  const b = snapshot(base);
  const h = snapshot(head);
  return evaluate(cfg, b, h, pullRequest(b, h, { permissions: QA, ...spec }));
}

/**
 * A PR that first brings the board to `reviewed` (the commit `c1` reviewers see), then lets the bot
 * commit `recorded` (`c2`): how a decision taskgate records looks.
 */
function checkRecorded(
  base: Record<string, FileSpec>,
  reviewed: Record<string, FileSpec>,
  recorded: Record<string, FileSpec>,
  spec: PrSpec = {},
): Report {
  const {
    base: b,
    head,
    pr,
  } = prHistory(base, [{ sha: "c1", files: reviewed }, botStep("c2", {}, { files: recorded })], {
    permissions: QA,
    ...spec,
  });
  return evaluate(cfg, b, head, pr);
}
const codes = (report: Report) => report.violations.map((item) => item.code);

const EVIDENCE = { "state/evidence/a-tests.md": "all 12 tests pass\n", "state/handoffs/a.md": "done; see evidence\n" };
const submitted = (owner: string) =>
  entry("review", {
    owner,
    history: [
      step("claim", "todo", "in_progress", owner),
      step("submit", "in_progress", "review", owner, { evidence: "state/evidence/a-tests.md" }),
    ],
  });

describe("board: claim", () => {
  const defs = [def("a"), def("b", { depends_on: ["a"] })];

  it("lets the PR author claim a todo task as themselves or their agent", () => {
    for (const owner of ["carol", "Carol/agent-7"]) {
      const report = check(board(defs, {}, 0), board(defs, { a: claimed(owner) }, 1));
      expect(report).toMatchObject({ conclusion: "success", violations: [] });
    }
  });

  it("refuses a claim for someone else", () => {
    expect(codes(check(board(defs, {}, 0), board(defs, { a: claimed("dave") }, 1)))).toEqual(["owner-mismatch"]);
  });

  it("refuses a claim before the dependencies are done", () => {
    const report = check(board(defs, {}, 0), board(defs, { b: claimed("carol") }, 1));
    expect(report.violations).toEqual([
      expect.objectContaining({
        code: "dependency-unmet",
        task: "b",
        path: "state/tasks.json",
        line: expect.any(Number),
      }),
    ]);
  });

  it("allows one unfinished task per owner", () => {
    const c = [...defs, def("c")];
    const report = check(
      board(c, { c: claimed("carol") }, 1),
      board(c, { c: claimed("carol"), a: claimed("carol") }, 2),
    );
    expect(codes(report)).toEqual(["owner-limit"]);
    const agents = check(
      board(c, { c: claimed("carol/a1") }, 1),
      board(c, { c: claimed("carol/a1"), a: claimed("carol/a2") }, 2),
    );
    expect(agents.conclusion).toBe("success");
  });

  it("refuses an owner that escalated before", () => {
    const c = [...defs, def("c"), def("r")];
    const escalated = entry("blocked", {
      blocked_by: ["r"],
      history: [
        step("claim", "todo", "in_progress", "carol/a1"),
        step("escalate", "in_progress", "blocked", "carol/a1"),
      ],
    });
    const report = check(board(c, { c: escalated }, 2), board(c, { c: escalated, a: claimed("carol/a1") }, 3));
    expect(codes(report)).toEqual(["agent-retired"]);
  });

  it("requires a history entry and revision + 1 for each change", () => {
    const silent = check(board(defs, {}, 0), board(defs, { a: entry("in_progress", { owner: "carol" }) }, 0));
    expect(new Set(codes(silent))).toEqual(new Set(["illegal-transition", "owner-mismatch"]));
    const revision = check(board(defs, {}, 4), board(defs, { a: claimed("carol") }, 4));
    expect(revision.violations).toEqual([expect.objectContaining({ code: "state-invalid", path: "state/tasks.json" })]);
    expect(revision.violations[0]!.message).toContain("make it 5");
  });

  it("refuses an edge the board does not have", () => {
    const jump = entry("done", { owner: null, history: [step("approve", "todo", "done", "carol")] });
    expect(codes(check(board(defs, {}, 0), board(defs, { a: jump }, 1)))).toContain("illegal-transition");
  });
});

describe("board: submit and review", () => {
  const defs = [def("a")];
  const base = board(defs, { a: claimed("carol") }, 1, EVIDENCE);

  it("needs evidence and a handoff, then waits for the reviewer role", () => {
    const report = check(base, board(defs, { a: submitted("carol") }, 2, EVIDENCE));
    expect(report.conclusion).toBe("action_required");
    expect(report.pending).toEqual([
      expect.objectContaining({ code: "approval-required", task: "a", approvers: ["role:qa"] }),
    ]);
  });

  it("refuses missing, empty, escaping and symlinked evidence", () => {
    const missing = check(board(defs, { a: claimed("carol") }, 1), board(defs, { a: submitted("carol") }, 2));
    expect(codes(missing)).toEqual(["evidence-missing", "evidence-missing"]);
    const empty = check(
      base,
      board(defs, { a: submitted("carol") }, 2, { ...EVIDENCE, "state/evidence/a-tests.md": " \n" }),
    );
    expect(codes(empty)).toEqual(["evidence-missing"]);
    const escaping = (path: string) =>
      entry("review", {
        owner: "carol",
        history: [
          step("claim", "todo", "in_progress", "carol"),
          step("submit", "in_progress", "review", "carol", { evidence: path }),
        ],
      });
    for (const path of ["state/evidence/../../etc/passwd", "/etc/passwd", "docs/notes.md"]) {
      expect(codes(check(base, board(defs, { a: escaping(path) }, 2, EVIDENCE)))).toEqual(["path-escape"]);
    }
    const linked = check(
      base,
      board(defs, { a: submitted("carol") }, 2, {
        ...EVIDENCE,
        "state/handoffs/a.md": { kind: "symlink", target: "/etc/passwd" },
      }),
    );
    expect(codes(linked)).toEqual(["path-escape"]);
  });

  it("records done when an eligible reviewer approves", () => {
    const report = check(base, board(defs, { a: submitted("carol") }, 2, EVIDENCE), { reviews: [approve("quinn")] });
    expect(report.conclusion).toBe("success");
    expect(report.records).toEqual([
      {
        task: "a",
        from: "review",
        to: "done",
        by: "quinn",
        kind: "approve",
        at: "2026-11-01T10:00:00Z",
        reviews: [{ by: "quinn", at: "2026-11-01T10:00:00Z" }],
      },
    ]);
  });

  it("only counts reviewers of the task's reviewer role who never worked on it", () => {
    const outsider = check(base, board(defs, { a: submitted("carol") }, 2, EVIDENCE), { reviews: [approve("dave")] });
    expect(outsider.records).toEqual([]);
    const team = check(base, board(defs, { a: submitted("carol") }, 2, EVIDENCE), {
      reviews: [approve("erin")],
      permissions: { erin: "write" },
      teams: { "@acme/qa": ["erin"] },
    });
    expect(team.records).toHaveLength(1);
    const earlier = [
      step("claim", "todo", "in_progress", "quinn/x"),
      step("submit", "in_progress", "review", "quinn/x", { evidence: "state/evidence/a-tests.md" }),
      step("reject", "review", "todo", "cora"),
      step("claim", "todo", "in_progress", "carol"),
    ];
    const resubmitted = entry("review", {
      owner: "carol",
      history: [
        ...earlier,
        step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/a-tests.md" }),
      ],
    });
    const conflict = check(
      board(defs, { a: entry("in_progress", { owner: "carol", history: earlier }) }, 4, EVIDENCE),
      board(defs, { a: resubmitted }, 5, EVIDENCE),
      { reviews: [approve("quinn")] },
    );
    expect(conflict.records).toEqual([]);
    expect(conflict.pending[0]!.message).toContain("quinn owned or submitted a");
    const recordedByPastOwner = entry("done", {
      history: [...resubmitted.history, step("approve", "review", "done", "quinn")],
    });
    const forgedConflict = checkRecorded(
      board(defs, { a: resubmitted }, 5, EVIDENCE),
      board(defs, { a: resubmitted }, 5, EVIDENCE),
      board(defs, { a: recordedByPastOwner }, 6, EVIDENCE),
      { reviews: [approve("quinn")] },
    );
    expect(forgedConflict.violations).toEqual([
      expect.objectContaining({
        code: "reviewer-conflict",
        task: "a",
        path: "state/tasks.json",
        line: expect.any(Number),
      }),
    ]);
  });

  it("accepts the bot's done entry backed by a review and flags forged or conflicted ones", () => {
    const done = (by: string) =>
      entry("done", { owner: null, history: [...submitted("carol").history, step("approve", "review", "done", by)] });
    const reviewed = board(defs, { a: submitted("carol") }, 2, EVIDENCE);
    const recorded = (by: string, spec: PrSpec) =>
      checkRecorded(reviewed, reviewed, board(defs, { a: done(by) }, 3, EVIDENCE), spec);
    expect(recorded("quinn", { reviews: [approve("quinn")] }).conclusion).toBe("success");
    expect(codes(recorded("quinn", {}))).toEqual(["approval-forged"]);
    expect(codes(recorded("carol", { reviews: [approve("carol")] }))).toEqual(["approval-self"]);
    // Written by anyone but the bot, a done entry is forged even with the review behind it.
    expect(
      codes(check(reviewed, board(defs, { a: done("quinn") }, 3, EVIDENCE), { reviews: [approve("quinn")] })),
    ).toEqual(["approval-forged"]);
  });

  it("turns an eligible change request into a reject record and fails until a new executor resubmits", () => {
    const claimedByAgent = board(defs, { a: claimed("carol/a1") }, 1, EVIDENCE);
    const inReview = board(defs, { a: submitted("carol/a1") }, 2, EVIDENCE);
    const changes = {
      ...approve("quinn", "c1", "2026-11-03T10:00:00Z", "CHANGES_REQUESTED"),
      body: "tests do not cover the error path",
    };
    const decided = check(claimedByAgent, inReview, { reviews: [changes] });
    expect(decided.records).toEqual([
      {
        task: "a",
        from: "review",
        to: "todo",
        by: "quinn",
        kind: "reject",
        reason: "tests do not cover the error path",
        at: "2026-11-03T10:00:00Z",
      },
    ]);

    expect(codes(decided)).toEqual(["review-rejected"]);

    const rejectedHistory = [
      ...submitted("carol/a1").history,
      step("reject", "review", "todo", "quinn", {
        note: "tests do not cover the error path",
        at: "2026-11-03T10:00:00Z",
      }),
    ];
    const rejectedBoard = board(defs, { a: entry("todo", { history: rejectedHistory }) }, 3, EVIDENCE);
    const recorded = checkRecorded(inReview, inReview, rejectedBoard, { reviews: [changes] });
    expect(codes(recorded)).toEqual(["review-rejected"]);
    expect(recorded.records).toEqual([]);

    const again = (owner: string) =>
      entry("review", {
        owner,
        history: [
          ...rejectedHistory,
          step("claim", "todo", "in_progress", owner),
          step("submit", "in_progress", "review", owner, { evidence: "state/evidence/a-tests.md" }),
        ],
      });
    const resubmit = (owner: string, spec: PrSpec) => {
      const {
        base: b,
        head,
        pr,
      } = prHistory(
        inReview,
        [
          { sha: "c1", files: inReview },
          botStep("c2", {}, { files: rejectedBoard }),
          { sha: "c3", files: board(defs, { a: again(owner) }, 5, EVIDENCE) },
        ],
        { permissions: QA, ...spec },
      );
      return evaluate(cfg, b, head, pr);
    };
    const sameOwner = resubmit("carol/a1", { reviews: [changes] });
    expect(codes(sameOwner)).toContain("owner-mismatch");
    const resubmitted = resubmit("carol/a2", { reviews: [changes] });
    expect(codes(resubmitted)).toEqual(["review-rejected"]);
    const approvedAgain = entry("done", {
      history: [
        ...again("carol/a2").history,
        step("approve", "review", "done", "quinn", { at: "2026-11-04T10:00:00Z" }),
      ],
    });
    const {
      base: b,
      head,
      pr,
    } = prHistory(
      inReview,
      [
        { sha: "c1", files: inReview },
        botStep("c2", {}, { files: rejectedBoard }),
        { sha: "c3", files: board(defs, { a: again("carol/a2") }, 5, EVIDENCE) },
        botStep("c4", {}, { files: board(defs, { a: approvedAgain }, 6, EVIDENCE) }),
      ],
      { permissions: QA, reviews: [changes, approve("quinn", "c3", "2026-11-04T10:00:00Z")] },
    );
    const finished = evaluate(cfg, b, head, pr);
    expect(finished.violations).toEqual([]);
    expect(finished.conclusion).toBe("success");
  });
});

describe("board: escalate, unblock, release", () => {
  const ISSUE = {
    "state/issues/p-a1.json": '{"problem": "the API is missing"}\n',
    "state/handoffs/p.md": "blocked on the API\n",
  };
  const parent = def("p");
  const resolver = def("r", { role: "backend" });
  const escalated = (blockedBy: string[], owner: string | null = null) =>
    entry("blocked", {
      owner,
      blocked_by: blockedBy,
      history: [
        step("claim", "todo", "in_progress", "carol/a1"),
        step("escalate", "in_progress", "blocked", "carol/a1"),
      ],
    });
  const before = board([parent], { p: claimed("carol/a1") }, 1);

  it("accepts an escalation with an issue report, a handoff and a new resolver", () => {
    const report = check(before, board([parent, resolver], { p: escalated(["r"]) }, 2, ISSUE));
    expect(report).toMatchObject({ conclusion: "success", violations: [] });
  });

  it("refuses an escalation without the report, the handoff or a new resolver", () => {
    expect(codes(check(before, board([parent, resolver], { p: escalated(["r"]) }, 2)))).toEqual([
      "evidence-missing",
      "evidence-missing",
    ]);
    const noResolver = check(before, board([parent], { p: escalated([]) }, 2, ISSUE));
    expect(codes(noResolver)).toEqual(["blocked-without-resolver"]);
    const old = board([parent, resolver], { p: claimed("carol/a1") }, 1);
    expect(codes(check(old, board([parent, resolver], { p: escalated(["r"]) }, 2, ISSUE)))).toEqual([
      "blocked-without-resolver",
    ]);
  });

  it("refuses a resolver that depends on its parent", () => {
    const report = check(before, board([parent, def("r", { depends_on: ["p"] })], { p: escalated(["r"]) }, 2, ISSUE));
    expect(codes(report)).toEqual(["dependency-cycle"]);
  });

  it("retires the reporter: it owns nothing after", () => {
    const kept = check(before, board([parent, resolver], { p: escalated(["r"], "carol/a1") }, 2, ISSUE));
    expect(codes(kept)).toContain("owner-mismatch");
    const other = def("o");
    const base2 = board([parent, other], { p: claimed("carol/a1") }, 1);
    const report = check(
      base2,
      board([parent, other, resolver], { p: escalated(["r"]), o: claimed("carol/a1") }, 3, ISSUE),
    );
    expect(codes(report)).toContain("agent-retired");
  });

  it("refuses an unblock before the resolver is done, and records it when it is", () => {
    const blocked = board([parent, resolver], { p: escalated(["r"]) }, 2, ISSUE);
    const early = entry("todo", {
      history: [...escalated(["r"]).history, step("unblock", "blocked", "todo", "taskgate[bot]")],
    });
    const earlyBoard = board([parent, resolver], { p: early }, 3, ISSUE);
    expect(codes(checkRecorded(blocked, blocked, earlyBoard))).toEqual(["unblock-unresolved"]);
    // Not written by the bot, an unblock is refused whatever the resolvers.
    expect(codes(check(blocked, earlyBoard))).toEqual(["illegal-transition", "unblock-unresolved"]);

    const rInReview = entry("review", {
      owner: "dave",
      history: [
        step("claim", "todo", "in_progress", "dave"),
        step("submit", "in_progress", "review", "dave", { evidence: "state/evidence/r.md" }),
      ],
    });
    const files = { ...ISSUE, "state/evidence/r.md": "done\n", "state/handoffs/r.md": "handoff\n" };
    const rDone = entry("done", { history: [...rInReview.history, step("approve", "review", "done", "quinn")] });
    const rReview = board([parent, resolver], { p: escalated(["r"]), r: rInReview }, 4, files);
    const report = checkRecorded(
      rReview,
      rReview,
      board([parent, resolver], { p: escalated(["r"]), r: rDone }, 5, files),
      {
        author: "dave",
        reviews: [approve("quinn")],
      },
    );
    expect(report.conclusion).toBe("success");
    expect(report.records).toEqual([{ task: "p", from: "blocked", to: "todo", by: "taskgate[bot]", kind: "unblock" }]);
  });

  it("keeps an external resolver blocked until the coordinator approves its release", () => {
    const external = def("x", { external: true });
    const waiting = entry("blocked", { external_wait: true });
    const created = check(before, board([parent, external], { p: escalated(["x"]), x: waiting }, 2, ISSUE));
    expect(created.conclusion).toBe("success");
    const owned = check(
      before,
      board([parent, external], { p: escalated(["x"]), x: entry("blocked", { owner: "carol" }) }, 2, ISSUE),
    );
    expect(codes(owned)).toContain("illegal-transition");

    const blocked = board([parent, external], { p: escalated(["x"]), x: waiting }, 2, ISSUE);
    const released = board(
      [parent, external],
      { p: escalated(["x"]), x: entry("todo", { history: [step("release", "blocked", "todo", "carol")] }) },
      3,
      ISSUE,
    );
    const pending = check(blocked, released);
    expect(pending.conclusion).toBe("action_required");
    expect(pending.pending[0]!.approvers).toEqual(["role:coordinator"]);
    const approved = check(blocked, released, { reviews: [approve("cora")] });
    expect(approved).toMatchObject({ conclusion: "success", violations: [], pending: [], records: [] });
  });
});

describe("board: definitions, history and files", () => {
  const defs = [def("a"), def("b")];

  it("never deletes a definition nor reuses an id", () => {
    expect(codes(check(board(defs, {}, 0), board([def("a")], {}, 0)))).toEqual(["task-deleted"]);
    expect(
      codes(check(board(defs, {}, 0), board([...defs, def("a", { title: "again" })], {}, 0), { author: "carol" })),
    ).toContain("id-reused");
  });

  it("reports unknown dependencies and cycles this PR introduces", () => {
    const planner = { author: "alice" };
    const unknown = check(board(defs, {}, 0), board([...defs, def("c", { depends_on: ["zz"] })], {}, 0), planner);
    expect(codes(unknown)).toEqual(["dependency-unknown"]);
    const cycle = check(
      board(defs, {}, 0),
      board([...defs, def("c", { depends_on: ["d"] }), def("d", { depends_on: ["c"] })], {}, 0),
      planner,
    );
    expect(cycle.violations).toEqual([
      expect.objectContaining({ code: "dependency-cycle", message: "depends_on forms a cycle: c → d → c" }),
    ]);
  });

  it("validates a config the PR proposes, judging the PR by the base one", () => {
    const report = check(
      { ...board(defs, {}, 0), ".github/taskgate.yml": "preset: board\n" },
      { ...board(defs, {}, 0), ".github/taskgate.yml": "preset: board\nrender:\n  path: ../../etc\n" },
      { author: "carol" },
    );
    expect(report.violations).toContainEqual(
      expect.objectContaining({ code: "config-invalid", path: ".github/taskgate.yml", line: 3 }),
    );
  });

  it("keeps history append-only", () => {
    const original = claimed("carol");
    const rewritten = entry("in_progress", { owner: "carol", history: [{ ...original.history[0]!, by: "dave" }] });
    expect(codes(check(board(defs, { a: original }, 1), board(defs, { a: rewritten }, 1)))).toContain(
      "history-rewritten",
    );
    expect(codes(check(board(defs, { a: original }, 1), board(defs, {}, 1)))).toContain("history-rewritten");
  });

  it("keeps a task's changes inside its paths, its metadata and its evidence", () => {
    const base = board(defs, {}, 0);
    const inside = check(
      base,
      board(defs, { a: claimed("carol") }, 1, { "src/a/x.ts": "x", "state/evidence/a.md": "e" }),
    );
    expect(inside.conclusion).toBe("success");
    const outside = check(
      base,
      board(defs, { a: claimed("carol") }, 1, { "src/b/y.ts": "y", ".github/workflows/x.yml": "z" }),
    );
    expect(outside.violations.map((item) => [item.code, item.path])).toEqual([
      ["out-of-scope", ".github/workflows/x.yml"],
      ["out-of-scope", "src/b/y.ts"],
    ]);
    const otherHandoff = check(base, board(defs, { a: claimed("carol") }, 1, { "state/handoffs/b.md": "not mine" }));
    expect(codes(otherHandoff)).toEqual(["out-of-scope"]);
    expect(codes(check({ "src/a/x.ts": "1" }, { "src/a/x.ts": "2" }))).toEqual(["task-missing"]);
  });

  it("detects secrets in evidence without repeating them", () => {
    const token = `ghp_${"A1b2C3d4".repeat(5)}`;
    const report = check(
      board(defs, {}, 0),
      board(defs, { a: claimed("carol") }, 1, { "state/evidence/a.md": `ok\ntoken: ${token}\n` }),
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "secret-detected", path: "state/evidence/a.md", line: 2 }),
    ]);
    expect(JSON.stringify(report)).not.toContain(token);
    expect(JSON.stringify(report)).not.toContain("A1b2C3d4");
  });

  it("points at the JSON path and line of a malformed file", () => {
    const broken = check(board(defs, {}, 0), {
      ...board(defs, {}, 0),
      "state/tasks.json": '{"revision": 1,\n "tasks": {\n',
    });
    expect(broken.violations).toEqual([expect.objectContaining({ code: "state-invalid", path: "state/tasks.json" })]);
    const wrong = check(board(defs, {}, 0), {
      ...board(defs, {}, 0),
      "state/tasks.json": '{\n  "revision": 1,\n  "tasks": {\n    "a": { "status": "doing" }\n  }\n}\n',
    });
    expect(wrong.violations).toEqual([
      expect.objectContaining({ code: "state-invalid", path: "state/tasks.json", line: 4 }),
    ]);
    expect(wrong.violations[0]!.message).toContain("$.tasks.a.status");
  });
});

describe("board: audit", () => {
  it("is clean for a consistent board and finds what is wrong at rest", () => {
    const defs = [def("a"), def("b", { depends_on: ["a"] }), def("p"), def("r")];
    expect(audit(cfg, snapshot(board(defs, { a: claimed("carol") }, 1))).conclusion).toBe("success");
    const retiredOwner = entry("blocked", {
      blocked_by: ["r"],
      history: [step("claim", "todo", "in_progress", "dave/1"), step("escalate", "in_progress", "blocked", "dave/1")],
    });
    const report = audit(
      cfg,
      snapshot(
        board(
          defs,
          {
            a: claimed("carol"),
            b: claimed("carol"),
            p: retiredOwner,
            r: entry("in_progress", { owner: "dave/1", history: [step("claim", "todo", "in_progress", "dave/1")] }),
          },
          5,
          {
            "state/evidence/x.md": "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
            "state/handoffs/p.md": { kind: "symlink", target: "/etc/shadow" },
          },
        ),
      ),
    );
    expect(new Set(codes(report))).toEqual(
      new Set(["owner-limit", "agent-retired", "dependency-unmet", "secret-detected", "path-escape"]),
    );
  });

  it("lists the unblock the bot would make once a resolver is done", () => {
    const defs = [def("p"), def("r")];
    const report = audit(
      cfg,
      snapshot(
        board(
          defs,
          {
            p: entry("blocked", {
              blocked_by: ["r"],
              history: [step("claim", "todo", "in_progress", "x/1"), step("escalate", "in_progress", "blocked", "x/1")],
            }),
            r: entry("done", {
              history: [
                step("claim", "todo", "in_progress", "y"),
                step("submit", "in_progress", "review", "y", { evidence: "state/evidence/r.md" }),
                step("approve", "review", "done", "quinn"),
              ],
            }),
          },
          5,
          { "state/evidence/r.md": "ok", "state/handoffs/r.md": "ok" },
        ),
      ),
    );
    expect(report.records).toEqual([{ task: "p", from: "blocked", to: "todo", by: "taskgate[bot]", kind: "unblock" }]);
  });

  it("never falls back to anyone with write permission when the reviewer role is not defined", () => {
    const plain = config("preset: board\n");
    const defs = [def("a")];
    const b = snapshot(board(defs, { a: claimed("carol") }, 1, EVIDENCE));
    const h = snapshot(board(defs, { a: submitted("carol") }, 2, EVIDENCE));
    const report = evaluate(
      plain,
      b,
      h,
      pullRequest(b, h, { reviews: [approve("dave")], permissions: { dave: "admin" } }),
    );
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.approvers).toEqual(["role:qa"]);
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "state-invalid", task: "a", path: "planning/tasks.json" }),
    ]);
    expect(report.violations[0]!.message).toContain('reviewer_role "qa" is not a role');
    expect(audit(plain, h).violations.map((item) => item.code)).toEqual(["state-invalid", "state-invalid"]);
  });

  it("works with `preset: board` alone on an empty repository", () => {
    expect(audit(config("preset: board\n"), snapshot({})).conclusion).toBe("success");
  });
});

describe("secret patterns", () => {
  it.each([
    ["github token", `ghp_${"x".repeat(36)}`],
    ["fine-grained token", `github_pat_${"A".repeat(30)}`],
    ["aws key id", "AKIAIOSFODNN7EXAMPLE"],
    ["private key", "-----BEGIN OPENSSH PRIVATE KEY-----"],
    ["password", "password = hunter2hunter2"],
    ["quoted api key", 'api_key: "sk-live-1234567890"'],
  ])("finds a %s", (_, text) => {
    expect(scanSecrets(`intro\n${text}\n`)).toEqual([{ line: 2, kind: expect.any(String) }]);
  });

  it.each(["password: <redacted>", "password = ${DB_PASSWORD}", "the password is rotated weekly", "api_key: ***"])(
    "ignores a placeholder: %s",
    (text) => {
      expect(scanSecrets(text)).toEqual([]);
    },
  );
});

describe("JSON syntax errors", () => {
  it.each([
    ["garbage{", 1],
    ['{\n  "revision": 1,\n  "tasks": {\n    "a": { "status": "todo", }\n  }\n}\n', 4],
    ['{\n  "revision": 1,\n  "tasks": {\n', 4],
    ['{"a": 1}\n\n{"b": 2}', 3],
  ])("names the line of %j", (text, line) => {
    const report = check(board([def("a")], {}, 0), { ...board([def("a")], {}, 0), "state/tasks.json": text });
    expect(report.violations).toEqual([expect.objectContaining({ code: "state-invalid", line })]);
  });
});
