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
  type Board,
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
  const ctx: AuditContext = { config, options, snapshot, board, findings };
  for (const rule of AUDIT_RULES) rule(ctx);
  return findings;
}

/*
 * The rules at rest are two tables: `AUDIT_RULES`, over the whole board, run in order; and
 * `LEDGER_RULES`, over one ledger entry, run in order on each entry while the ledger is walked once.
 */

type LedgerEntry = Board["ledger"]["tasks"][string];
type Definition = Board["definitionList"][number];

/** What every rule at rest reads, and the findings it adds to. */
export interface AuditContext {
  readonly config: Config;
  readonly options: Config["board"];
  readonly snapshot: Snapshot;
  /** The board, read without problems. */
  readonly board: Board;
  readonly findings: Findings;
}

/** One ledger entry, as the rules over entries see it. */
export interface EntryContext extends AuditContext {
  readonly id: string;
  readonly entry: LedgerEntry;
  readonly definition: Definition | undefined;
  /** An external task waiting outside the board: blocked from the start, with no history. */
  readonly external: boolean;
  /** The ledger's file and the line of this entry (or of a path inside it). */
  at(...path: (string | number)[]): { path: string; line: number | undefined };
}

export type AuditRule = (ctx: AuditContext) => void;
export type EntryRule = (ctx: EntryContext) => void;

/** Rendered status files stamped with the current state (when the repository renders them). */
function renderedFilesCurrent(ctx: AuditContext): void {
  const root = renderRootOf(ctx.config);
  ctx.findings.violations.push(...staleViolations(() => boardRenderPlan(ctx.board, root), ctx.snapshot, root));
}

/** The dependency graph: known tasks, no cycles. */
function graphSound(ctx: AuditContext): void {
  ctx.findings.violations.push(...graphProblems(ctx.board));
}

/** Every role a definition names is configured. */
function rolesKnown(ctx: AuditContext): void {
  ctx.board.definitions.forEach((definition) => {
    const problems = unknownRoles(ctx.config, ctx.board, definition);
    if (problems.length > 0) ctx.findings.violations.push(...problems);
  });
}

/** One unfinished task per owner, and none for an owner retired by an escalation. */
function ownersWithinLimits(ctx: AuditContext): void {
  const { board, options, findings } = ctx;
  const retired = retiredOwners(board);
  ownedUnfinished(board).forEach(({ owner, tasks }, key) => {
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
  });
}

/**
 * Walks the ledger once, running `LEDGER_RULES` in order on each entry. One view is moved from
 * entry to entry (no object per entry); the rules use it while they run and keep nothing of it.
 */
function ledgerEntriesSound(ctx: AuditContext): void {
  const tasks = ctx.board.ledger.tasks;
  let view: EntryView | undefined;
  for (const id in tasks) {
    if (!Object.hasOwn(tasks, id)) continue;
    if (view === undefined) view = new EntryView(ctx, id, tasks[id]!);
    else view.moveTo(id, tasks[id]!);
    for (let rule = 0; rule < LEDGER_RULES.length; rule++) LEDGER_RULES[rule]!(view);
  }
}

/** Files of the board's own folders: no symlinks, no secrets, readable as text. */
function folderFilesClean(ctx: AuditContext): void {
  const { options, findings } = ctx;
  const [evidence, handoffs, issues] = [options.evidence_dir, options.handoffs_dir, options.issues_dir].map(
    (dir) => `${dir}/`,
  );
  ctx.snapshot.files.forEach((entry, path) => {
    if (!path.startsWith(evidence!) && !path.startsWith(handoffs!) && !path.startsWith(issues!)) return;
    if (entry.kind === "symlink") {
      findings.violations.push(
        violation("path-escape", {
          path,
          message: `${path} is a symlink${entry.target ? ` to ${entry.target}` : ""}`,
          hint: "Evidence, handoffs and issue reports are regular files inside their folders.",
        }),
      );
    }
    const secrets = secretProblems(entry);
    if (secrets.length > 0) findings.violations.push(...secrets);
  });
}

/** The history is a chain of the board's edges from `todo`, and ends at the entry's status. */
function historyChains(ctx: EntryContext): void {
  const { id, entry, findings } = ctx;
  let status: Status = "todo";
  const history = entry.history;
  for (let index = 0; index < history.length; index++) {
    const item = history[index]!;
    if (item.from !== status || !edgeFor(item.from, item.to, item.action)) {
      findings.violations.push(
        violation("illegal-transition", {
          task: id,
          ...ctx.at("history", index),
          message: `${id}'s history entry ${index + 1} (${item.action} ${item.from} → ${item.to}) does not follow from ${status}`,
        }),
      );
      break;
    }
    status = item.to;
  }
  if (!ctx.external && entry.history.length > 0 && status !== entry.status) {
    findings.violations.push(
      violation("illegal-transition", {
        task: id,
        ...ctx.at("status"),
        message: `${id}'s status is ${entry.status}, but its history ends at ${status}`,
      }),
    );
  }
}

