/**
 * Adopting work in flight: tasks that first appear in a pull request past a gate, at the state their
 * artifacts show. One eligible review adopts them all; the bot records `adopted:approved` in each;
 * nothing else that appears past a gate gets through, and an adoption record helps nothing else.
 */
import { describe, expect, it } from "vitest";
import { audit, workflowOf, writeRecords } from "../../src/core/evaluate.js";
import { gatesBefore, placeByArtifacts } from "../../src/core/phases/adoption.js";
import type { Report, Snapshot } from "../../src/core/kernel/types.js";
import type { Workflow } from "../../src/core/phases/workflow.js";
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
  runSteps,
  snapshot,
  task,
  type FileSpec,
  type PrSpec,
  type Step,
} from "../helpers/phases.js";

const DESIGNED = { ...SPEC, "DESIGN.md": "# Design\n" };
const BUGS = { ...SPEC, "BUG_REPORT.md": "bugs\n" };
const WRITE = { bob: "write", erin: "write", dave: "write", carol: "write" };

function run(start: Record<string, FileSpec>, steps: Step[], spec: PrSpec = {}, conf = phases) {
  return runSteps(start, steps, { permissions: WRITE, ...spec }, conf);
}

/** Work in flight: t1 designed (past research), t2 with a bug report (past research), t3 a plain spec. */
const ADOPTING: Record<string, FileSpec> = {
  ...task("t1", "design", DESIGNED),
  ...task("t2", "bug_find", BUGS),
  ...task("t3", "research", SPEC),
};

/** What the bot commits for a report's records, written by the core's one writer. */
function recorded(head: Snapshot, report: Report, conf = phases): Record<string, FileSpec> {
  return Object.fromEntries(writeRecords(conf, head, report.records));
}

describe("adoption: pending, recorded, green", () => {
  it("waits for one review, turns it into adopt records, and passes once the bot commits them", () => {
    const pending = run({}, [{ sha: "c1", changes: ADOPTING }]).report;
    expect(pending.violations).toEqual([]);
    expect(pending.conclusion).toBe("action_required");
    expect(pending.pending).toHaveLength(1);
    expect(pending.pending[0]).toMatchObject({
      code: "approval-required",
      approvers: ["anyone with write permission"],
    });
    expect(pending.pending[0]!.message).toContain(
      "adoption of 2 task(s) already past a gate waits for 1 approving review(s)",
    );
    expect(pending.pending[0]!.message).toContain("at design, past research: t1");
    expect(pending.pending[0]!.message).toContain("at bug_find, past research: t2");
    expect(pending.pending[0]!.message).not.toContain("t3");
    expect(pending.transitions).toEqual([
      { task: "t1", from: null, to: "design" },
      { task: "t2", from: null, to: "bug_find" },
      { task: "t3", from: null, to: "research" },
    ]);

    const reviewed = run({}, [{ sha: "c1", changes: ADOPTING }], { reviews: [approve("bob", "c1")] });
    expect(reviewed.report.conclusion).toBe("success");
    expect(reviewed.report.records).toEqual([
      expect.objectContaining({ task: "t1", from: "design", to: "design", by: "bob", kind: "adopt", at: AT }),
      expect.objectContaining({ task: "t2", from: "bug_find", to: "bug_find", by: "bob", kind: "adopt", at: AT }),
    ]);
    const files = recorded(reviewed.head, reviewed.report);
    expect(files).toEqual({
      "tasks/t1/.state.approvals": line("adopted", "bob"),
      "tasks/t2/.state.approvals": line("adopted", "bob"),
    });

    const done = run({}, [{ sha: "c1", changes: ADOPTING }, botStep("c2", files)], {
      reviews: [approve("bob", "c1")],
    });
    expect(done.report.violations).toEqual([]);
    expect(done.report.pending).toEqual([]);
    expect(done.report.records).toEqual([]);
    expect(done.report.conclusion).toBe("success");
    // At rest the adoption stands for the gates before the adopted state.
    expect(audit(phases, done.head).violations).toEqual([]);
  });

  it("adopts a folder committed on the base without .state, and any number of gates at once", () => {
    const planned = { ...DESIGNED, "TEST_PLAN.md": "plan\n" };
    const base = {
      "tasks/t1/SPEC.md": SPEC["SPEC.md"],
      "tasks/t1/DESIGN.md": "# Design\n",
      "tasks/t1/TEST_PLAN.md": "plan\n",
    };
    const steps: Step[] = [{ sha: "c1", changes: { "tasks/t1/.state": "test_design\n" } }];
    const pending = run(base, steps).report;
    expect(pending.violations).toEqual([]);
    expect(pending.pending[0]!.message).toContain("at test_design, past research and design: t1");
    expect(pending.pending[0]).toMatchObject({ task: "t1", path: "tasks/t1/.state" });
    const reviewed = run(base, steps, { reviews: [approve("bob", "c1")] });
    const done = run(base, [...steps, botStep("c2", recorded(reviewed.head, reviewed.report))], {
      reviews: [approve("bob", "c1")],
    });
    expect(done.report.conclusion).toBe("success");
    expect(
      audit(
        phases,
        snapshot({ ...task("t1", "test_design", planned), ...{ "tasks/t1/.state.approvals": line("adopted", "bob") } }),
      ).violations,
    ).toEqual([]);
  });

  it("follows approvals.gates.adopted: who may approve an adoption, and how many", () => {
    const conf = config("preset: phases\napprovals:\n  gates:\n    adopted:\n      approvers: [erin]\n");
    const bob = run({}, [{ sha: "c1", changes: ADOPTING }], { reviews: [approve("bob", "c1")] }, conf).report;
    expect(bob.conclusion).toBe("action_required");
    expect(bob.pending[0]).toMatchObject({ approvers: ["erin"] });
    expect(bob.pending[0]!.message).toContain("bob is not among the approvers");
    const erin = run({}, [{ sha: "c1", changes: ADOPTING }], { reviews: [approve("erin", "c1")] }, conf).report;
    expect(erin.records.map((record) => [record.task, record.kind, record.by])).toEqual([
      ["t1", "adopt", "erin"],
      ["t2", "adopt", "erin"],
    ]);
  });
});

