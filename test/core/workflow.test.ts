import { describe, expect, it } from "vitest";
import { createModel, evaluate } from "../../src/core/evaluate.js";
import { PHASES_PRESET } from "../../src/core/phases/preset.js";
import { buildWorkflow, mergeWorkflow } from "../../src/core/phases/workflow.js";
import * as configModule from "../../src/core/kernel/config.js";
import { config, pullRequest, snapshot, task } from "../helpers/memory.js";

function workflowOf(yaml: string) {
  const result = buildWorkflow(mergeWorkflow(PHASES_PRESET, config(yaml).workflow));
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.workflow;
}

describe("workflow as data", () => {
  it("derives required and allowed artifacts from the graph", () => {
    const workflow = workflowOf("preset: phases\n");
    expect(workflow.requiredArtifacts("research")).toEqual([]);
    expect(workflow.requiredArtifacts("research:awaiting_approval")).toEqual(["SPEC.md"]);
    expect(workflow.requiredArtifacts("implement")).toEqual(["SPEC.md"]);
    expect([...workflow.requiredArtifacts("complete")].sort()).toEqual([
      "ADVERSARIAL_BUG_REPORT.md",
      "BUG_REPORT.md",
      "DOC_REVIEW.md",
      "SPEC.md",
      "VERDICT.md",
    ]);
    expect(workflow.allowedArtifacts("design", false).has("DECOMPOSITION.md")).toBe(true);
    expect(workflow.allowedArtifacts("decomposition", false).has("DESIGN.md")).toBe(false);
    expect(workflow.allowedArtifacts("implement", false).has("BUG_REPORT.md")).toBe(false);
    expect(workflow.allowedArtifacts("implement", true).has("BUG_REPORT.md")).toBe(true);
    expect(workflow.gatesBehind("implement").map((edge) => edge.to)).toEqual(["research:approved"]);
  });

  it("lets a config add a phase with its artifact, edges and a gate", () => {
    const conf = config(`preset: phases
workflow:
  states:
    security_review: { phase: security_review, edit: [task] }
  phases:
    security_review: { artifact: SECURITY.md }
  transitions:
    - { from: doc_review, to: security_review }
    - { from: security_review, to: referee }
  remove_transitions:
    - { from: doc_review, to: referee }
`);
    const docs = { "SPEC.md": "s", "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };
    const base = snapshot(task("t", "doc_review", docs));
    // doc_review → referee now runs through security_review, so its artifact is needed on the way.
    const skip = snapshot(task("t", "referee", docs));
    expect(evaluate(conf, base, skip, pullRequest(base, skip)).violations).toEqual([
      expect.objectContaining({ code: "artifact-missing", path: "tasks/t/SECURITY.md" }),
    ]);
    const through = snapshot(task("t", "referee", { ...docs, "SECURITY.md": "ok" }));
    expect(evaluate(conf, base, through, pullRequest(base, through)).conclusion).toBe("success");
    const created = createModel(conf);
    if (!created.ok) throw new Error("config");
    expect(created.model.audit(snapshot(task("t", "referee", docs))).violations.map((item) => item.code)).toContain(
      "artifact-missing",
    );
    const early = snapshot(task("t", "bug_find", { ...docs, "SECURITY.md": "too early" }));
    expect(created.model.audit(early).violations.map((item) => item.path)).toContain("tasks/t/SECURITY.md");
  });

  it("removes a state together with the preset edges that touch it", () => {
    const workflow = workflowOf("preset: phases\nworkflow:\n  states:\n    human_intervention: null\n");
    expect(workflow.has("human_intervention")).toBe(false);
    expect(workflow.edgesFrom("referee").map((edge) => edge.to)).toEqual(["complete"]);
  });

  it("rejects an unsound workflow with the key path", () => {
    const unknown = createModel(
      config("preset: phases\nworkflow:\n  transitions:\n    - { from: implement, to: shipping }\n"),
    );
    expect(unknown).toMatchObject({
      ok: false,
      issues: [{ message: 'implement → shipping: unknown state "shipping"' }],
    });
    const orphan = createModel(config("preset: phases\nworkflow:\n  states:\n    limbo: { edit: [task] }\n"));
    expect(orphan).toMatchObject({ ok: false, issues: [{ path: "workflow.states.limbo" }] });
    const shared = createModel(config("preset: phases\nworkflow:\n  phases:\n    design: { artifact: SPEC.md }\n"));
    expect(shared.ok).toBe(false);
  });

  it("names the line of a workflow problem", () => {
    const text = "preset: phases\nworkflow:\n  states:\n    limbo: { edit: [task] }\n";
    const created = createModel(config(text));
    if (created.ok) throw new Error("expected issues");
    expect(configModule.locateIssues(text, created.issues)).toEqual([
      expect.objectContaining({ path: "workflow.states.limbo", line: 4 }),
    ]);
  });

  it("refuses phases workflow overrides on a board", () => {
    expect(createModel(config("preset: board\nworkflow:\n  tasks_dir: work\n"))).toMatchObject({
      ok: false,
      issues: [{ path: "workflow" }],
    });
  });

  it("reports a config it cannot use as config-invalid instead of throwing", () => {
    const conf = config("preset: phases\nworkflow:\n  initial: nowhere\n");
    const empty = snapshot({});
    const report = evaluate(conf, empty, empty, pullRequest(empty, empty));
    expect(report.conclusion).toBe("failure");
    expect(report.violations[0]).toMatchObject({ code: "config-invalid" });
  });

  it("moves tasks in a custom tasks_dir", () => {
    const conf = config("preset: phases\nworkflow:\n  tasks_dir: work/items/\n");
    const base = snapshot(task("t", "new", {}, "work/items"));
    const head = snapshot(task("t", "research", {}, "work/items"));
    const report = evaluate(conf, base, head, pullRequest(base, head));
    expect(report).toMatchObject({ conclusion: "success", transitions: [{ task: "t", from: "new", to: "research" }] });
  });
});

describe("config paths", () => {
  it.each(["../outside", "/etc", "docs/../../x", "a\\b"])("refuses %s as a folder", (path) => {
    const { parseConfig } = configModule;
    const result = parseConfig(`preset: board\nrender:\n  path: "${path.replace(/\\/g, "\\\\")}"\n`);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]).toMatchObject({ path: "render.path", line: 3 });
  });
});
