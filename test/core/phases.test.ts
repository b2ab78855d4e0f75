import { describe, expect, it } from "vitest";
import { audit, evaluate } from "../../src/core/evaluate.js";
import type { Report } from "../../src/core/kernel/types.js";
import {
  SPEC,
  approve,
  botStep,
  codes,
  config,
  prHistory,
  pullRequest,
  snapshot,
  task,
  type FileSpec,
  type PrSpec,
  type Step,
} from "../helpers/phases.js";

const cfg = config();

function check(base: Record<string, FileSpec>, head: Record<string, FileSpec>, spec: PrSpec = {}, conf = cfg): Report {
  const b = snapshot(base, "base");
  const h = snapshot(head, "head");
  return evaluate(conf, b, h, pullRequest(b, h, spec));
}

const PLANNED = { ...SPEC, "DESIGN.md": "design\n" };
const WRITE = { bob: "write" };
/** Every artifact up to the referee's verdict. */
const REFEREED = { ...SPEC, "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };

describe("phases: transitions", () => {
  it("accepts one legal edge and leaves the gate pending", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "research:awaiting_approval", SPEC));
    expect(report.conclusion).toBe("action_required");
    expect(report.violations).toEqual([]);
    expect(report.pending).toHaveLength(1);
    expect(report.pending[0]).toMatchObject({
      code: "approval-required",
      task: "t1",
      approvers: ["anyone with write permission"],
    });
    expect(report.transitions).toEqual([{ task: "t1", from: "research", to: "research:awaiting_approval" }]);
  });

  it("refuses an edge the workflow does not have", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "implement", SPEC));
    expect(codes(report)).toContain("illegal-transition");
    expect(report.violations[0]).toMatchObject({ path: "tasks/t1/.state", line: 1 });
    expect(report.violations[0]!.hint).toContain("research:awaiting_approval");
  });

  it("names the next states when no path leads to the new state", () => {
    const all = { ...REFEREED, "VERDICT.md": "PASS" };
    const report = check(task("t1", "complete", all), task("t1", "research", all));
    expect(report.violations[0]).toMatchObject({
      code: "illegal-transition",
      message: "t1 cannot move from complete to research",
    });
    expect(report.violations[0]!.hint).toBe("complete is a final state.");
  });

  it("accepts a path of several edges when every phase left has its artifact", () => {
    const base = task("t1", "implement", SPEC);
    const head = task("t1", "adversarial_bug_find", { ...SPEC, "BUG_REPORT.md": "bugs\n" });
    const report = check(base, head);
    expect(report.conclusion).toBe("success");
    expect(report.transitions).toEqual([{ task: "t1", from: "implement", to: "adversarial_bug_find" }]);
  });

  it("requires the artifact of every phase left on the way", () => {
    const report = check(task("t1", "implement", SPEC), task("t1", "adversarial_bug_find", SPEC));
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "artifact-missing", path: "tasks/t1/BUG_REPORT.md" }),
    ]);
  });

  it("never lets the author cross a gate: P:approved is the bot's", () => {
    const report = check(task("t1", "research:awaiting_approval", SPEC), task("t1", "research:approved", SPEC));
    expect(codes(report)).toEqual(["illegal-transition"]);
    expect(report.violations[0]!.message).toContain("research gate");
  });

  it("refuses a path that runs through a gate even when the edges exist", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "design", SPEC));
    expect(codes(report)).toContain("illegal-transition");
  });

  it("starts a new task at `new` and lets it move on in the same PR", () => {
    const created = check({}, task("t1", "research"));
    expect(created.conclusion).toBe("success");
    expect(created.transitions).toEqual([{ task: "t1", from: null, to: "research" }]);
    const skipping = check({}, task("t1", "implement", SPEC));
    expect(codes(skipping)).toContain("illegal-transition");
    expect(skipping.violations.find((item) => item.code === "illegal-transition")!.message).toContain("starts at new");
  });

  it("reports a deleted task and a deleted .state", () => {
    const gone = check(task("t1", "research", SPEC), {});
    expect(codes(gone)).toEqual(["task-deleted"]);
    expect(gone.transitions).toEqual([{ task: "t1", from: "research", to: null }]);
    const stateGone = check(task("t1", "research", SPEC), { "tasks/t1/SPEC.md": SPEC["SPEC.md"] });
    expect(stateGone.violations).toEqual([expect.objectContaining({ code: "task-deleted", path: "tasks/t1/.state" })]);
  });

  it("names an unknown state and suggests the nearest one", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "reserch:awaiting_approval", SPEC));
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "state-invalid", path: "tasks/t1/.state", line: 1 }),
    ]);
    expect(report.violations[0]!.hint).toContain('"research:awaiting_approval"');
  });

  it("refuses a .state with several lines, an empty one, and a symlinked one", () => {
    expect(codes(check(task("t1", "new"), { "tasks/t1/.state": "research\nimplement\n" }))).toEqual(["state-invalid"]);
    expect(codes(check(task("t1", "new"), { "tasks/t1/.state": "\n" }))).toEqual(["state-invalid"]);
    expect(codes(check(task("t1", "new"), { "tasks/t1/.state": { kind: "symlink", target: "../t2/.state" } }))).toEqual(
      ["path-escape"],
    );
  });
});

