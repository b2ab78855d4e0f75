/**
 * The `phases` preset: a folder per task, a state per folder, an artifact per phase, approval gates
 * after the planning phases. Pure data; `resolveWorkflow` turns it (plus a config's overrides) into
 * the graph the rules walk.
 */
import type { Config } from "../kernel/config.js";
import { buildWorkflow, mergeWorkflow, type WorkflowResult } from "./workflow.js";

export type EditScope = "task" | "project";

export interface StateDef {
  /** The phase whose artifact this state works on (absent for `new`, `complete`). */
  readonly phase?: string;
  /** The author stops here; the bot writes the approved state after an eligible review. */
  readonly awaiting?: boolean;
  /** What a task in this state may edit besides framework files (never). */
  readonly edit: readonly EditScope[];
  readonly terminal?: boolean;
}

export interface EdgeDef {
  readonly from: string;
  readonly to: string;
  /** Needs an approving review. */
  readonly gate?: boolean;
  /** Needs the verdict file to say PASS (`pass`) or FAIL/NEEDS_REVIEW (`not-pass`). */
  readonly verdict?: "pass" | "not-pass";
}

export interface VerdictDef {
  readonly phase: string;
  readonly file: string;
  readonly pass: string;
  readonly fail: readonly string[];
}

export interface WorkflowDef {
  readonly tasksDir: string;
  readonly initial: string;
  /** Ordered: the order is the pipeline order used in rendered matrices and messages. */
  readonly states: Readonly<Record<string, StateDef>>;
  /** Phase → artifact file produced in it (null: the phase produces no task artifact). */
  readonly phases: Readonly<Record<string, string | null>>;
  readonly transitions: readonly EdgeDef[];
  readonly verdict: VerdictDef;
}

const APPROVAL_PHASES = ["research", "decomposition", "design", "test_design"] as const;

function approvalStates(): Record<string, StateDef> {
  const states: Record<string, StateDef> = {};
  for (const phase of APPROVAL_PHASES) {
    states[phase] = { phase, edit: ["task"] };
    states[`${phase}:awaiting_approval`] = { phase, awaiting: true, edit: ["task"] };
    states[`${phase}:approved`] = { phase, edit: ["task"] };
  }
  return states;
}

function approvalEdges(): EdgeDef[] {
  return APPROVAL_PHASES.flatMap((phase) => [
    { from: phase, to: `${phase}:awaiting_approval` },
    { from: `${phase}:awaiting_approval`, to: `${phase}:approved`, gate: true },
  ]);
}

export const PHASES_PRESET: WorkflowDef = {
  tasksDir: "tasks",
  initial: "new",
  states: {
    new: { edit: ["task"] },
    ...approvalStates(),
    implement: { phase: "implement", edit: ["task", "project"] },
    bug_find: { phase: "bug_find", edit: ["task", "project"] },
    adversarial_bug_find: { phase: "adversarial_bug_find", edit: ["task", "project"] },
    doc_review: { phase: "doc_review", edit: ["task"] },
    referee: { phase: "referee", edit: ["task"] },
    complete: { edit: ["task"], terminal: true },
    human_intervention: { phase: "human_intervention", edit: ["task"] },
  },
  phases: {
    research: "SPEC.md",
    decomposition: "DECOMPOSITION.md",
    design: "DESIGN.md",
    test_design: "TEST_PLAN.md",
    implement: null,
    bug_find: "BUG_REPORT.md",
    adversarial_bug_find: "ADVERSARIAL_BUG_REPORT.md",
    doc_review: "DOC_REVIEW.md",
    referee: "VERDICT.md",
    human_intervention: null,
  },
  transitions: [
    { from: "new", to: "research" },
    ...approvalEdges(),
    { from: "research:approved", to: "decomposition" },
    { from: "research:approved", to: "design" },
    { from: "research:approved", to: "implement" },
    { from: "decomposition:approved", to: "design" },
    { from: "decomposition:approved", to: "implement" },
    { from: "design:approved", to: "test_design" },
    { from: "design:approved", to: "implement" },
    { from: "test_design:approved", to: "implement" },
    { from: "implement", to: "bug_find" },
    { from: "bug_find", to: "adversarial_bug_find" },
    { from: "adversarial_bug_find", to: "doc_review" },
    { from: "doc_review", to: "referee" },
    { from: "referee", to: "complete", verdict: "pass" },
    { from: "referee", to: "human_intervention", verdict: "not-pass" },
    { from: "human_intervention", to: "implement", gate: true },
    { from: "human_intervention", to: "complete", gate: true },
  ],
  verdict: { phase: "referee", file: "VERDICT.md", pass: "PASS", fail: ["FAIL", "NEEDS_REVIEW"] },
};

/** The phases workflow a config describes: the preset with the config's overrides, checked. */
export function workflowOf(config: Config): WorkflowResult {
  return buildWorkflow(mergeWorkflow(PHASES_PRESET, config.workflow));
}
