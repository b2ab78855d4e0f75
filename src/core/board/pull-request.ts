/**
 * The rules of a board pull request: definitions added or changed, each changed ledger entry (its
 * new history entries judged one action at a time, then the whole entry compared with what that
 * history allows), the revision, owners, and which files the change may touch.
 */
import { ApprovalJudge, gateOutcome, type ApprovalSubject } from "../kernel/approval.js";
import { botName, type BoardConfig, type Config } from "../kernel/config.js";
import { deepEqual } from "../kernel/json.js";
import { emptyFindings, type Findings } from "../kernel/model.js";
import { own } from "../kernel/objects.js";
import { globIndex, isSuspiciousPath } from "../kernel/paths.js";
import {
  changedPathsOf,
  firstRewrite,
  frameworkViolations,
  isMaintainer,
  pathClassifier,
  taskMissing,
  type ChangedPaths,
} from "../kernel/scope.js";
import type { SnapshotScope } from "../kernel/port.js";
import type { PrContext, Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import { ACTION_RULES, type ActionContext, type Where } from "./actions.js";
import {
  entryOf,
  graphProblemsFor,
  handoffPath,
  issuePath,
  isTaskMetadata,
  ownedUnfinished,
  readBoard,
  retiredOwners,
  sameText,
  secretProblems,
  type Board,
} from "./reader.js";
import { boardBotWrites, type BoardWrites } from "./decisions.js";
import { edgeFor, implicitEntry, type Definition, type HistoryEntry, type LedgerEntry } from "./formats.js";
import { ownedBy, ownerKey, sameOwner } from "./owners.js";
import { rolePolicy, subjectFor, unblockTarget, unknownRoles } from "./policy.js";
import { applyAction } from "./records.js";

/** What every board rule of one pull request sees. */
interface BoardContext {
  readonly config: Config;
  readonly pr: PrContext;
  readonly judge: ApprovalJudge;
  readonly base: Board;
  readonly head: Board;
  readonly writes: BoardWrites;
  readonly maintainer: boolean;
  readonly findings: Findings;
  /** Definitions the pull request adds. */
  readonly added: ReadonlySet<string>;
  /** Owner keys retired at the base, plus every escalation judged so far. */
  readonly retired: Set<string>;
  push(item: Violation): void;
}

/** What the ledger part of a pull request amounts to. */
interface LedgerOutcome {
  /** Tasks whose definition or entry the pull request changes. */
  readonly touched: Set<string>;
  /** Tasks the author legally works on: their paths are open to the pull request. */
  readonly executing: Set<string>;
  /** Resolvers named by the escalations of this pull request. */
  readonly resolvers: Set<string>;
  /** Tasks the author owned (or their agents did) at some point of this pull request's history. */
  readonly authorWork: Set<string>;
  /** History entries added across the ledger. */
  newEntries: number;
}

export function evaluateBoard(config: Config, baseSnapshot: Snapshot, headSnapshot: Snapshot, pr: PrContext): Findings {
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
  const judge = new ApprovalJudge(config, pr, headSnapshot);
  const ctx: BoardContext = {
    config,
    pr,
    judge,
    base,
    head,
    writes: boardBotWrites(config, pr, judge),
    maintainer: isMaintainer(config, pr),
    findings,
    added: new Set([...head.definitions.keys()].filter((id) => !base.definitions.has(id))),
    retired: retiredOwners(base),
    push,
  };
  const touched = checkDefinitions(ctx);
  const outcome: LedgerOutcome = {
    touched,
    executing: new Set(),
    resolvers: new Set(),
    authorWork: new Set(),
    newEntries: 0,
  };
  const ids = new Set([...Object.keys(base.ledger.tasks), ...Object.keys(head.ledger.tasks)]);
  for (const id of [...ids].sort()) checkLedgerEntry(ctx, id, outcome);
  checkNewDefinitions(ctx, outcome);
  checkRevision(ctx, outcome.newEntries);
  checkOwners(ctx, outcome.touched);
  recordUnblocks(ctx, outcome.touched);
  checkFiles(ctx, headSnapshot, outcome);
  return findings;
}

/** Definitions: never deleted, changed only by maintainers, graph sound, roles configured. */
function checkDefinitions(ctx: BoardContext): Set<string> {
  const { base, head, config } = ctx;
  const options = config.board;
  const touched = new Set<string>(ctx.added);
  // Problems at rest are reported only when this PR introduces them; unchanged definitions cannot
  // introduce any, so a PR that only moves tasks skips the graph walk.
  if (base.definitionsFile && head.definitionsFile && sameText(base.definitionsFile, head.definitionsFile))
    return touched;
  // Unchanged definitions are the very same objects in base and head (see readBoard).
  const unchanged = new Set(base.definitionList);
  const changed = new Set(head.definitionList.filter((item) => !unchanged.has(item)).map((item) => item.id));
  ctx.findings.violations.push(...graphProblemsFor(head, changed, base));
  for (const id of changed) {
    const definition = head.definitions.get(id);
    if (definition) ctx.findings.violations.push(...unknownRoles(config, head, definition));
  }
  for (const definition of base.definitionList) {
    const after = head.definitions.get(definition.id);
    if (!after) {
      touched.add(definition.id);
      ctx.push(
        violation("task-deleted", {
          task: definition.id,
          path: options.definitions,
          message: `the definition of ${definition.id} was deleted`,
          hint: "Definitions are never deleted; restore it (a task that is no longer wanted stays in the plan).",
        }),
      );
    } else if (!deepEqual(after, definition) && !ctx.maintainer) {
      ctx.push(
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
  for (const id of ctx.added) {
    if (own(base.ledger.tasks, id)) {
      ctx.push(
        violation("id-reused", {
          task: id,
          path: options.definitions,
          line: head.definitionLine(id),
          message: `${id} is a new definition, but the ledger already knew that id`,
        }),
      );
    }
  }
  return touched;
}

/**
 * New definitions: a maintainer's planning change, or the resolver of an escalation in this pull
 * request. An external one starts blocked, waiting, without an owner, in the pull request that adds it.
 */
function checkNewDefinitions(ctx: BoardContext, outcome: LedgerOutcome): void {
  const options = ctx.config.board;
  for (const id of [...ctx.added].sort()) {
    const definition = ctx.head.definitions.get(id)!;
    if (!own(ctx.head.ledger.tasks, id)) ctx.findings.transitions.push({ task: id, from: null, to: "todo" });
    if (!ctx.maintainer && !outcome.resolvers.has(id)) {
      ctx.push(
        violation("out-of-scope", {
          task: id,
          path: options.definitions,
          line: ctx.head.definitionLine(id),
          message: `${id} is a new definition, but it is not the resolver of an escalation in this pull request`,
          hint: "New tasks are planned by a maintainer, or added as the resolver of an escalation.",
        }),
      );
    }
    const entry = entryOf(ctx.head, id);
    if (definition.external && !(entry.status === "blocked" && entry.external_wait && !entry.owner)) {
      ctx.push(
        violation("illegal-transition", {
          task: id,
          path: options.ledger,
          line: ctx.head.ledgerLine(id),
          message: `${id} is an external resolver, but its ledger entry is ${entry.status}${entry.external_wait ? "" : " without external_wait"}${entry.owner ? ` owned by ${entry.owner}` : ""}`,
          hint: `Add its entry in the same pull request: {"status": "blocked", "owner": null, "external_wait": true}; the coordinator releases it.`,
        }),
      );
    }
  }
}

function checkLedgerEntry(ctx: BoardContext, id: string, outcome: LedgerOutcome): void {
  const { base, head, config } = ctx;
  const options = config.board;
  const before = own(base.ledger.tasks, id);
  const after = own(head.ledger.tasks, id);
  if (before && !after) {
    outcome.touched.add(id);
    ctx.push(
      violation("history-rewritten", {
        task: id,
        path: options.ledger,
        message: `the ledger entry of ${id} was removed`,
        hint: "Restore it; the ledger's history is append-only.",
      }),
    );
    return;
  }
  if (!after || deepEqual(before, after)) return;
  outcome.touched.add(id);
  const definition = head.definitions.get(id);
  if (!definition) {
    ctx.push(
      violation("dependency-unknown", {
        task: id,
        path: options.ledger,
        line: head.ledgerLine(id),
        message: `the ledger has an entry for ${id}, which is not defined`,
        hint: `Define ${id} in ${options.definitions} first, or fix the id.`,
      }),
    );
    outcome.newEntries += Math.max(0, after.history.length - (before?.history.length ?? 0));
    return;
  }
  for (const resolver of after.blocked_by.filter((other) => !head.definitions.has(other))) {
    ctx.push(
      violation("dependency-unknown", {
        task: id,
        path: options.ledger,
        line: head.ledgerLine(id, "blocked_by"),
        message: `${id} is blocked by ${resolver}, which is not defined`,
      }),
    );
  }
  const fromStatus = before?.status ?? "todo";
  if (fromStatus !== after.status) ctx.findings.transitions.push({ task: id, from: fromStatus, to: after.status });
  const count = ctx.findings.violations.length;
  const task: EntryTask = {
    id,
    definition,
    start: before ?? implicitEntry(),
    after,
    subject: subjectFor(config, head, definition, id, ctx.writes, ctx.retired),
    where:
      (...path) =>
      () => ({ path: options.ledger, line: head.ledgerLine(id, ...path) }),
  };
  const added = judgeEntry(ctx, task, outcome);
  outcome.newEntries += added;
  const legal = ctx.findings.violations.length === count;
  // The author's legal work opens the task's paths: in progress, in review, or approved in this
  // pull request (the approval then covers the files as they are at the head).
  const working = after.status === "in_progress" || after.status === "review";
  if (legal && working && after.owner && ownedBy(after.owner, ctx.pr.author)) outcome.executing.add(id);
  if (legal && after.status === "done" && outcome.authorWork.has(id)) outcome.executing.add(id);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One ledger entry a pull request changes, as its rules see it. */
interface EntryTask {
  readonly id: string;
  readonly definition: Definition;
  /** The entry at the base (or the implicit `todo` entry), and as the pull request leaves it. */
  readonly start: LedgerEntry;
  readonly after: LedgerEntry;
  readonly subject: ApprovalSubject;
  where(...path: (string | number)[]): Where;
}

/** Judges the new history entries of one task, then the entry they lead to; returns how many there were. */
function judgeEntry(ctx: BoardContext, task: EntryTask, outcome: LedgerOutcome): number {
  const { id, start, after } = task;
  const rewritten = firstRewrite(start.history, after.history, deepEqual);
  if (rewritten >= 0) {
    ctx.push(
      violation("history-rewritten", {
        task: id,
        ...task.where("history", Math.min(rewritten, Math.max(0, after.history.length - 1)))(),
        message: `history entry ${rewritten + 1} of ${id} was changed or removed`,
        hint: "Restore it exactly; history is append-only.",
      }),
    );
    return 0;
  }
  const added = after.history.slice(start.history.length);
  const replay = replayHistory(ctx, task, added, outcome);
  if (replay.authorOwned) outcome.authorWork.add(id);
  // An entry created without history is an external resolver waiting for release (its shape is
  // judged with the new definitions); any other entry is what its history makes it.
  const externalStart =
    added.length === 0 && !own(ctx.base.ledger.tasks, id) && ctx.added.has(id) && task.definition.external;
  if (!externalStart) compareEntry(ctx, task, replay.entry);
  if (replay.rejectedAt >= 0 && replay.approvedAt < replay.rejectedAt) {
    const reject = added[replay.rejectedAt]!;
    ctx.push(
      violation("review-rejected", {
        task: id,
        ...task.where("history", start.history.length + replay.rejectedAt)(),
        message: `${reject.by} rejected ${id}${reject.note ? `: ${oneLine(reject.note)}` : ""}`,
      }),
    );
  }
  if (after.status === "review") {
    for (const key of replay.used) (task.subject.used as Set<string>).add(key);
    gateReview(ctx, task);
  }
  return added.length;
}

/** Replays new history entries one action rule at a time; the entry they lead to, and what they did. */
function replayHistory(
  ctx: BoardContext,
  task: EntryTask,
  added: readonly HistoryEntry[],
  outcome: LedgerOutcome,
): { entry: LedgerEntry; used: Set<string>; rejectedAt: number; approvedAt: number; authorOwned: boolean } {
  const { id, start } = task;
  const used = new Set<string>();
  const rejected = rejectedOwners(start);
  let entry = start;
  let rejectedAt = -1;
  let approvedAt = -1;
  const author = ctx.pr.author;
  let authorOwned = Boolean(start.owner && ownedBy(start.owner, author));
  // One context for the task; each history entry only swaps the entry it judges.
  const action: Mutable<ActionContext> = {
    config: ctx.config,
    pr: ctx.pr,
    judge: ctx.judge,
    base: ctx.base,
    head: ctx.head,
    writes: ctx.writes,
    maintainer: ctx.maintainer,
    added: ctx.added,
    retired: ctx.retired,
    push: ctx.push,
    findings: ctx.findings,
    id,
    definition: task.definition,
    after: task.after,
    item: added[0]!,
    entry,
    at: task.where("history"),
    subject: task.subject,
    rejected,
    used,
  };
  added.forEach((item, index) => {
    const at = task.where("history", start.history.length + index);
    if (item.from !== entry.status || !edgeFor(item.from, item.to, item.action)) {
      ctx.push(
        violation("illegal-transition", {
          task: id,
          ...at(),
          message: !edgeFor(item.from, item.to, item.action)
            ? `${id}: "${item.action}" cannot move ${item.from} → ${item.to}`
            : `${id}: "${item.action}" starts from ${item.from}, but the task was ${entry.status}`,
          hint: "claim todo→in_progress, submit in_progress→review, escalate in_progress→blocked; review outcomes and unblocks are recorded by taskgate.",
        }),
      );
      entry = applyAction(entry, item);
      return;
    }
    action.item = item;
    action.entry = entry;
    action.at = at;
    entry = ACTION_RULES[item.action](action);
    if (entry.owner && ownedBy(entry.owner, author)) authorOwned = true;
    if (item.action === "escalate") for (const resolver of entry.blocked_by) outcome.resolvers.add(resolver);
    if (item.action === "reject") rejectedAt = index;
    if (item.action === "approve") approvedAt = index;
  });
  return { entry, used, rejectedAt, approvedAt, authorOwned };
}

/** Owner keys whose submission of a task was rejected in its history. */
function rejectedOwners(entry: LedgerEntry): Set<string> {
  const rejected = new Set<string>();
  let owner: string | null = null;
  for (const item of entry.history) {
    if (item.action === "reject" && owner) rejected.add(ownerKey(owner));
    owner = applyAction({ ...implicitEntry(), owner }, item).owner;
  }
  return rejected;
}

/**
 * The entry the pull request wrote against the one its history leads to: status, owner and every
 * other key (`blocked_by`, `external_wait`, keys taskgate does not know) change only by history.
 */
function compareEntry(ctx: BoardContext, task: EntryTask, expected: LedgerEntry): void {
  const { id, start, after, where } = task;
  const keys = new Set([...Object.keys(expected), ...Object.keys(after)]);
  keys.delete("history");
  for (const key of [...keys].sort()) {
    const want = (expected as Record<string, unknown>)[key];
    const got = (after as Record<string, unknown>)[key];
    if (
      key === "owner"
        ? (want ?? null) === (got ?? null) || sameOwner(want as string, got as string)
        : deepEqual(want, got)
    ) {
      continue;
    }
    if (key === "status") {
      ctx.push(
        violation("illegal-transition", {
          task: id,
          ...where("status")(),
          message: `${id}'s status is ${after.status}, but its history makes it ${expected.status}`,
          hint: "Record each change of status as a history entry.",
        }),
      );
    } else if (key === "owner") {
      ctx.push(
        violation("owner-mismatch", {
          task: id,
          ...where("owner")(),
          message: `${id}'s owner is ${after.owner ?? "nobody"}, but its history makes it ${expected.owner ?? "nobody"}`,
          hint:
            after.status === "todo" || after.status === "blocked" || after.status === "done"
              ? `A task that is ${after.status} has no owner.`
              : "The owner is whoever claimed the task.",
        }),
      );
    } else if (start.owner && !ownedBy(start.owner, ctx.pr.author)) {
      ctx.push(
        violation("owner-mismatch", {
          task: id,
          ...where(key)(),
          message: `${id}'s entry belongs to ${start.owner}; this pull request by ${ctx.pr.author} changed its ${key}`,
          hint: "A pull request changes only its own tasks, and only through history entries.",
        }),
      );
    } else {
      ctx.push(
        violation("illegal-transition", {
          task: id,
          ...where(key)(),
          message: `${id}'s ${key} changed without a history entry that allows it`,
          hint:
            key === "blocked_by"
              ? "Only an escalation adds a resolver, and only taskgate's unblock removes one."
              : "Ledger entries change only through history entries (claim, submit, escalate, ...).",
        }),
      );
    }
  }
}

/** A task in review: approve or reject from the reviews, or wait. */
function gateReview(ctx: BoardContext, task: EntryTask): void {
  const { config, head } = ctx;
  const { id, definition, subject } = task;
  const reviewerRole = unknownRoles(config, head, definition).filter((item) => item.message.includes("reviewer_role"));
  ctx.findings.violations.push(...reviewerRole);
  const judgement = ctx.judge.judgeGate("review", subject, rolePolicy(config, "review", definition.reviewer_role));
  const latest = judgement.rejections.at(-1);
  if (latest) {
    const reason = latest.review.body?.trim() || "changes requested";
    ctx.findings.records.push({
      task: id,
      from: "review",
      to: "todo",
      by: latest.login,
      kind: "reject",
      reason,
      ...(latest.review.submitted_at ? { at: latest.review.submitted_at } : {}),
    });
    ctx.push(
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
    ctx.findings,
  );
}

/** The revision rises by exactly one per history entry added. */
function checkRevision(ctx: BoardContext, newEntries: number): void {
  const { base, head } = ctx;
  if (!head.hasLedger || (newEntries === 0 && base.ledger.revision === head.ledger.revision)) return;
  const expected = base.ledger.revision + newEntries;
  if (head.ledger.revision === expected) return;
  ctx.push(
    violation("state-invalid", {
      path: ctx.config.board.ledger,
      message: `revision is ${head.ledger.revision}, but ${newEntries} change(s) after revision ${base.ledger.revision} make it ${expected}`,
      hint: "Increase revision by one for each history entry added.",
    }),
  );
}

/** One unfinished task per owner; retired owners own nothing. */
function checkOwners(ctx: BoardContext, touched: ReadonlySet<string>): void {
  const options = ctx.config.board;
  const owned = ownedUnfinished(ctx.head);
  const before = ownedUnfinished(ctx.base);
  for (const [key, { owner, tasks }] of owned) {
    if (tasks.length > 1 && tasks.length > (before.get(key)?.tasks.length ?? 0)) {
      ctx.push(
        violation("owner-limit", {
          task: tasks.find((id) => touched.has(id)) ?? tasks[0],
          path: options.ledger,
          message: `${owner} owns ${tasks.length} unfinished tasks (${tasks.join(", ")})`,
        }),
      );
    }
  }
  const retired = retiredOwners(ctx.head);
  const reported = new Set(
    ctx.findings.violations.filter((item) => item.code === "agent-retired").map((item) => item.task),
  );
  for (const [key, { owner, tasks }] of owned) {
    if (!retired.has(key) || !tasks.some((id) => touched.has(id)) || tasks.some((id) => reported.has(id))) continue;
    ctx.push(
      violation("agent-retired", {
        task: tasks[0],
        path: options.ledger,
        message: `${owner} escalated a blocker and is retired, but still owns ${tasks.join(", ")}`,
        hint: "A retired owner owns nothing; a fresh agent id takes the work on.",
      }),
    );
  }
}

/** A blocked task whose resolvers are all done goes back to work: the bot records it. */
function recordUnblocks(ctx: BoardContext, touched: ReadonlySet<string>): void {
  for (const [id, entry] of Object.entries(ctx.head.ledger.tasks)) {
    if (entry.status !== "blocked" || entry.blocked_by.length === 0) continue;
    if (!entry.blocked_by.some((resolver) => touched.has(resolver))) continue;
    if (entry.blocked_by.every((resolver) => entryOf(ctx.head, resolver).status === "done")) {
      ctx.findings.records.push({
        task: id,
        from: "blocked",
        to: unblockTarget(entry),
        by: botName(ctx.config),
        kind: "unblock",
      });
    }
  }
}

/** What one file is to a board pull request, and the violation it is when it lies out of scope. */
export interface BoardFileVerdict {
  /**
   * `board`: the definitions or the ledger (their content is judged by the rules above); `metadata`:
   * evidence, handoffs and issue reports; `task`: inside the paths of a task being worked on.
   */
  readonly kind: "board" | "framework" | "rendered" | "metadata" | "task" | "project";
  /** The tasks whose paths hold the file (kind `task`). */
  readonly tasks?: readonly string[];
  readonly violation?: Violation;
}

/**
 * The one rule on which files a board pull request may change, one path at a time: inside the paths
 * of the tasks the author legally works on (`executing`), or the board's own files and the evidence,
 * handoffs and issue reports of a task it touches (`touched`); never framework files; rendered status
 * files are derived and in scope. The check asks it about every changed file, and `can-edit` about
 * one, so the two cannot disagree.
 */
export function boardFileRule(
  config: Config,
  head: Board,
  executing: ReadonlySet<string>,
  touched: ReadonlySet<string>,
): (path: string) => BoardFileVerdict {
  const options = config.board;
  const stateDirs = [options.evidence_dir, options.handoffs_dir, options.issues_dir];
  const classify = pathClassifier(config, (path) => path === options.ledger || path === options.definitions);
  const owners = globIndex(new Map([...executing].map((id) => [id, head.definitions.get(id)?.paths ?? []] as const)));
  const working = [...executing].sort();
  return (path) => {
    const kind = classify(path);
    if (kind === "own") return { kind: "board" };
    if (kind === "framework") return { kind, violation: frameworkViolations([path])[0]! };
    if (kind === "rendered") return { kind };
    if (stateDirs.some((dir) => path.startsWith(`${dir}/`))) {
      if (isTaskMetadata(options, touched, path)) return { kind: "metadata" };
      return {
        kind: "metadata",
        violation: violation("out-of-scope", {
          path,
          message: `${path} belongs to no task this pull request works on`,
          hint: "Evidence, handoffs and issue reports are named after their task; change them with that task.",
        }),
      };
    }
    const tasks = owners(path);
    if (tasks.length > 0) return { kind: "task", tasks };
    return {
      kind: "project",
      violation: violation("out-of-scope", {
        path,
        message:
          working.length > 0
            ? `${path} is outside the paths of ${working.slice(0, 5).join(", ")}${working.length > 5 ? ` and ${working.length - 5} more` : ""}`
            : `${path} is a project file, but this pull request works on no task of its author's in progress`,
        hint: "A shared file outside the task's paths is a separate task, not part of this one.",
      }),
    };
  };
}

/** Changed files, each judged by `boardFileRule`; a change that touches no task is `task-missing`. */
function checkFiles(ctx: BoardContext, headSnapshot: Snapshot, outcome: LedgerOutcome): void {
  const { config, pr, head } = ctx;
  const rule = boardFileRule(config, head, outcome.executing, outcome.touched);
  const paths: ChangedPaths & { framework: string[]; rendered: string[]; project: string[] } = {
    framework: [],
    rendered: [],
    project: [],
  };
  const frameworkProblems: Violation[] = [];
  const problems: Violation[] = [];
  for (const path of changedPathsOf(pr.files)) {
    const verdict = rule(path);
    if (verdict.kind === "board") continue;
    if (verdict.kind === "framework" || verdict.kind === "rendered") {
      paths[verdict.kind].push(path);
      if (verdict.violation) frameworkProblems.push(verdict.violation);
      continue;
    }
    paths.project.push(path);
    const entry = verdict.kind === "metadata" ? headSnapshot.files.get(path) : undefined;
    if (entry) ctx.findings.violations.push(...secretProblems(entry));
    if (verdict.violation) problems.push(verdict.violation);
  }
  if (outcome.touched.size > 0) {
    ctx.findings.violations.push(...frameworkProblems, ...problems);
    return;
  }
  const missing = taskMissing(config, pr, paths, {
    what: `works on no task of ${config.board.ledger}`,
    fix: "claim a task in the ledger",
    projectNeeds: "a claimed task",
  });
  if (missing) ctx.findings.violations.push(missing);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/**
 * What to commit after a pull request: the evidence, handoffs and issue reports named by the tasks
 * it changed that it did not add itself.
 */
export function boardFollowUp(options: BoardConfig, base: Snapshot, head: Snapshot): SnapshotScope {
  const before = readBoard(base, options);
  const board = readBoard(head, options, base);
  const wanted = new Set<string>();
  for (const [id, entry] of Object.entries(board.ledger.tasks)) {
    if (deepEqual(own(before.ledger.tasks, id), entry)) continue;
    for (const item of entry.history) {
      for (const path of [item.evidence, item.handoff]) if (path && !isSuspiciousPath(path)) wanted.add(path);
      if (item.action === "escalate") wanted.add(issuePath(options, id, item.by));
    }
    wanted.add(handoffPath(options, id));
  }
  for (const path of [...wanted]) if (head.files.has(path)) wanted.delete(path);
  return { paths: [...wanted], prefixes: [] };
}
