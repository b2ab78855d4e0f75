/**
 * The rules of a board pull request: definitions added or changed, the new history entries of each
 * task (claim, submit, review outcomes, escalate, unblock, release), owners, revision, and which
 * files the change may touch.
 */
import { ApprovalJudge, gateOutcome, lower, principalMatcher, unbackedCode } from "../approval.js";
import type { Config } from "../config.js";
import { emptyFindings, type Findings } from "../model.js";
import { deepEqual } from "../json.js";
import { globMatcher } from "../paths.js";
import type { PrContext, Snapshot, Violation } from "../types.js";
import { violation } from "../violations.js";
import {
  checkReferencedFile,
  entryOf,
  graphProblemsFor,
  handoffPath,
  isTaskMetadata,
  issuePath,
  ownedUnfinished,
  readBoard,
  retiredOwners,
  secretProblems,
  type Board,
} from "./board.js";
import { edgeFor, loginOf, type Definition, type HistoryEntry, type LedgerEntry, type Status } from "./formats.js";
import { rolePolicy, subjectFor, unblockTarget } from "./policy.js";
export function evaluateBoard(
  config: Config,
  isFramework: (path: string) => boolean,
  baseSnapshot: Snapshot,
  headSnapshot: Snapshot,
  pr: PrContext,
): Findings {
  const findings = emptyFindings();
  const options = config.board;
  const base = readBoard(baseSnapshot, options);
  const head = readBoard(headSnapshot, options, baseSnapshot);
  const push = (item: Violation) => findings.violations.push(item);
  findings.violations.push(...head.problems);
  if (head.problems.length > 0) return findings;
  if (base.hasLedger && !head.hasLedger) {
    push(violation("history-rewritten", { path: options.ledger, message: `${options.ledger} was deleted` }));
  }
  if (base.hasDefinitions && !head.hasDefinitions) {
    push(violation("task-deleted", { path: options.definitions, message: `${options.definitions} was deleted` }));
  }

  // Problems that hold at rest are reported only when this PR introduces them; unchanged
  // definitions cannot introduce any, so a PR that only moves tasks skips the graph walk.
  const sameDefinitions = base.definitionsText !== undefined && base.definitionsText === head.definitionsText;
  if (!sameDefinitions) {
    // Unchanged definitions are the very same objects in base and head (see readBoard).
    const unchanged = new Set(base.definitionList);
    const changed = new Set(head.definitionList.filter((item) => !unchanged.has(item)).map((item) => item.id));
    findings.violations.push(...graphProblemsFor(head, changed));
  }

  const maintainer = principalMatcher(config.maintainers, config, pr)(pr.author);
  const touched = new Set<string>();
  const executing = new Set<string>();
  for (const definition of base.definitionList) {
    const after = head.definitions.get(definition.id);
    if (!after) {
      touched.add(definition.id);
      push(
        violation("task-deleted", {
          task: definition.id,
          path: options.definitions,
          message: `the definition of ${definition.id} was deleted`,
          hint: "Definitions are never deleted; restore it (a task that is no longer wanted stays in the plan).",
        }),
      );
    } else if (!sameDefinitions && !deepEqual(after, definition) && !maintainer) {
      push(
        violation("out-of-scope", {
          task: definition.id,
          path: options.definitions,
          line: head.definitionLine(definition.id),
          message: `the definition of ${definition.id} was changed`,
          hint: "Definitions change in a planning pull request by a maintainer, never as part of doing a task.",
        }),
      );
    }
  }
  for (const definition of head.definitions.values()) {
    if (base.definitions.has(definition.id)) continue;
    touched.add(definition.id);
    if (!head.ledger.tasks[definition.id]) findings.transitions.push({ task: definition.id, from: null, to: "todo" });
    if (base.ledger.tasks[definition.id]) {
      push(
        violation("id-reused", {
          task: definition.id,
          path: options.definitions,
          line: head.definitionLine(definition.id),
          message: `${definition.id} is a new definition, but the ledger already knew that id`,
        }),
      );
    }
  }

  const judge = new ApprovalJudge(config, pr);
  const retired = retiredOwners(base);
  let newEntries = 0;
  const ids = new Set([...Object.keys(base.ledger.tasks), ...Object.keys(head.ledger.tasks)]);
  for (const id of [...ids].sort()) {
    const before = base.ledger.tasks[id];
    const after = head.ledger.tasks[id];
    if (before && !after) {
      touched.add(id);
      push(
        violation("history-rewritten", {
          task: id,
          path: options.ledger,
          message: `the ledger entry of ${id} was removed`,
          hint: "Restore it; the ledger's history is append-only.",
        }),
      );
      continue;
    }
    if (!after || deepEqual(before, after)) continue;
    touched.add(id);
    if (!head.definitions.has(id)) {
      push(
        violation("dependency-unknown", {
          task: id,
          path: options.ledger,
          line: head.ledgerLine(id),
          message: `the ledger has an entry for ${id}, which is not defined`,
          hint: `Define ${id} in ${options.definitions} first, or fix the id.`,
        }),
      );
      newEntries += Math.max(0, after.history.length - (before?.history.length ?? 0));
      continue;
    }
    for (const resolver of after.blocked_by.filter((other) => !head.definitions.has(other))) {
      push(
        violation("dependency-unknown", {
          task: id,
          path: options.ledger,
          line: head.ledgerLine(id, "blocked_by"),
          message: `${id} is blocked by ${resolver}, which is not defined`,
        }),
      );
    }
    const fromStatus = before?.status ?? (base.definitions.has(id) ? "todo" : null);
    if (fromStatus !== after.status) findings.transitions.push({ task: id, from: fromStatus, to: after.status });
    const definition = head.definitions.get(id);
    const added = judgeEntry(config, judge, base, head, pr, id, definition, before, after, retired, findings);
    newEntries += added.count;
    if (added.executing) executing.add(id);
  }
  for (const id of Object.keys(head.ledger.tasks)) {
    const entry = head.ledger.tasks[id]!;
    if (entry.status === "in_progress" || entry.status === "review") {
      if (touched.has(id)) executing.add(id);
    }
  }

  if (head.hasLedger && (newEntries > 0 || base.ledger.revision !== head.ledger.revision)) {
    const expected = base.ledger.revision + newEntries;
    if (head.ledger.revision !== expected) {
      push(
        violation("state-invalid", {
          path: options.ledger,
          message: `revision is ${head.ledger.revision}, but ${newEntries} change(s) after revision ${base.ledger.revision} make it ${expected}`,
          hint: "Increase revision by one for each history entry added.",
        }),
      );
    }
  }

  // One unfinished task per owner; retired owners own nothing.
  const owned = ownedUnfinished(head);
  const before = ownedUnfinished(base);
  for (const [owner, tasks] of owned) {
    if (tasks.length > 1 && tasks.length > (before.get(owner)?.length ?? 0)) {
      push(
        violation("owner-limit", {
          task: tasks.find((id) => touched.has(id)) ?? tasks[0],
          path: options.ledger,
          message: `${owner} owns ${tasks.length} unfinished tasks (${tasks.join(", ")})`,
        }),
      );
    }
  }
  const retiredNow = retiredOwners(head);
  for (const [owner, tasks] of owned) {
    const reported = findings.violations.some(
      (item) => item.code === "agent-retired" && tasks.includes(item.task ?? ""),
    );
    if (retiredNow.has(owner) && tasks.some((id) => touched.has(id)) && !reported) {
      push(
        violation("agent-retired", {
          task: tasks[0],
          path: options.ledger,
          message: `${owner} escalated a blocker and is retired, but still owns ${tasks.join(", ")}`,
          hint: "A retired owner owns nothing; a fresh agent id takes the work on.",
        }),
      );
    }
  }

  // Unblock records: a blocked task whose resolvers are all done goes back to work.
  for (const [id, entry] of Object.entries(head.ledger.tasks)) {
    if (entry.status !== "blocked" || entry.blocked_by.length === 0) continue;
    if (!entry.blocked_by.some((resolver) => touched.has(resolver))) continue;
    if (entry.blocked_by.every((resolver) => entryOf(head, resolver).status === "done")) {
      findings.records.push({ task: id, from: "blocked", to: unblockTarget(entry), by: config.bot, kind: "unblock" });
    }
  }

  checkFiles(config, isFramework, head, headSnapshot, pr, touched, executing, maintainer, findings);
  return findings;
}

