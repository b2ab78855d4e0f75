/** The rules of a board at rest: graph, owners, history chains, evidence, blockers, secrets, staleness. */
import { botName, type Config } from "../kernel/config.js";
import { emptyFindings, type Findings } from "../kernel/model.js";
import { renderRootOf } from "../kernel/paths.js";
import { boardRenderPlan } from "./render.js";
import { staleViolations } from "../kernel/stale.js";
import type { Snapshot } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import {
  UNFINISHED,
  checkReferencedFile,
  entryOf,
  graphProblems,
  handoffPath,
  lastSubmit,
  ownedUnfinished,
  readBoard,
  retiredOwners,
  secretProblems,
} from "./reader.js";
import { edgeFor, type Status } from "./formats.js";
import { OWNER_HINT, parseOwner } from "./owners.js";
import { unblockTarget, unknownRoles } from "./policy.js";
export function auditBoard(config: Config, snapshot: Snapshot): Findings {
  const findings = emptyFindings();
  const options = config.board;
  const board = readBoard(snapshot, options);
  findings.violations.push(...board.problems);
  if (board.problems.length > 0) return findings;
  const root = renderRootOf(config);
  findings.violations.push(...staleViolations(() => boardRenderPlan(board, root), snapshot, root));
  findings.violations.push(...graphProblems(board));
  const retired = retiredOwners(board);
  for (const definition of board.definitions.values()) {
    findings.violations.push(...unknownRoles(config, board, definition));
  }
  for (const [key, { owner, tasks }] of ownedUnfinished(board)) {
    if (tasks.length > 1) {
      findings.violations.push(
        violation("owner-limit", {
          task: tasks[0],
          path: options.ledger,
          line: board.ledgerLine(tasks[1]!),
          message: `${owner} owns ${tasks.length} unfinished tasks (${tasks.join(", ")})`,
        }),
      );
    }
    if (retired.has(key)) {
      findings.violations.push(
        violation("agent-retired", {
          task: tasks[0],
          path: options.ledger,
          line: board.ledgerLine(tasks[0]!),
          message: `${owner} escalated a blocker and is retired, but owns ${tasks.join(", ")}`,
        }),
      );
    }
  }
  for (const [id, entry] of Object.entries(board.ledger.tasks)) {
    const definition = board.definitions.get(id);
    const at = (...path: (string | number)[]) => ({ path: options.ledger, line: board.ledgerLine(id, ...path) });
    let status: Status = "todo";
    const external = definition?.external && entry.history.length === 0 && entry.status === "blocked";
    for (const [index, item] of entry.history.entries()) {
      if (item.from !== status || !edgeFor(item.from, item.to, item.action)) {
        findings.violations.push(
          violation("illegal-transition", {
            task: id,
            ...at("history", index),
            message: `${id}'s history entry ${index + 1} (${item.action} ${item.from} → ${item.to}) does not follow from ${status}`,
          }),
        );
        break;
      }
      status = item.to;
    }
    if (!external && entry.history.length > 0 && status !== entry.status) {
      findings.violations.push(
        violation("illegal-transition", {
          task: id,
          ...at("status"),
          message: `${id}'s status is ${entry.status}, but its history ends at ${status}`,
        }),
      );
    }
    if (entry.owner && !parseOwner(entry.owner)) {
      findings.violations.push(
        violation("owner-mismatch", {
          task: id,
          ...at("owner"),
          message: `${id}'s owner "${entry.owner}" is not a valid owner`,
          hint: OWNER_HINT,
        }),
      );
    }
    if (UNFINISHED.has(entry.status) && !entry.owner) {
      findings.violations.push(
        violation("owner-mismatch", {
          task: id,
          ...at("status"),
          message: `${id} is ${entry.status} without an owner`,
        }),
      );
    }
    if (definition && (entry.status === "in_progress" || entry.status === "review" || entry.status === "done")) {
      const unmet = definition.depends_on.filter((dependency) => entryOf(board, dependency).status !== "done");
      if (unmet.length > 0) {
        findings.violations.push(
          violation("dependency-unmet", {
            task: id,
            ...at("status"),
            message: `${id} is ${entry.status} while ${unmet.join(", ")} ${unmet.length > 1 ? "are" : "is"} not done`,
          }),
        );
      }
    }
    if (entry.status === "review" || entry.status === "done") {
      const submit = lastSubmit(entry);
      if (submit) {
        const where = () => at("history", entry.history.indexOf(submit));
        findings.violations.push(
          ...checkReferencedFile(snapshot, id, "evidence", submit.evidence, options.evidence_dir, where),
          ...checkReferencedFile(
            snapshot,
            id,
            "handoff",
            submit.handoff ?? handoffPath(options, id),
            options.handoffs_dir,
            where,
          ),
        );
      }
    }
    if (entry.status === "blocked") {
      if (entry.blocked_by.length === 0 && !external) {
        findings.violations.push(
          violation("blocked-without-resolver", {
            task: id,
            ...at("blocked_by"),
            message: `${id} is blocked but names no resolver`,
          }),
        );
      } else if (
        entry.blocked_by.length > 0 &&
        entry.blocked_by.every((resolver) => entryOf(board, resolver).status === "done")
      ) {
        findings.records.push({
          task: id,
          from: "blocked",
          to: unblockTarget(entry),
          by: botName(config),
          kind: "unblock",
        });
      }
    }
  }
  for (const [path, entry] of snapshot.files) {
    if ([options.evidence_dir, options.handoffs_dir, options.issues_dir].some((dir) => path.startsWith(`${dir}/`))) {
      if (entry.kind === "symlink") {
        findings.violations.push(
          violation("path-escape", {
            path,
            message: `${path} is a symlink${entry.target ? ` to ${entry.target}` : ""}`,
            hint: "Evidence, handoffs and issue reports are regular files inside their folders.",
          }),
        );
      }
      findings.violations.push(...secretProblems(entry));
    }
  }
  return findings;
}