describe("phases: verdict", () => {
  const done = REFEREED;
  it("completes only on PASS, the first verdict word", () => {
    const pass = check(
      task("t1", "referee", done),
      task("t1", "complete", { ...done, "VERDICT.md": "Result: PASS (no FAIL found)\n" }),
    );
    expect(pass.conclusion).toBe("success");
    const fail = check(
      task("t1", "referee", done),
      task("t1", "complete", { ...done, "VERDICT.md": "FAIL, though PASS was close\n" }),
    );
    expect(codes(fail)).toEqual(["verdict-not-pass"]);
    const none = check(
      task("t1", "referee", done),
      task("t1", "complete", { ...done, "VERDICT.md": "PASSED maybe\n" }),
    );
    expect(codes(none)).toEqual(["verdict-not-pass"]);
  });

  it("sends FAIL and NEEDS_REVIEW to human_intervention, never PASS", () => {
    const review = check(
      task("t1", "referee", done),
      task("t1", "human_intervention", { ...done, "VERDICT.md": "NEEDS_REVIEW\n" }),
    );
    expect(review.conclusion).toBe("success");
    const pass = check(
      task("t1", "referee", done),
      task("t1", "human_intervention", { ...done, "VERDICT.md": "PASS\n" }),
    );
    expect(codes(pass)).toEqual(["illegal-transition"]);
  });

  it("holds a human_intervention exit pending until an eligible review, then records it", () => {
    const failed = { ...done, "VERDICT.md": "FAIL\n" };
    const base = task("t1", "human_intervention", failed);
    const head = task("t1", "implement", { ...failed, "NOTES.md": "retry\n" });
    const pending = check(base, head);
    expect(pending.conclusion).toBe("action_required");
    expect(pending.violations).toEqual([]);
    expect(pending.pending[0]!.message).toContain("human_intervention");
    const approved = check(base, head, { reviews: [approve("bob")], permissions: WRITE });
    expect(approved.conclusion).toBe("success");
    expect(approved.records).toEqual([
      {
        task: "t1",
        from: "human_intervention",
        to: "implement",
        by: "bob",
        kind: "approve",
        at: "2026-11-01T10:00:00Z",
        reviews: [{ by: "bob", at: "2026-11-01T10:00:00Z" }],
      },
    ]);
  });
});

describe("phases: artifacts", () => {
  it("forbids an artifact of a later phase", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "research", { ...SPEC, "BUG_REPORT.md": "early\n" }));
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "artifact-forbidden", path: "tasks/t1/BUG_REPORT.md" }),
    ]);
  });

  it("refuses an empty artifact", () => {
    const report = check(task("t1", "research", SPEC), task("t1", "research:awaiting_approval", { "SPEC.md": "  \n" }));
    expect(codes(report)).toEqual(["artifact-empty"]);
  });

  it("refuses a symlinked artifact", () => {
    const report = check(
      task("t1", "research", SPEC),
      task("t1", "research:awaiting_approval", { "SPEC.md": { kind: "symlink", target: "/etc/passwd" } }),
    );
    expect(codes(report)).toContain("path-escape");
  });

  it("allows earlier artifacts after a rework loop through human_intervention", () => {
    const all = { ...REFEREED, "VERDICT.md": "FAIL" };
    const looped = snapshot({
      ...task("t1", "implement", all),
      "tasks/t1/.state.approvals":
        "research:approved|2026-01-01T00:00:00Z|bob\nhuman_intervention:approved|2026-02-01T00:00:00Z|bob\n",
      ".github/taskgate.yml": "preset: phases\n",
    });
    expect(audit(cfg, looped).violations).toEqual([]);
    const notLooped = snapshot({
      ...task("t1", "implement", all),
      "tasks/t1/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
    });
    expect(audit(cfg, notLooped).violations.map((item) => item.code)).toEqual([
      "artifact-forbidden",
      "artifact-forbidden",
      "artifact-forbidden",
      "artifact-forbidden",
    ]);
  });
});

