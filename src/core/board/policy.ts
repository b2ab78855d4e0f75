/**
 * Who decides on a board task: the members of its reviewer role (or the coordinator role for
 * releases), minus everyone who worked on it; what its files are; and where a blocked task goes once
 * unblocked.
 */
import { gatePolicy, lower, reviewKey, type ApprovalSubject } from "../kernel/approval.js";
import type { ApprovalRuleConfig, Config } from "../kernel/config.js";
import { own } from "../kernel/objects.js";
import { globMatcher, renderRootOf } from "../kernel/paths.js";
import type { Violation } from "../kernel/types.js";
import { NO_VIOLATIONS, violation } from "../kernel/violations.js";
import { entryOf, handoffPath, type Board } from "./reader.js";
import { entryExplained, type BoardWrites } from "./decisions.js";
import type { Definition, LedgerEntry, Status } from "./formats.js";
import { parseOwner } from "./owners.js";
import { reviewsOf } from "./records.js";

/**
 * Approvers of a gate on a task: exactly the members of the named role. A role the config does not
 * define has no members, so nobody can approve (and `unknownRole` reports it); it never falls back
 * to "anyone with write permission".
 */
export function rolePolicy(config: Config, gate: string, role: string): ApprovalRuleConfig {
  return { ...gatePolicy(config, gate), approvers: [`role:${role}`] };
}

export function isConfiguredRole(config: Config, role: string): boolean {
  return own(config.roles, role) !== undefined;
}

/** A definition naming a role the config does not define. */
export function unknownRoles(config: Config, board: Board, definition: Definition): readonly Violation[] {
  // Both roles configured is the rule: no list is made then.
  if (isConfiguredRole(config, definition.role) && isConfiguredRole(config, definition.reviewer_role)) {
    return NO_VIOLATIONS;
  }
  const out: Violation[] = [];
  for (const key of ["role", "reviewer_role"] as const) {
    const role = definition[key];
    if (isConfiguredRole(config, role)) continue;
    out.push(
      violation("state-invalid", {
        task: definition.id,
        path: board.options.definitions,
        line: board.definitionLine(definition.id),
        message: `${definition.id}'s ${key} "${role}" is not a role of .github/taskgate.yml`,
        hint: `Add ${role} to \`roles\` in .github/taskgate.yml (with its members), or name a configured role; nobody can approve for an unknown role.`,
      }),
    );
  }
  return out;
}

/** What the approval rules know of one board task. */
export function subjectFor(
  config: Config,
  board: Board,
  definition: Definition | undefined,
  id: string,
  writes: BoardWrites,
  retired: ReadonlySet<string>,
): ApprovalSubject {
  const options = board.options;
  const inPaths = globMatcher(definition?.paths ?? []);
  const entry = entryOf(board, id);
  const renderPrefix = `${renderRootOf(config)}/`;
  const ownFiles = new Set<string>([handoffPath(options, id)]);
  for (const item of entry.history) for (const path of [item.evidence, item.handoff]) if (path) ownFiles.add(path);
  const barred = new Map<string, string>();
  for (const item of entry.history) {
    if (item.action === "claim" || item.action === "submit" || item.action === "reassign") {
      const owner = parseOwner(item.by);
      if (owner) barred.set(lower(owner.login), `owned or submitted ${id}`);
    }
  }
  const owner = entry.owner ? parseOwner(entry.owner) : undefined;
  if (owner) barred.set(lower(owner.login), `owns ${id}`);
  // A reporter who escalated under their plain login approves nothing again.
  for (const key of retired) if (!key.includes("/")) barred.set(key, "escalated a blocker and is retired");
  const used = new Set<string>();
  for (const item of entry.history) {
    if (item.action === "approve" || item.action === "reject") {
      for (const review of reviewsOf(item)) used.add(reviewKey(review.by, review.at));
    }
  }
  return {
    task: id,
    touches: (path) =>
      !path.startsWith(renderPrefix) &&
      (inPaths(path) || ownFiles.has(path) || path.startsWith(`${options.issues_dir}/${id}-`)),
    recordFiles: new Set([options.ledger]),
    explains: (from, to) => entryExplained(config, id, writes, from, to),
    barred,
    used,
  };
}

export function unblockTarget(entry: LedgerEntry): Status {
  const block = [...entry.history].reverse().find((item) => item.action === "escalate");
  return block?.from === "review" ? "review" : "todo";
}