describe("adoption: records that do not stand", () => {
  it("refuses an adopted:approved line the author wrote, even with a review of the head holding it", () => {
    const forged = { ...task("t1", "design", DESIGNED), "tasks/t1/.state.approvals": line("adopted", "bob") };
    const report = run({}, [{ sha: "c1", changes: forged }], { reviews: [approve("bob", "c1")] }).report;
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "approval-forged", path: "tasks/t1/.state.approvals", line: 1 }),
    ]);
    expect(report.violations[0]!.message).toContain("no commit by taskgate[bot] added it");
    expect(report.records).toEqual([]);
  });

  it("refuses a bot-added line naming no review, or a reviewer who may not approve", () => {
    const steps = (login: string): Step[] => [
      { sha: "c1", changes: task("t1", "design", DESIGNED) },
      botStep("c2", { "tasks/t1/.state.approvals": line("adopted", login) }),
    ];
    const none = run({}, steps("erin"), { reviews: [approve("bob", "c1")] }).report;
    expect(codes(none)).toEqual(["approval-forged"]);
    expect(none.violations[0]!.message).toContain("erin gave no approving review");
    const reader = run({}, steps("bob"), { reviews: [approve("bob", "c1")], permissions: { bob: "read" } }).report;
    expect(codes(reader)).toEqual(["approval-forged"]);
  });

  it("holds the adoption to the content reviewed: a change after the review is stale", () => {
    const edit = { "tasks/t1/DESIGN.md": "# Design, changed after the review\n" };
    // Changed before anything is recorded: the review does not count, nothing to record.
    const before = run(
      {},
      [
        { sha: "c1", changes: ADOPTING },
        { sha: "c2", changes: edit },
      ],
      {
        reviews: [approve("bob", "c1")],
      },
    ).report;
    expect(before.conclusion).toBe("action_required");
    expect(before.records.map((record) => record.task)).toEqual(["t2"]);
    expect(before.pending[0]!.message).toContain("tasks/t1/DESIGN.md changed after bob reviewed c1");
    // Recorded on changed content.
    const onChanged = run(
      {},
      [
        { sha: "c1", changes: ADOPTING },
        { sha: "c2", changes: edit },
        botStep("c3", { "tasks/t1/.state.approvals": line("adopted", "bob") }),
      ],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(onChanged.violations).toEqual([expect.objectContaining({ code: "approval-stale", task: "t1" })]);
    // Changed after the record: the adoption vouches for the task as reviewed, so it is stale too.
    const after = run(
      {},
      [
        { sha: "c1", changes: ADOPTING },
        botStep("c2", {
          "tasks/t1/.state.approvals": line("adopted", "bob"),
          "tasks/t2/.state.approvals": line("adopted", "bob"),
        }),
        { sha: "c3", changes: edit },
      ],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(after.violations).toEqual([expect.objectContaining({ code: "approval-stale", task: "t1" })]);
    expect(after.violations[0]!.message).toContain("after the approval was recorded");
  });

  it("never counts the author's or a contributor's review, and refuses a record naming them", () => {
    const steps: Step[] = [
      { sha: "c1", changes: task("t1", "design", SPEC) },
      { sha: "c2", author: "dave", changes: { "tasks/t1/DESIGN.md": "# Design\n" } },
    ];
    const pending = run({}, steps, { reviews: [approve("carol", "c2"), approve("dave", "c2", LATER)] }).report;
    expect(pending.conclusion).toBe("action_required");
    expect(pending.records).toEqual([]);
    expect(pending.pending[0]!.message).toContain("carol is the author of the pull request");
    expect(pending.pending[0]!.message).toContain("dave pushed commits to the pull request");
    for (const [login, at] of [
      ["carol", AT],
      ["dave", LATER],
    ] as const) {
      const self = run({}, [...steps, botStep("c3", { "tasks/t1/.state.approvals": line("adopted", login, at) })], {
        reviews: [approve("carol", "c2"), approve("dave", "c2", LATER)],
      }).report;
      expect(codes(self)).toEqual(["approval-self"]);
    }
  });
});