describe("phases: approvals log", () => {
  const AT = "2026-11-01T10:00:00Z";
  const start = task("t1", "research", SPEC);
  const awaiting = { "tasks/t1/.state": "research:awaiting_approval\n" };
  const record = (login: string, at = AT) => ({
    "tasks/t1/.state": "research:approved\n",
    "tasks/t1/.state.approvals": `research:approved|${at}|${login}\n`,
  });
  const run = (steps: Step[], spec: PrSpec = {}) => {
    const { base, head, pr } = prHistory(start, steps, { permissions: WRITE, ...spec });
    return evaluate(cfg, base, head, pr);
  };
  const recorded = (login: string, spec: PrSpec) =>
    run([{ sha: "c1", changes: awaiting }, botStep("c2", record(login))], spec);

  it("accepts the bot's record backed by an eligible review", () => {
    const report = recorded("bob", { reviews: [approve("bob", "c1")] });
    expect(report.violations).toEqual([]);
    expect(report.conclusion).toBe("success");
    expect(report.transitions).toEqual([{ task: "t1", from: "research", to: "research:approved" }]);
  });

  it("flags a line that no review backs as forged", () => {
    const report = recorded("bob", {});
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "approval-forged", path: "tasks/t1/.state.approvals", line: 1 }),
    ]);
  });

  it("flags a line naming a bot or a reviewer without permission as forged", () => {
    const bot = recorded("taskgate[bot]", {
      reviews: [approve("taskgate[bot]", "c1")],
      permissions: { "taskgate[bot]": "admin" },
    });
    expect(codes(bot)).toContain("approval-forged");
    const reader = recorded("bob", { reviews: [approve("bob", "c1")], permissions: { bob: "read" } });
    expect(codes(reader)).toContain("approval-forged");
  });

  it("flags a line naming the author as self-approval", () => {
    const report = recorded("carol", { reviews: [approve("carol", "c1")], permissions: { carol: "admin" } });
    expect(codes(report)).toContain("approval-self");
  });

  it("flags a line whose review predates a later push to the task as stale", () => {
    const report = run(
      [
        { sha: "c1", changes: awaiting },
        { sha: "c2", changes: { "tasks/t1/SPEC.md": "# Spec\nchanged after the review\n" } },
        botStep("c3", record("bob")),
      ],
      { reviews: [approve("bob", "c1")] },
    );
    expect(codes(report)).toContain("approval-stale");
  });

  it("keeps a recorded approval valid while the author works on in later phases", () => {
    const report = run(
      [
        { sha: "c1", changes: awaiting },
        botStep("c2", record("bob")),
        { sha: "c3", changes: { "tasks/t1/.state": "design\n" } },
      ],
      { reviews: [approve("bob", "c1")] },
    );
    expect(report.violations).toEqual([]);
    expect(report.conclusion).toBe("success");
  });

  it("refuses a rewritten log", () => {
    const withLine = {
      ...task("t1", "design", SPEC),
      "tasks/t1/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
    };
    const rewritten = {
      ...task("t1", "design", SPEC),
      "tasks/t1/.state.approvals": "research:approved|2026-01-01T00:00:00Z|eve\n",
    };
    const report = check(withLine, rewritten);
    expect(report.violations).toContainEqual(
      expect.objectContaining({ code: "history-rewritten", path: "tasks/t1/.state.approvals", line: 1 }),
    );
    const truncated = check(withLine, { ...task("t1", "design", SPEC), "tasks/t1/.state.approvals": "" });
    expect(codes(truncated)).toContain("history-rewritten");
  });

  it("names a garbled line with its line number", () => {
    const head = {
      ...task("t1", "research", SPEC),
      "tasks/t1/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\nlooks good to me\n",
    };
    const report = check(task("t1", "research", SPEC), head);
    expect(report.violations).toContainEqual(
      expect.objectContaining({ code: "state-invalid", path: "tasks/t1/.state.approvals", line: 2 }),
    );
  });
});