/** An owner, when there is one, is a login or `login/agent-id`. */
function ownerWellFormed(ctx: EntryContext): void {
  const { id, entry } = ctx;
  if (!entry.owner || parseOwner(entry.owner)) return;
  ctx.findings.violations.push(
    violation("owner-mismatch", {
      task: id,
      ...ctx.at("owner"),
      message: `${id}'s owner "${entry.owner}" is not a valid owner`,
      hint: OWNER_HINT,
    }),
  );
}

/** An unfinished task has an owner. */
function unfinishedOwned(ctx: EntryContext): void {
  const { id, entry } = ctx;
  if (!UNFINISHED.has(entry.status) || entry.owner) return;
  ctx.findings.violations.push(
    violation("owner-mismatch", {
      task: id,
      ...ctx.at("status"),
      message: `${id} is ${entry.status} without an owner`,
    }),
  );
}

/** A task started, in review or done has every dependency done. */
function dependenciesDone(ctx: EntryContext): void {
  const { id, entry, definition, board } = ctx;
  if (!definition || (entry.status !== "in_progress" && entry.status !== "review" && entry.status !== "done")) return;
  // A list only once a dependency is not done: most are.
  let unmet: string[] | undefined;
  const dependencies = definition.depends_on;
  for (let index = 0; index < dependencies.length; index++) {
    if (entryOf(board, dependencies[index]!).status !== "done") (unmet ??= []).push(dependencies[index]!);
  }
  if (unmet === undefined) return;
  ctx.findings.violations.push(
    violation("dependency-unmet", {
      task: id,
      ...ctx.at("status"),
      message: `${id} is ${entry.status} while ${unmet.join(", ")} ${unmet.length > 1 ? "are" : "is"} not done`,
    }),
  );
}

/** A task in review or done names, in its last submission, evidence and a handoff that exist. */
function submissionFilesExist(ctx: EntryContext): void {
  const { id, entry, options, snapshot } = ctx;
  if (entry.status !== "review" && entry.status !== "done") return;
  const submit = lastSubmit(entry);
  if (!submit) return;
  const where = () => ctx.at("history", entry.history.indexOf(submit));
  const evidence = checkReferencedFile(snapshot, id, "evidence", submit.evidence, options.evidence_dir, where);
  if (evidence.length > 0) ctx.findings.violations.push(...evidence);
  const handoff = checkReferencedFile(
    snapshot,
    id,
    "handoff",
    submit.handoff ?? handoffPath(options, id),
    options.handoffs_dir,
    where,
  );
  if (handoff.length > 0) ctx.findings.violations.push(...handoff);
}

/** A blocked task names its resolvers; once they are all done, taskgate records its unblocking. */
function blockersResolved(ctx: EntryContext): void {
  const { id, entry, board, findings } = ctx;
  if (entry.status !== "blocked") return;
  if (entry.blocked_by.length === 0 && !ctx.external) {
    findings.violations.push(
      violation("blocked-without-resolver", {
        task: id,
        ...ctx.at("blocked_by"),
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
      by: botName(ctx.config),
      kind: "unblock",
    });
  }
}

/** The rules over one ledger entry, in the order their findings are reported. */
export const LEDGER_RULES: readonly EntryRule[] = [
  historyChains,
  ownerWellFormed,
  unfinishedOwned,
  dependenciesDone,
  submissionFilesExist,
  blockersResolved,
];

/** The rules over the whole board, in the order their findings are reported. */
export const AUDIT_RULES: readonly AuditRule[] = [
  renderedFilesCurrent,
  graphSound,
  rolesKnown,
  ownersWithinLimits,
  ledgerEntriesSound,
  folderFilesClean,
];

/** An external task waiting outside the board: blocked from the start, with no history. */
function isExternalWait(definition: Definition | undefined, entry: LedgerEntry): boolean {
  return !!definition?.external && entry.history.length === 0 && entry.status === "blocked";
}

/** The context of one ledger entry. */
export function entryContext(ctx: AuditContext, id: string, entry: LedgerEntry): EntryContext {
  return new EntryView(ctx, id, entry);
}

/** An `EntryContext` as a class: no copy of the context, no closure; `moveTo` points it at another entry. */
class EntryView implements EntryContext {
  readonly config: Config;
  readonly options: Config["board"];
  readonly snapshot: Snapshot;
  readonly board: Board;
  readonly findings: Findings;
  id: string;
  entry: LedgerEntry;
  definition: Definition | undefined;
  external: boolean;

  constructor(ctx: AuditContext, id: string, entry: LedgerEntry) {
    this.config = ctx.config;
    this.options = ctx.options;
    this.snapshot = ctx.snapshot;
    this.board = ctx.board;
    this.findings = ctx.findings;
    this.id = id;
    this.entry = entry;
    this.definition = ctx.board.definitions.get(id);
    this.external = isExternalWait(this.definition, entry);
  }

  /** The view of another entry of the same ledger. */
  moveTo(id: string, entry: LedgerEntry): void {
    this.id = id;
    this.entry = entry;
    this.definition = this.board.definitions.get(id);
    this.external = isExternalWait(this.definition, entry);
  }

  at(...path: (string | number)[]): { path: string; line: number | undefined } {
    return { path: this.options.ledger, line: this.board.ledgerLine(this.id, ...path) };
  }
}