describe("adoption: what is not an adoption fails as before", () => {
  it("refuses a new task past a gate at a state its artifacts do not show", () => {
    for (const [state, files] of [
      ["implement", SPEC],
      ["design:approved", DESIGNED],
      ["research:approved", SPEC],
    ] as const) {
      const report = run({}, [{ sha: "c1", changes: task("t1", state, files) }], {
        reviews: [approve("bob", "c1")],
      }).report;
      expect(codes(report)).toContain("illegal-transition");
      expect(report.violations.find((item) => item.code === "illegal-transition")!.message).toContain("starts at new");
      expect(report.records).toEqual([]);
    }
  });

  it("refuses a new task past a gate in a pull request that also touches an existing task", () => {
    const base = task("old", "research", SPEC);
    const report = run(
      base,
      [{ sha: "c1", changes: { ...task("t1", "design", DESIGNED), "tasks/old/SPEC.md": "# Spec, more\n" } }],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "illegal-transition", task: "t1", path: "tasks/t1/.state" }),
    ]);
    expect(report.violations[0]!.hint).toContain("taskgate upgrade");
    expect(report.records).toEqual([]);
    // And a bot-added adoption line does not help it.
    const lined = run(
      base,
      [
        { sha: "c1", changes: { ...task("t1", "design", DESIGNED), "tasks/old/SPEC.md": "# Spec, more\n" } },
        botStep("c2", { "tasks/t1/.state.approvals": line("adopted", "bob") }),
      ],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(codes(lined).sort()).toEqual(["approval-forged", "illegal-transition"]);
  });

  it("gives an adopted task no project files in the pull request that adopts it", () => {
    const report = run({}, [{ sha: "c1", changes: { ...task("t2", "bug_find", BUGS), "src/app.ts": "x\n" } }], {
      reviews: [approve("bob", "c1")],
    }).report;
    expect(report.violations).toEqual([expect.objectContaining({ code: "out-of-scope", path: "src/app.ts" })]);
  });
});