describe("phases: edit scope", () => {
  it("keeps a planning phase inside its task folder", () => {
    const report = check(
      { ...task("t1", "research", SPEC), "src/app.ts": "a" },
      { ...task("t1", "research", { "SPEC.md": "more\n" }), "src/app.ts": "b" },
    );
    expect(report.violations).toEqual([expect.objectContaining({ code: "out-of-scope", path: "src/app.ts" })]);
  });

  it("lets implement edit project files", () => {
    const report = check(
      { ...task("t1", "implement", SPEC), "src/app.ts": "a" },
      { ...task("t1", "implement", { ...SPEC, "NOTES.md": "n" }), "src/app.ts": "b" },
    );
    expect(report.conclusion).toBe("success");
  });

  it("takes the union of the states passed in the PR", () => {
    const approved = { "tasks/t1/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n" };
    const report = check(
      { ...task("t1", "research:approved", SPEC), ...approved, "src/app.ts": "a" },
      { ...task("t1", "bug_find", SPEC), ...approved, "src/app.ts": "b" },
    );
    expect(report.conclusion).toBe("success");
  });

  it("never lets a task PR change framework files", () => {
    const report = check(
      { ...task("t1", "implement", SPEC), ".github/workflows/ci.yml": "a" },
      { ...task("t1", "implement", { ...SPEC, "x.md": "x" }), ".github/workflows/ci.yml": "b" },
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "out-of-scope", path: ".github/workflows/ci.yml" }),
    ]);
  });

  it("reports task-missing for a PR that touches no task", () => {
    const report = check({ "src/app.ts": "a" }, { "src/app.ts": "b" });
    expect(codes(report)).toEqual(["task-missing"]);
  });

  it("lets maintainers change framework files without a task, but not project files", () => {
    const conf = config("preset: phases\nmaintainers: [Carol]\n");
    const framework = check({ ".github/workflows/ci.yml": "a" }, { ".github/workflows/ci.yml": "b" }, {}, conf);
    expect(framework.conclusion).toBe("success");
    const project = check({ "src/app.ts": "a" }, { "src/app.ts": "b" }, {}, conf);
    expect(codes(project)).toEqual(["task-missing"]);
    const other = check(
      { ".github/workflows/ci.yml": "a" },
      { ".github/workflows/ci.yml": "b" },
      { author: "mallory" },
      conf,
    );
    expect(codes(other)).toEqual(["task-missing"]);
  });

  it("can be told not to require a task for project files", () => {
    const conf = config("preset: phases\nrequire_task: false\n");
    expect(check({ "src/app.ts": "a" }, { "src/app.ts": "b" }, {}, conf).conclusion).toBe("success");
    expect(codes(check({ ".github/x.yml": "a" }, { ".github/x.yml": "b" }, {}, conf))).toEqual(["task-missing"]);
  });

  it("judges an edited config by the base one but validates the new one", () => {
    const conf = config("preset: phases\nmaintainers: [carol]\n");
    const report = check(
      { ".github/taskgate.yml": "preset: phases\n" },
      { ".github/taskgate.yml": "preset: phases\napprovals:\n  count: zero\n" },
      {},
      conf,
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "config-invalid", path: ".github/taskgate.yml", line: 3 }),
    ]);
  });

  it("refuses invalid task ids and untracked folders", () => {
    const bad = check({}, { "tasks/-x/.state": "new\n" });
    expect(codes(bad)).toEqual(["task-invalid-id"]);
    const dots = check({}, { "tasks/a..b/.state": "new\n" });
    expect(codes(dots)).toEqual(["task-invalid-id"]);
    const untracked = check({}, { "tasks/t9/SPEC.md": "x\n" });
    expect(codes(untracked)).toEqual(["task-untracked"]);
  });
});