/** Walks the new history entries of one task; returns how many there were. */
function judgeEntry(
  config: Config,
  judge: ApprovalJudge,
  base: Board,
  head: Board,
  pr: PrContext,
  id: string,
  definition: Definition | undefined,
  beforeEntry: LedgerEntry | undefined,
  after: LedgerEntry,
  retiredBefore: Set<string>,
  findings: Findings,
): { count: number; executing: boolean } {
  const options = config.board;
  const push = (item: Violation) => findings.violations.push(item);
  const where = (...path: (string | number)[]) => ({ path: options.ledger, line: head.ledgerLine(id, ...path) });
  const before = beforeEntry;
  const start: LedgerEntry = before ?? {
    status: "todo",
    owner: null,
    external_wait: false,
    blocked_by: [],
    history: [],
  };
  if (!definition) return { count: 0, executing: false };

  const prefix = start.history;
  const rewritten = prefix.findIndex((item, index) => !deepEqual(after.history[index], item));
  if (rewritten >= 0) {
    push(
      violation("history-rewritten", {
        task: id,
        ...where("history", Math.min(rewritten, after.history.length - 1)),
        message: `history entry ${rewritten + 1} of ${id} was changed or removed`,
        hint: "Restore it exactly; history is append-only.",
      }),
    );
    return { count: 0, executing: false };
  }
  const added = after.history.slice(prefix.length);
  // A new external resolver is created blocked, waiting, without an owner.
  if (!before && definition.external && added.length === 0) {
    if (after.status !== "blocked" || !after.external_wait || after.owner) {
      push(
        violation("illegal-transition", {
          task: id,
          ...where(),
          message: `${id} is an external resolver: it starts blocked, external_wait true, without an owner`,
        }),
      );
    }
    return { count: 0, executing: false };
  }
  if (added.length === 0) {
    if (after.status !== start.status || after.owner !== start.owner) {
      push(
        violation("illegal-transition", {
          task: id,
          ...where("status"),
          message: `${id} changed from ${start.status}${start.owner ? ` (${start.owner})` : ""} to ${after.status}${after.owner ? ` (${after.owner})` : ""} without a history entry`,
          hint: "Record each change of status or owner as a history entry.",
        }),
      );
    }
    if (after.status === "review") gateReview(config, judge, head, id, definition, after, findings);
    return { count: 0, executing: false };
  }

  const retired = new Set(retiredBefore);
  const rejectedOwners = new Set(
    start.history.filter((item) => item.action === "reject").map((item) => ownerBefore(start.history, item)),
  );
  let status: Status = start.status;
  let owner: string | null = start.owner;
  let executing = false;
  let rejectedAt = -1;
  let approvedAt = -1;
  const subject = subjectFor(head, definition, id);
  const historyIndex = (index: number) => prefix.length + index;

  const handoffProblems = (item: HistoryEntry, atOf: () => { path: string; line?: number | undefined }) =>
    checkReferencedFile(
      head.snapshot,
      id,
      "handoff",
      item.handoff ?? handoffPath(options, id),
      options.handoffs_dir,
      atOf,
    );

  added.forEach((item, index) => {
    const at = where("history", historyIndex(index));
    const atOf = () => at;
    const edge = edgeFor(item.from, item.to, item.action);
    if (item.from !== status || !edge) {
      push(
        violation("illegal-transition", {
          task: id,
          ...at,
          message: !edge
            ? `${id}: "${item.action}" cannot move ${item.from} → ${item.to}`
            : `${id}: "${item.action}" starts from ${item.from}, but the task was ${status}`,
          hint: "claim todo→in_progress, submit in_progress→review, escalate in_progress→blocked; review outcomes and unblocks are recorded by taskgate.",
        }),
      );
      status = item.to;
      return;
    }
    switch (item.action) {
      case "claim": {
        executing = true;
        if (retired.has(item.by)) {
          push(
            violation("agent-retired", {
              task: id,
              ...at,
              message: `${item.by} escalated a blocker earlier and is retired`,
            }),
          );
        } else if (lower(loginOf(item.by)) !== lower(pr.author)) {
          push(
            violation("owner-mismatch", {
              task: id,
              ...at,
              message: `${id} is claimed for ${item.by}, but the pull request is by ${pr.author}`,
              hint: `Claim as ${pr.author} or ${pr.author}/<agent-id>.`,
            }),
          );
        } else if (rejectedOwners.has(item.by)) {
          push(
            violation("owner-mismatch", {
              task: id,
              ...at,
              message: `${item.by}'s submission of ${id} was rejected; a new executor continues`,
              hint: `Claim with a fresh agent id (${loginOf(item.by)}/<new-agent-id>).`,
            }),
          );
        }
        const unmet = definition.depends_on.filter((dependency) => entryOf(head, dependency).status !== "done");
        if (unmet.length > 0) {
          push(
            violation("dependency-unmet", {
              task: id,
              ...at,
              message: `${id} was claimed while ${unmet.join(", ")} ${unmet.length > 1 ? "are" : "is"} not done`,
            }),
          );
        }
        owner = item.by;
        break;
      }
      case "reassign": {
        executing = true;
        if (!principalMatcher(config.maintainers, config, pr)(pr.author)) {
          push(
            violation("owner-mismatch", {
              task: id,
              ...at,
              message: `${id} was reassigned by ${pr.author}, who is not a maintainer`,
              hint: "Only maintainers reassign an in-progress task, as an agreed recovery.",
            }),
          );
        }
        if (retired.has(item.by)) {
          push(
            violation("agent-retired", {
              task: id,
              ...at,
              message: `${item.by} is retired and cannot take ${id} back`,
            }),
          );
        }
        owner = item.by;
        break;
      }
      case "submit": {
        executing = true;
        if (owner && item.by !== owner) {
          push(
            violation("owner-mismatch", {
              task: id,
              ...at,
              message: `${id} is owned by ${owner} but submitted by ${item.by}`,
            }),
          );
        }
        if (retired.has(item.by)) {
          push(violation("agent-retired", { task: id, ...at, message: `${item.by} is retired and cannot submit` }));
        }
        findings.violations.push(
          ...checkReferencedFile(head.snapshot, id, "evidence", item.evidence, options.evidence_dir, atOf),
          ...handoffProblems(item, atOf),
        );
        break;
      }
      case "approve":
      case "reject": {
        const state = item.action === "approve" ? "APPROVED" : "CHANGES_REQUESTED";
        const policy = rolePolicy(config, "review", definition.reviewer_role);
        const verdict = judge.backing("review", item.by, subject, state, policy);
        if (!verdict?.ok) {
          push(
            violation(unbackedCode(verdict), {
              task: id,
              ...at,
              message: verdict?.detail
                ? `${item.action} of ${id} by ${item.by} does not count: ${verdict.detail}`
                : `${item.action} of ${id} names ${item.by}, but ${item.by} gave no such review on this pull request`,
              hint: "Review outcomes are recorded by taskgate from an eligible review; remove this entry.",
            }),
          );
        }
        if (item.action === "reject") {
          rejectedOwners.add(owner ?? "");
          rejectedAt = index;
          owner = null;
        } else approvedAt = index;
        break;
      }
      case "escalate": {
        const reporter = owner ?? item.by;
        retired.add(item.by);
        if (reporter !== item.by) retired.add(reporter);
        findings.violations.push(
          ...checkReferencedFile(
            head.snapshot,
            id,
            "issue report",
            issuePath(options, id, reporter),
            options.issues_dir,
            atOf,
          ),
          ...handoffProblems(item, atOf),
        );
        const resolvers = after.blocked_by;
        const fresh = resolvers.filter((resolver) => head.definitions.has(resolver) && !base.definitions.has(resolver));
        if (fresh.length === 0) {
          push(
            violation("blocked-without-resolver", {
              task: id,
              ...where("blocked_by"),
              message:
                resolvers.length === 0
                  ? `${id} was escalated but blocked_by names no resolver`
                  : `${id} is blocked by ${resolvers.join(", ")}, but none is a new task of this pull request`,
            }),
          );
        }
        for (const resolver of fresh) {
          if (dependsOn(head, resolver, id)) {
            push(
              violation("dependency-cycle", {
                task: resolver,
                path: options.definitions,
                line: head.definitionLine(resolver),
                message: `resolver ${resolver} depends on the task it unblocks, ${id}`,
                hint: "A resolver depends only on prerequisites that are available, never on its blocked parent.",
              }),
            );
          }
        }
        owner = null;
        break;
      }
      case "unblock": {
        const open = after.blocked_by.filter((resolver) => entryOf(head, resolver).status !== "done");
        if (open.length > 0 || after.blocked_by.length === 0) {
          push(
            violation("unblock-unresolved", {
              task: id,
              ...at,
              message:
                open.length > 0
                  ? `${id} was unblocked while ${open.join(", ")} ${open.length > 1 ? "are" : "is"} not done`
                  : `${id} was unblocked, but blocked_by names no resolver`,
            }),
          );
        }
        break;
      }
      case "release": {
        if (!definition.external) {
          push(
            violation("illegal-transition", {
              task: id,
              ...at,
              message: `${id} is not an external resolver; only external resolvers are released`,
            }),
          );
          break;
        }
        const policy = rolePolicy(config, "release", options.coordinator_role);
        const backed = judge.backing("release", item.by, subject, "APPROVED", policy);
        if (!backed?.ok) {
          const judgement = judge.judgeGate("release", subject, policy);
          gateOutcome(
            judgement,
            {
              task: id,
              from: "blocked",
              to: "todo",
              path: options.ledger,
              line: head.ledgerLine(id),
              waiting: `the release of ${id} waits for approval`,
            },
            findings,
          );
        }
        break;
      }
    }
    status = item.to;
  });

  if (status !== after.status) {
    push(
      violation("illegal-transition", {
        task: id,
        ...where("status"),
        message: `${id}'s status is ${after.status}, but its history ends at ${status}`,
      }),
    );
  }
  const expectedOwner = after.status === "in_progress" || after.status === "review" ? owner : null;
  if ((after.owner ?? null) !== expectedOwner && status === after.status) {
    push(
      violation("owner-mismatch", {
        task: id,
        ...where("owner"),
        message: `${id}'s owner is ${after.owner ?? "nobody"}, but its history makes it ${expectedOwner ?? "nobody"}`,
        hint:
          after.status === "todo" || after.status === "blocked"
            ? "A task that is todo or blocked has no owner."
            : "The owner is whoever claimed the task.",
      }),
    );
  }
  if (rejectedAt >= 0 && approvedAt < rejectedAt) {
    const reject = added[rejectedAt]!;
    push(
      violation("review-rejected", {
        task: id,
        ...where("history", historyIndex(rejectedAt)),
        message: `${reject.by} rejected ${id}${reject.note ? `: ${oneLine(reject.note)}` : ""}`,
      }),
    );
  }
  if (after.status === "review") gateReview(config, judge, head, id, definition, after, findings);
  return { count: added.length, executing };
}

