/**
 * Who decides on a board task: the reviewers of its role (or the coordinator for releases), minus
 * everyone who worked on it; and where a blocked task goes once unblocked.
 */
import { gatePolicy, lower, type ApprovalSubject } from "../approval.js";
import type { ApprovalRuleConfig, Config } from "../config.js";
import { globMatcher } from "../paths.js";
import { entryOf, handoffPath, type Board } from "./board.js";
import { loginOf, type Definition, type LedgerEntry, type Status } from "./formats.js";

/** Approvers of a gate on a task: the task's reviewer role (or the coordinator for releases). */
export function rolePolicy(config: Config, gate: string, role: string | undefined): ApprovalRuleConfig {
  const policy = gatePolicy(config, gate);
  // A role the config does not define falls back to the gate's configured approvers.
  if (role && config.roles[role]) return { ...policy, approvers: [`role:${role}`] };
  return policy;
}

export function subjectFor(board: Board, definition: Definition | undefined, id: string): ApprovalSubject {
  const inPaths = globMatcher(definition?.paths ?? []);
  const entry = entryOf(board, id);
  const ownFiles = new Set<string>([handoffPath(board.options, id)]);
  for (const item of entry.history) for (const path of [item.evidence, item.handoff]) if (path) ownFiles.add(path);
  const barred = new Map<string, string>();
  for (const item of entry.history) {
    if (item.action === "claim" || item.action === "submit" || item.action === "reassign") {
      barred.set(lower(loginOf(item.by)), `owned or submitted ${id}`);
    }
  }
  if (entry.owner) barred.set(lower(loginOf(entry.owner)), `owns ${id}`);
  return {
    task: id,
    touches: (path) => inPaths(path) || ownFiles.has(path) || path.startsWith(`${board.options.issues_dir}/${id}-`),
    barred,
  };
}

export function unblockTarget(entry: LedgerEntry): Status {
  const block = [...entry.history].reverse().find((item) => item.action === "escalate");
  return block?.from === "review" ? "review" : "todo";
}