describe("review-as-approval", () => {
  const base = task("t1", "research", SPEC);
  const head = task("t1", "research:awaiting_approval", SPEC);
  const judge = (spec: PrSpec, conf = cfg) => check(base, head, spec, conf);

  it("records P:approved once an eligible reviewer approves", () => {
    const report = judge({ reviews: [approve("bob")], permissions: WRITE });
    expect(report.conclusion).toBe("success");
    expect(report.records).toEqual([
      {
        task: "t1",
        from: "research:awaiting_approval",
        to: "research:approved",
        by: "bob",
        kind: "approve",
        at: "2026-11-01T10:00:00Z",
        reviews: [{ by: "bob", at: "2026-11-01T10:00:00Z" }],
      },
    ]);
  });

  it("takes each reviewer's latest decision; comments do not cancel", () => {
    const cancelled = judge({
      reviews: [
        approve("bob", "c1", "2026-11-01T10:00:00Z"),
        approve("bob", "c1", "2026-11-01T11:00:00Z", "CHANGES_REQUESTED"),
      ],
      permissions: WRITE,
    });
    expect(cancelled.records).toEqual([]);
    const dismissed = judge({
      reviews: [
        approve("bob", "c1", "2026-11-01T10:00:00Z"),
        approve("bob", "c1", "2026-11-01T11:00:00Z", "DISMISSED"),
      ],
      permissions: WRITE,
    });
    expect(dismissed.records).toEqual([]);
    const comment = judge({
      reviews: [
        approve("bob", "c1", "2026-11-01T10:00:00Z"),
        approve("bob", "c1", "2026-11-01T11:00:00Z", "COMMENTED"),
      ],
      permissions: WRITE,
    });
    expect(comment.records).toHaveLength(1);
    const outOfOrder = judge({
      reviews: [
        approve("bob", "c1", "2026-11-01T12:00:00Z"),
        approve("bob", "c1", "2026-11-01T11:00:00Z", "CHANGES_REQUESTED"),
      ],
      permissions: WRITE,
    });
    expect(outOfOrder.records).toHaveLength(1);
  });

  it("never counts the author, a contributor or a bot", () => {
    expect(judge({ reviews: [approve("Carol")], permissions: { carol: "admin" } }).records).toEqual([]);
    const contributor = judge({
      reviews: [approve("dave")],
      permissions: { dave: "admin" },
      commits: [
        { sha: "c0", author: "dave", files: ["src/x.ts"] },
        { sha: "c1", author: "carol", files: ["tasks/t1/.state"] },
      ],
    });
    expect(contributor.records).toEqual([]);
    expect(contributor.pending[0]!.message).toContain("dave pushed commits");
    expect(
      judge({ reviews: [{ ...approve("ci"), user: { login: "ci", type: "Bot" } }], permissions: { ci: "admin" } })
        .records,
    ).toEqual([]);
    expect(judge({ reviews: [approve("renovate[bot]")], permissions: { "renovate[bot]": "admin" } }).records).toEqual(
      [],
    );
  });

  it("honours allow_author and allow_contributor", () => {
    const conf = config("preset: phases\napprovals:\n  allow_author: true\n  allow_contributor: true\n");
    expect(judge({ reviews: [approve("carol")], permissions: { carol: "write" } }, conf).records).toHaveLength(1);
    const contributor = judge(
      {
        reviews: [approve("dave")],
        permissions: { dave: "write" },
        commits: [
          { sha: "c0", author: "dave", files: ["tasks/t1/SPEC.md"] },
          { sha: "c1", author: "carol", files: ["tasks/t1/.state"] },
        ],
      },
      conf,
    );
    expect(contributor.records).toHaveLength(1);
  });

  it("matches approvers by login (any case), @org/team and role:NAME", () => {
    const conf = config(
      'preset: phases\nroles:\n  lead: [erin, "@acme/leads"]\napprovals:\n  approvers: [BOB, "role:lead"]\n',
    );
    expect(judge({ reviews: [approve("bob")], permissions: WRITE }, conf).records).toHaveLength(1);
    expect(judge({ reviews: [approve("erin")], permissions: { erin: "write" } }, conf).records).toHaveLength(1);
    expect(
      judge({ reviews: [approve("fay")], permissions: { fay: "write" }, teams: { "@acme/leads": ["Fay"] } }, conf)
        .records,
    ).toHaveLength(1);
    const outsider = judge({ reviews: [approve("gus")], permissions: { gus: "admin" } }, conf);
    expect(outsider.records).toEqual([]);
    expect(outsider.pending[0]!.approvers).toEqual(["BOB", "role:lead"]);
  });

  it("requires min_permission", () => {
    expect(judge({ reviews: [approve("bob")], permissions: { bob: "triage" } }).records).toEqual([]);
    expect(judge({ reviews: [approve("bob")] }).records).toEqual([]);
    const conf = config("preset: phases\napprovals:\n  min_permission: admin\n");
    expect(judge({ reviews: [approve("bob")], permissions: { bob: "maintain" } }, conf).records).toEqual([]);
    expect(judge({ reviews: [approve("bob")], permissions: { bob: "admin" } }, conf).records).toHaveLength(1);
  });

  it("needs `count` distinct approvals, per gate if configured", () => {
    const conf = config("preset: phases\napprovals:\n  gates:\n    research: { count: 2 }\n");
    const one = judge({ reviews: [approve("bob")], permissions: { bob: "write", erin: "write" } }, conf);
    expect(one.conclusion).toBe("action_required");
    expect(one.pending[0]!.message).toContain("1 of 2");
    const two = judge(
      {
        reviews: [approve("bob"), approve("erin", "c1", "2026-11-01T10:05:00Z")],
        permissions: { bob: "write", erin: "write" },
      },
      conf,
    );
    expect(two.records).toEqual([
      expect.objectContaining({
        by: "bob,erin",
        reviews: [
          { by: "bob", at: "2026-11-01T10:00:00Z" },
          { by: "erin", at: "2026-11-01T10:05:00Z" },
        ],
      }),
    ]);
  });

  it("invalidates when the task's content changed after the review, not when other tasks changed", () => {
    const start2 = { ...task("t1", "research", SPEC), ...task("t2", "research", { "SPEC.md": "x" }) };
    const steps = (changes: Record<string, string>, author = "carol"): Step[] => [
      { sha: "c1", changes: { "tasks/t1/.state": "research:awaiting_approval\n" } },
      { sha: "c2", author, changes },
    ];
    const run = (changes: Record<string, string>, author?: string, conf = cfg) => {
      const { base, head, pr } = prHistory(start2, steps(changes, author), {
        reviews: [approve("bob", "c1")],
        permissions: WRITE,
      });
      return evaluate(conf, base, head, pr);
    };
    const stale = run({ "tasks/t1/SPEC.md": "# Spec\nrewritten\n" });
    expect(stale.records).toEqual([]);
    expect(stale.pending[0]!.message).toContain("tasks/t1/SPEC.md changed after bob reviewed c1");
    expect(run({ "tasks/t2/SPEC.md": "y" }).records).toHaveLength(1);
    // Judged by content: a bot commit that changes the task's files is a change all the same.
    expect(run({ "tasks/t1/SPEC.md": "# Spec\nrewritten\n" }, "taskgate[bot]").records).toEqual([]);
    const off = config("preset: phases\napprovals:\n  invalidate_on_push: false\n");
    expect(run({ "tasks/t1/SPEC.md": "# Spec\nrewritten\n" }, "carol", off).records).toHaveLength(1);
  });

  it("treats a review of a commit no longer in the PR as stale", () => {
    const report = judge({ reviews: [approve("bob", "gone")], permissions: WRITE });
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.message).toContain("cannot be read");
  });
});

