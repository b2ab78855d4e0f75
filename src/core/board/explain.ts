/** `taskgate explain` for a board task: status, owner, what is next, who may approve, what blocks it. */
import { describeApprovers } from "../kernel/approval.js";
import type { Config } from "../kernel/config.js";
import { type Explanation, type NextStep } from "../kernel/model.js";
import type { Snapshot, Violation } from "../kernel/types.js";
import { auditBoard } from "./audit.js";
import { entryOf, handoffPath, readBoard, type Board } from "./reader.js";
import { type Definition } from "./formats.js";
import { rolePolicy } from "./policy.js";
export function explainTask(config: Config, board: Board, definition: Definition, problems: Violation[]): Explanation {
  const id = definition.id;
  const entry = entryOf(board, id);
  const reviewers = describeApprovers(rolePolicy(config, "review", definition.reviewer_role));
  return {
    task: id,
    state: entry.status,
    facts: factsOf(config, board, definition),
    next: nextSteps(config, board, definition, reviewers),
    approvers:
      entry.status === "blocked" && definition.external
        ? describeApprovers(rolePolicy(config, "release", config.board.coordinator_role))
        : reviewers,
    problems,
  };
}

/** What the ledger and the definition say of a task, as label and value. */
function factsOf(config: Config, board: Board, definition: Definition): [string, string][] {
  const entry = entryOf(board, definition.id);
  const facts: [string, string][] = [
    ["title", definition.title],
    ["status", entry.status],
    ["owner", entry.owner ?? "(none)"],
    ["role", definition.role],
    ["stage", definition.stage],
    ["reviewer role", definition.reviewer_role],
  ];
  const deps = definition.depends_on.map((dependency) => `${dependency} (${entryOf(board, dependency).status})`);
  facts.push(["depends on", deps.length > 0 ? deps.join(", ") : "(nothing)"]);
  if (entry.blocked_by.length > 0) {
    facts.push([
      "blocked by",
      entry.blocked_by.map((resolver) => `${resolver} (${entryOf(board, resolver).status})`).join(", "),
    ]);
  }
  if (entry.external_wait) facts.push(["external", `waiting; released by role ${config.board.coordinator_role}`]);
  facts.push(["history", `${entry.history.length} entr${entry.history.length === 1 ? "y" : "ies"}`]);
  return facts;
}

/** The statuses a task can move to from its status, and what each move needs. */
function nextSteps(config: Config, board: Board, definition: Definition, reviewers: readonly string[]): NextStep[] {
  const id = definition.id;
  const entry = entryOf(board, id);
  const next: NextStep[] = [];
  const unmet = definition.depends_on.filter((dependency) => entryOf(board, dependency).status !== "done");
  switch (entry.status) {
    case "todo":
      next.push({
        to: "in_progress",
        needs: [
          "a claim by the pull request's author (login or login/agent-id) with no other unfinished task",
          ...(unmet.length > 0 ? [`${unmet.join(", ")} done first`] : []),
        ],
      });
      break;
    case "in_progress":
      next.push({
        to: "review",
        needs: [`evidence under ${config.board.evidence_dir}/`, `the handoff ${handoffPath(config.board, id)}`],
      });
      next.push({
        to: "blocked",
        needs: [
          `an issue report ${config.board.issues_dir}/${id}-<agent>.json`,
          "a handoff",
          "a new resolver task named in blocked_by",
        ],
      });
      break;
    case "review":
      next.push({
        to: "done",
        needs: [`an approving review from ${reviewers.join(" or ")} who never worked on ${id}`],
      });
      next.push({ to: "todo", needs: ["a review requesting changes (the owner is cleared)"] });
      break;
    case "blocked":
      next.push({
        to: "todo",
        needs: definition.external
          ? [`release approved by role ${config.board.coordinator_role}`]
          : [`every resolver done (${entry.blocked_by.join(", ") || "none named"}); taskgate unblocks it`],
      });
      break;
    case "done":
      break;
  }
  return next;
}

/** The explanation of a board task at a revision, with the audit's problems of that task. */
export function explainBoardTask(config: Config, snapshot: Snapshot, id: string): Explanation | undefined {
  const board = readBoard(snapshot, config.board);
  const definition = board.definitions.get(id);
  if (!definition) return undefined;
  return explainTask(
    config,
    board,
    definition,
    auditBoard(config, snapshot).violations.filter((item) => item.task === id),
  );
}