describe("adoption: an adoption record helps nothing else", () => {
  it("does not move a task that existed at the base past a gate", () => {
    const base = task("t1", "research", SPEC);
    const report = run(
      base,
      [
        { sha: "c1", changes: { "tasks/t1/.state": "design\n", "tasks/t1/DESIGN.md": "# Design\n" } },
        botStep("c2", { "tasks/t1/.state.approvals": line("adopted", "bob") }),
      ],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(codes(report).sort()).toEqual(["approval-forged", "illegal-transition"]);
    expect(report.violations.find((item) => item.code === "approval-forged")!.message).toContain(
      "t1 is not adopted by this pull request",
    );
    expect(report.records).toEqual([]);
    expect(report.pending).toEqual([]);
  });

  it("is never recorded for a task that existed at the base, even one the pull request leaves in place", () => {
    const base = task("t1", "research", SPEC);
    const report = run(base, [botStep("c1", { "tasks/t1/.state.approvals": line("adopted", "bob") })], {
      reviews: [approve("bob", "base")],
    }).report;
    expect(codes(report)).toEqual(["approval-forged"]);
  });

  it("lets the review that adopted a task open none of its later gates", () => {
    const adopted = { ...task("t1", "design", DESIGNED), "tasks/t1/.state.approvals": line("adopted", "bob") };
    const waiting = { "tasks/t1/.state": "design:awaiting_approval\n" };
    const pending = run(adopted, [{ sha: "c1", changes: waiting }], { reviews: [approve("bob", "c1")] }).report;
    expect(pending.conclusion).toBe("action_required");
    expect(pending.records).toEqual([]);
    expect(pending.pending[0]!.message).toContain("already recorded another gate of t1");
    const reused = run(
      adopted,
      [
        { sha: "c1", changes: waiting },
        botStep("c2", {
          "tasks/t1/.state": "design:approved\n",
          "tasks/t1/.state.approvals": line("adopted", "bob") + line("design", "bob"),
        }),
      ],
      { reviews: [approve("bob", "c1")] },
    ).report;
    expect(codes(reused)).toEqual(["approval-forged"]);
    expect(reused.violations[0]!.message).toContain("already records another approval of t1");
    // A new review opens the gate as usual.
    const fresh = run(adopted, [{ sha: "c1", changes: waiting }], { reviews: [approve("bob", "c1", LATER)] }).report;
    expect(fresh.records).toEqual([expect.objectContaining({ task: "t1", to: "design:approved", kind: "approve" })]);
  });
});

describe("adoption at rest", () => {
  const at = (state: string, files: Record<string, FileSpec>, log?: string) =>
    audit(
      phases,
      snapshot({ ...task("t1", state, files), ...(log !== undefined && { "tasks/t1/.state.approvals": log }) }),
    );

  it("counts the gates before the adopted state as passed, and no others", () => {
    expect(at("design", DESIGNED).violations.map((item) => item.code)).toEqual(["approval-forged"]);
    expect(at("design", DESIGNED, line("adopted", "bob")).violations).toEqual([]);
    // Adoption never places a task at an approved state: that gate needs its own line.
    const approved = at("design:approved", DESIGNED, line("adopted", "bob")).violations;
    expect(approved).toEqual([expect.objectContaining({ code: "approval-forged" })]);
    expect(approved[0]!.message).toContain("past the design gate");
    expect(at("design:approved", DESIGNED, line("adopted", "bob") + line("design", "erin")).violations).toEqual([]);
  });

  it("still requires the artifacts of the phases the task passed", () => {
    const report = at("bug_find", { "BUG_REPORT.md": "bugs\n" }, line("adopted", "bob"));
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "artifact-missing", path: "tasks/t1/SPEC.md" }),
    ]);
  });

  it("reads an adoption line as a record, and refuses a garbled one", () => {
    expect(at("design", DESIGNED, "adopted:approved|yesterday|bob\n").violations.map((item) => item.code)).toContain(
      "state-invalid",
    );
  });
});

describe("placing a folder by its artifacts", () => {
  const workflow: Workflow = (() => {
    const built = workflowOf(phases);
    if (!built.ok) throw new Error("no workflow");
    return built.workflow;
  })();
  const place = (...names: string[]) => placeByArtifacts(workflow, new Map(names.map((name) => [name, {}])));

  it.each([
    [[], "new", "no artifact", []],
    [["SPEC.md"], "research", "SPEC.md", []],
    [["SPEC.md", "DECOMPOSITION.md"], "decomposition", "DECOMPOSITION.md", ["research"]],
    [["SPEC.md", "DECOMPOSITION.md", "DESIGN.md"], "design", "DESIGN.md", ["research"]],
    [["SPEC.md", "DESIGN.md", "TEST_PLAN.md"], "test_design", "TEST_PLAN.md", ["research", "design"]],
    [["SPEC.md", "BUG_REPORT.md"], "bug_find", "BUG_REPORT.md", ["research"]],
    [
      ["SPEC.md", "BUG_REPORT.md", "ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"],
      "referee",
      "VERDICT.md",
      ["research"],
    ],
  ])("%j → %s", (names, state, from, gates) => {
    expect(place(...names)).toEqual({ state, from });
    expect(gatesBefore(workflow, state)).toEqual(gates);
  });

  it("places every folder where each artifact it holds is allowed", () => {
    for (const names of [
      ["SPEC.md", "DESIGN.md", "DECOMPOSITION.md", "TEST_PLAN.md", "BUG_REPORT.md"],
      ["DESIGN.md"],
    ]) {
      const { state } = place(...names);
      const allowed = workflow.allowedArtifacts(state, false);
      expect(names.every((name) => allowed.has(name))).toBe(true);
    }
  });
});

describe("the name of the adoption record", () => {
  it("is reserved: a workflow may not name a state or a phase `adopted`", () => {
    for (const yaml of [
      "preset: phases\nworkflow:\n  states:\n    adopted: { edit: [task] }\n  transitions:\n    - { from: new, to: adopted }\n",
      "preset: phases\nworkflow:\n  phases:\n    adopted: { artifact: ADOPTED.md }\n",
    ]) {
      const built = workflowOf(config(yaml));
      expect(built.ok).toBe(false);
      if (!built.ok) expect(built.issues.map((issue) => issue.message).join()).toContain("reserved for adoptions");
    }
  });
});
