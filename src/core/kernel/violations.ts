/**
 * The violation codes are a public contract: reports, tests and docs use exactly these names.
 * Each code has a title (what kind of problem) and a default hint (how to fix it); rules pass a
 * specific message and, where they know better, a specific hint.
 */
import type { Violation } from "./types.js";

export const VIOLATIONS = {
  "config-invalid": {
    title: "The taskgate configuration is invalid",
    hint: "Fix .github/taskgate.yml; docs/taskgate.schema.json describes every key.",
  },
  "state-invalid": {
    title: "A task's state file is unreadable or names an unknown state",
    hint: "Write exactly one known state name in the task's .state file.",
  },
  "task-untracked": {
    title: "A task folder has no .state file",
    hint: "Create the task with a .state file holding `new`, or remove the folder.",
  },
  "task-invalid-id": {
    title: "A task folder name is not a valid task id",
    hint: "Task ids match ^[A-Za-z0-9][A-Za-z0-9._-]*$ and contain no `..`; rename the folder.",
  },
  "task-missing": {
    title: "The pull request changes files but touches no task",
    hint: "Move a task forward in this PR (its .state and artifacts), or ask a maintainer to make framework changes.",
  },
  "task-deleted": {
    title: "A task was deleted",
    hint: "Tasks are never deleted; restore the task's folder and state.",
  },
  "id-reused": {
    title: "A task id was reused",
    hint: "Give the new task a fresh id; ids are never reused.",
  },
  "illegal-transition": {
    title: "A task moved along an edge the workflow does not allow",
    hint: "Move the task only along the workflow's edges; `taskgate explain <task>` lists the next states.",
  },
  "approval-required": {
    title: "A gate is waiting for an approving review",
    hint: "Ask an eligible reviewer to approve the pull request; taskgate records the approval.",
  },
  "approval-forged": {
    title: "An approval is claimed that no eligible review backs",
    hint: "Remove the approval line or state; only taskgate writes them, after an eligible approving review.",
  },
  "approval-self": {
    title: "An approval comes from the author or a contributor of the change",
    hint: "Ask someone who did not write the change to review it.",
  },
  "approval-stale": {
    title: "An approval was given before later changes to the task",
    hint: "Ask the reviewer to review the latest commit again.",
  },
  "history-rewritten": {
    title: "An append-only log was rewritten",
    hint: "Restore the earlier lines exactly; only append new entries at the end.",
  },
  "artifact-missing": {
    title: "A required artifact is missing",
    hint: "Add the phase's artifact before leaving the phase.",
  },
  "artifact-empty": {
    title: "A required artifact is empty",
    hint: "Write the artifact's content; an empty file does not count.",
  },
  "artifact-forbidden": {
    title: "An artifact belongs to a phase the task has not reached",
    hint: "Remove the artifact, or move the task to its phase first.",
  },
  "verdict-not-pass": {
    title: "The referee's verdict does not allow this move",
    hint: "VERDICT.md must say PASS to complete; FAIL or NEEDS_REVIEW goes to human_intervention.",
  },
  "out-of-scope": {
    title: "A file outside the task's edit scope was changed",
    hint: "Revert the file, or change it in a PR whose task allows it.",
  },
  "owner-mismatch": {
    title: "The task's owner is not the pull request's author",
    hint: "Claim tasks as yourself (your login or <login>/<agent-id>).",
  },
  "owner-limit": {
    title: "The owner already has an unfinished task",
    hint: "Finish or hand back the other task before claiming a new one.",
  },
  "dependency-unmet": {
    title: "A dependency is not done yet",
    hint: "Wait until every task in depends_on is done.",
  },
  "dependency-cycle": {
    title: "The dependency graph has a cycle",
    hint: "Remove one of the depends_on edges in the cycle.",
  },
  "dependency-unknown": {
    title: "A dependency names an unknown task",
    hint: "Fix the id in depends_on or blocked_by.",
  },
  "blocked-without-resolver": {
    title: "A blocked task names no new resolver task",
    hint: "Add a new resolver task to the definitions and name it in blocked_by.",
  },
  "unblock-unresolved": {
    title: "A task was unblocked before its resolver is done",
    hint: "Leave the task blocked; taskgate unblocks it when the resolver is done.",
  },
  "reviewer-conflict": {
    title: "The reviewer worked on the task",
    hint: "Ask a reviewer who never owned or submitted the task.",
  },
  "evidence-missing": {
    title: "Evidence or handoff is missing or empty",
    hint: "Add the evidence under state/evidence/ and the handoff under state/handoffs/.",
  },
  "path-escape": {
    title: "A path leaves its folder or is a symlink",
    hint: "Use a regular file inside the expected folder; symlinks and `..` are refused.",
  },
  "secret-detected": {
    title: "A secret was found",
    hint: "Remove the secret from the file and rotate it; taskgate never repeats it.",
  },
  "agent-retired": {
    title: "A retired owner acted again",
    hint: "Use a fresh agent id; an owner that escalated is retired for good.",
  },
  "review-rejected": {
    title: "A reviewer rejected the submission",
    hint: "A new executor claims the task again, addresses the reason and resubmits.",
  },
  "matrix-stale": {
    title: "Rendered status files are out of date",
    hint: "Run `taskgate render` and commit the result.",
  },
  "unauthorized-change": {
    title: "Task files changed on the default branch without a passing check",
    hint: "Revert the commit or take the change through a pull request.",
  },
} as const satisfies Record<string, { title: string; hint: string }>;

export type ViolationCode = keyof typeof VIOLATIONS;

export const VIOLATION_CODES = Object.keys(VIOLATIONS) as ViolationCode[];

export interface ViolationInput {
  task?: string | undefined;
  path?: string | undefined;
  line?: number | undefined;
  message: string;
  hint?: string | undefined;
}

/**
 * No violations: what a check over one item returns when it finds nothing (the common case), shared
 * so that a rule run over 10,000 items allocates nothing for them.
 */
export const NO_VIOLATIONS: readonly Violation[] = Object.freeze([]);

/** Builds a violation with a stable key order and without absent fields, so JSON output is minimal. */
export function violation(code: ViolationCode, input: ViolationInput): Violation {
  return {
    code,
    ...(input.task !== undefined && { task: input.task }),
    ...(input.path !== undefined && { path: input.path }),
    ...(input.line !== undefined && { line: input.line }),
    message: input.message,
    hint: input.hint ?? VIOLATIONS[code].hint,
  };
}