/** A task in review: approve or reject from the reviews, or wait. */
function gateReview(
  config: Config,
  judge: ApprovalJudge,
  head: Board,
  id: string,
  definition: Definition,
  entry: LedgerEntry,
  findings: Findings,
): void {
  const policy = rolePolicy(config, "review", definition.reviewer_role);
  const judgement = judge.judgeGate("review", subjectFor(head, definition, id), policy);
  const recorded = new Set(
    entry.history
      .filter((item) => item.action === "approve" || item.action === "reject")
      .map((item) => `${lower(item.by)}\u0000${item.at}`),
  );
  const rejection = judgement.rejections.filter(
    (verdict) => !recorded.has(`${lower(verdict.login)}\u0000${verdict.review.submitted_at ?? ""}`),
  );
  const latest = rejection.at(-1);
  if (latest) {
    const reason = latest.review.body?.trim() || "changes requested";
    findings.records.push({
      task: id,
      from: "review",
      to: "todo",
      by: latest.login,
      kind: "reject",
      reason,
      ...(latest.review.submitted_at ? { at: latest.review.submitted_at } : {}),
    });
    findings.violations.push(
      violation("review-rejected", {
        task: id,
        path: config.board.ledger,
        line: head.ledgerLine(id),
        message: `${latest.login} requested changes on ${id}: ${oneLine(reason)}`,
      }),
    );
    return;
  }
  gateOutcome(
    judgement,
    {
      task: id,
      from: "review",
      to: "done",
      path: config.board.ledger,
      line: head.ledgerLine(id),
      waiting: `${id} waits for a review`,
    },
    findings,
  );
}