describe("phases: audit", () => {
  const audited = (files: Record<string, FileSpec>) => audit(cfg, snapshot(files));

  it("is clean for consistent tasks", () => {
    const report = audited({
      ...task("a", "new"),
      ...task("b", "research", SPEC),
      ...task("c", "design", PLANNED),
      "tasks/c/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
    });
    expect(report).toMatchObject({ conclusion: "success", violations: [] });
  });

  it("finds out-of-order artifacts, state/artifact inconsistency and folders without .state", () => {
    const report = audited({
      ...task("early", "research", { ...SPEC, "VERDICT.md": "PASS" }),
      ...task("hollow", "bug_find", {}),
      "tasks/hollow/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
      "tasks/manual/SPEC.md": "x",
    });
    expect(report.violations.map((item) => [item.code, item.path])).toEqual([
      ["artifact-forbidden", "tasks/early/VERDICT.md"],
      ["artifact-missing", "tasks/hollow/SPEC.md"],
      ["task-untracked", "tasks/manual"],
    ]);
  });

  it("requires the artifact of an optional phase known from its approval line", () => {
    const report = audited({
      ...task("t", "implement", SPEC),
      "tasks/t/.state.approvals":
        "research:approved|2026-01-01T00:00:00Z|bob\ndesign:approved|2026-01-02T00:00:00Z|bob\n",
    });
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "artifact-missing", path: "tasks/t/DESIGN.md" }),
    ]);
  });

  it("flags a task past a gate with no approval line", () => {
    const report = audited(task("t", "implement", SPEC));
    expect(report.violations).toEqual([expect.objectContaining({ code: "approval-forged", task: "t" })]);
  });

  it("flags a completed task whose verdict is not PASS", () => {
    const all = { ...REFEREED, "VERDICT.md": "FAIL" };
    const report = audited({
      ...task("t", "complete", all),
      "tasks/t/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\n",
    });
    expect(report.violations).toEqual([expect.objectContaining({ code: "verdict-not-pass" })]);
  });

  it("flags invalid ids", () => {
    expect(audited({ "tasks/.hidden/.state": "new\n" }).violations).toEqual([
      expect.objectContaining({ code: "task-invalid-id", path: "tasks/.hidden" }),
    ]);
  });
});