function dependsOn(board: Board, from: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    for (const dependency of board.definitions.get(id)?.depends_on ?? []) {
      if (dependency === target) return true;
      if (!seen.has(dependency)) {
        seen.add(dependency);
        stack.push(dependency);
      }
    }
  }
  return false;
}

function ownerBefore(history: readonly HistoryEntry[], item: HistoryEntry): string {
  let owner = "";
  for (const entry of history) {
    if (entry === item) break;
    if (entry.action === "claim" || entry.action === "reassign") owner = entry.by;
  }
  return owner;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** Changed files: inside the touched tasks' paths and their own metadata, never framework files. */
function checkFiles(
  config: Config,
  isFramework: (path: string) => boolean,
  head: Board,
  headSnapshot: Snapshot,
  pr: PrContext,
  touched: Set<string>,
  executing: Set<string>,
  maintainer: boolean,
  findings: Findings,
): void {
  const options = config.board;
  const renderPrefix = `${config.render.path.replace(/\/+$/, "")}/`;
  const matchers = [...executing].map((id) => ({ id, match: globMatcher(head.definitions.get(id)?.paths ?? []) }));
  const problems: Violation[] = [];
  let framework = 0;
  let project = 0;
  for (const file of pr.files) {
    for (const path of new Set([file.path, file.previousPath])) {
      if (path === undefined || path === options.ledger || path === options.definitions) continue;
      if (path.startsWith(renderPrefix)) continue;
      const stateDir = [options.evidence_dir, options.handoffs_dir, options.issues_dir].find((dir) =>
        path.startsWith(`${dir}/`),
      );
      if (stateDir) {
        const entry = headSnapshot.files.get(path);
        if (entry) findings.violations.push(...secretProblems(entry));
        if (![...touched].some((id) => isTaskMetadata(options, id, path))) {
          problems.push(
            violation("out-of-scope", {
              path,
              message: `${path} belongs to no task this pull request works on`,
              hint: "Handoffs and issue reports are named after their task; change them with that task.",
            }),
          );
        }
        continue;
      }
      if (isFramework(path)) {
        framework++;
        problems.push(
          violation("out-of-scope", {
            path,
            message: `${path} is a framework file; a task's pull request may not change it`,
            hint: "Maintainers change framework files in a pull request that touches no task.",
          }),
        );
        continue;
      }
      project++;
      if (!matchers.some(({ match }) => match(path))) {
        const working = matchers.map(({ id }) => id);
        problems.push(
          violation("out-of-scope", {
            path,
            message:
              working.length > 0
                ? `${path} is outside the paths of ${working.join(", ")}`
                : `${path} is a project file, but this pull request works on no task in progress`,
            hint: "A shared file outside the task's paths is a separate task, not part of this one.",
          }),
        );
      }
    }
  }
  if (touched.size > 0) {
    findings.violations.push(...problems);
    return;
  }
  if (pr.files.length === 0) return;
  if (maintainer && project === 0) return;
  if (!config.require_task && (maintainer || framework === 0)) return;
  findings.violations.push(
    violation("task-missing", {
      message: `this pull request changes ${pr.files.length} file(s) but works on no task of ${options.ledger}`,
      hint: maintainer
        ? "Maintainers may change framework files without a task; project files need a claimed task."
        : "Claim a task in the ledger in this pull request, or ask a maintainer to make framework changes.",
    }),
  );
}
