/**
 * One rule per board action (claim, submit, approve, reject, escalate, unblock, release, reassign).
 * Each judges one new history entry of one task over a small context and returns the ledger entry
 * it leads to (replayed with the writer's own `applyAction`), so the entry the pull request wrote
 * can be compared with what its history allows.
 */
import {
  pendingFor,
  reviewKey,
  unbackedCode,
  type ApprovalJudge,
  type ApprovalSubject,
  type ReviewVerdict,
} from "../kernel/approval.js";
import { botLogins, type Config } from "../kernel/config.js";
import type { Findings } from "../kernel/model.js";
import type { PrContext, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import { checkReferencedFile, entryOf, handoffPath, issuePath, type Board } from "./reader.js";
import { addedBy, type BoardWrites } from "./decisions.js";
import type { Action, Definition, HistoryEntry, LedgerEntry } from "./formats.js";
import { OWNER_HINT, ownedBy, ownerKey, parseOwner, sameOwner } from "./owners.js";
import { isConfiguredRole, rolePolicy } from "./policy.js";
import { applyAction, reviewsOf } from "./records.js";

/** Where a finding points: computed only when one is made. */
export type Where = () => { path: string; line?: number | undefined };

export interface ActionContext {
  readonly config: Config;
  readonly pr: PrContext;
  readonly judge: ApprovalJudge;
  readonly base: Board;
  readonly head: Board;
  readonly id: string;
  readonly definition: Definition;
  /** The entry as the pull request leaves it. */
  readonly after: LedgerEntry;
  /** The history entry being judged, and the entry before it. */
  readonly item: HistoryEntry;
  readonly entry: LedgerEntry;
  readonly at: Where;
  readonly subject: ApprovalSubject;
  readonly writes: BoardWrites;
  readonly maintainer: boolean;
  /** Definitions this pull request adds. */
  readonly added: ReadonlySet<string>;
  /** Owner keys retired so far (grows with each escalation). */
  readonly retired: Set<string>;
  /** Owner keys whose submission of this task was rejected. */
  readonly rejected: Set<string>;
  /** Review identities already used by a decision of this task in this pull request. */
  readonly used: Set<string>;
  push(item: Violation): void;
  readonly findings: Findings;
}

export type ActionRule = (ctx: ActionContext) => LedgerEntry;

/** The owner string of an entry is well formed. */
function checkOwnerString(ctx: ActionContext): boolean {
  if (parseOwner(ctx.item.by)) return true;
  ctx.push(
    violation("owner-mismatch", {
      task: ctx.id,
      ...ctx.at(),
      message: `"${ctx.item.by}" is not a valid owner for ${ctx.item.action} of ${ctx.id}`,
      hint: OWNER_HINT,
    }),
  );
  return false;
}

/** claim, submit and escalate are acts of the pull request's author (or one of their agents). */
function checkActsForAuthor(ctx: ActionContext): void {
  if (ownedBy(ctx.item.by, ctx.pr.author)) return;
  ctx.push(
    violation("owner-mismatch", {
      task: ctx.id,
      ...ctx.at(),
      message: `${ctx.item.action} of ${ctx.id} is made for ${ctx.item.by}, but the pull request is by ${ctx.pr.author}`,
      hint: `A pull request acts only for its author: use ${ctx.pr.author} or ${ctx.pr.author}/<agent-id>.`,
    }),
  );
}

function checkNotRetired(ctx: ActionContext, what: string): void {
  if (!ctx.retired.has(ownerKey(ctx.item.by))) return;
  ctx.push(
    violation("agent-retired", {
      task: ctx.id,
      ...ctx.at(),
      message: `${ctx.item.by} escalated a blocker and is retired; it cannot ${what}`,
    }),
  );
}

/** submit and escalate come from the task's current owner. */
function checkIsOwner(ctx: ActionContext): void {
  if (sameOwner(ctx.entry.owner, ctx.item.by)) return;
  ctx.push(
    violation("owner-mismatch", {
      task: ctx.id,
      ...ctx.at(),
      message: `${ctx.id} is owned by ${ctx.entry.owner ?? "nobody"}, but ${ctx.item.action} names ${ctx.item.by}`,
      hint: "Only the task's owner submits or escalates it.",
    }),
  );
}

const claim: ActionRule = (ctx) => {
  const { id, item, definition } = ctx;
  if (checkOwnerString(ctx)) {
    checkNotRetired(ctx, "claim a task");
    checkActsForAuthor(ctx);
    if (ctx.rejected.has(ownerKey(item.by))) {
      ctx.push(
        violation("owner-mismatch", {
          task: id,
          ...ctx.at(),
          message: `${item.by}'s submission of ${id} was rejected; a new executor continues`,
          hint: `Claim with a fresh agent id (${parseOwner(item.by)!.login}/<new-agent-id>).`,
        }),
      );
    }
  }
  const unmet = definition.depends_on.filter((dependency) => entryOf(ctx.head, dependency).status !== "done");
  if (unmet.length > 0) {
    ctx.push(
      violation("dependency-unmet", {
        task: id,
        ...ctx.at(),
        message: `${id} was claimed while ${unmet.join(", ")} ${unmet.length > 1 ? "are" : "is"} not done`,
      }),
    );
  }
  return applyAction(ctx.entry, item);
};

const reassign: ActionRule = (ctx) => {
  if (!ctx.maintainer) {
    ctx.push(
      violation("owner-mismatch", {
        task: ctx.id,
        ...ctx.at(),
        message: `${ctx.id} was reassigned by ${ctx.pr.author}, who is not a maintainer`,
        hint: "Only maintainers reassign an in-progress task, as an agreed recovery.",
      }),
    );
  }
  if (checkOwnerString(ctx)) checkNotRetired(ctx, "take a task back");
  return applyAction(ctx.entry, ctx.item);
};

const submit: ActionRule = (ctx) => {
  const { id, item, head } = ctx;
  if (checkOwnerString(ctx)) {
    checkIsOwner(ctx);
    checkActsForAuthor(ctx);
    checkNotRetired(ctx, "submit");
  }
  const options = ctx.config.board;
  ctx.findings.violations.push(
    ...checkReferencedFile(head.snapshot, id, "evidence", item.evidence, options.evidence_dir, ctx.at),
    ...handoffProblems(ctx),
  );
  return applyAction(ctx.entry, item);
};

/** The handoff a submit or an escalation names (or the task's default one) exists and is usable. */
function handoffProblems(ctx: ActionContext): readonly Violation[] {
  const options = ctx.config.board;
  const path = ctx.item.handoff ?? handoffPath(options, ctx.id);
  return checkReferencedFile(ctx.head.snapshot, ctx.id, "handoff", path, options.handoffs_dir, ctx.at);
}

const escalate: ActionRule = (ctx) => {
  const { id, item, head, entry, after } = ctx;
  const options = ctx.config.board;
  if (checkOwnerString(ctx)) {
    checkIsOwner(ctx);
    checkActsForAuthor(ctx);
    checkNotRetired(ctx, "escalate again");
  }
  const reporter = entry.owner ?? item.by;
  ctx.retired.add(ownerKey(item.by));
  ctx.retired.add(ownerKey(reporter));
  ctx.findings.violations.push(
    ...checkReferencedFile(
      head.snapshot,
      id,
      "issue report",
      issuePath(options, id, reporter),
      options.issues_dir,
      ctx.at,
    ),
    ...handoffProblems(ctx),
  );
  // Resolvers are added only here, and only new tasks of this pull request; none is removed.
  const where = () => ({ path: options.ledger, line: head.ledgerLine(id, "blocked_by") });
  const known = new Set(entry.blocked_by);
  const resolvers = after.blocked_by.filter((resolver) => !known.has(resolver));
  const fresh = resolvers.filter((resolver) => ctx.added.has(resolver));
  if (fresh.length === 0) {
    ctx.push(
      violation("blocked-without-resolver", {
        task: id,
        ...where(),
        message:
          resolvers.length === 0
            ? `${id} was escalated but blocked_by names no new resolver`
            : `${id} is blocked by ${resolvers.join(", ")}, but none is a new task of this pull request`,
      }),
    );
  }
  for (const resolver of fresh.length > 0 ? resolvers.filter((other) => !ctx.added.has(other)) : []) {
    ctx.push(
      violation("blocked-without-resolver", {
        task: id,
        ...where(),
        message: `${id} is escalated with ${resolver} as resolver, but ${resolver} is not a new task of this pull request`,
        hint: "An escalation adds a new resolver task to the definitions and names it in blocked_by.",
      }),
    );
  }
  for (const resolver of fresh) {
    if (dependsOn(head, resolver, id)) {
      ctx.push(
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
  return applyAction(entry, item, resolvers);
};

/** approve and reject: only the bot records them, from eligible reviews of this pull request. */
function reviewOutcome(ctx: ActionContext, state: "APPROVED" | "CHANGES_REQUESTED"): LedgerEntry {
  const { id, item, definition } = ctx;
  const policy = rolePolicy(ctx.config, "review", definition.reviewer_role);
  const commits = addedBy(ctx.writes, id, item);
  const good = new Set<string>();
  for (const review of reviewsOf(item)) {
    const key = reviewKey(review.by, review.at);
    const verdict: ReviewVerdict = ctx.used.has(key)
      ? {
          login: review.by,
          review: { user: { login: review.by }, state },
          ok: false,
          reason: "reused",
          detail: `the review at ${review.at} already records another decision on ${id}; each decision needs its own review`,
        }
      : ctx.judge.judgeRecord(
          { gate: "review", login: review.by, at: review.at, state, addedBy: commits, final: state === "APPROVED" },
          ctx.subject,
          policy,
        );
    if (verdict.ok) {
      good.add(review.by.toLowerCase());
      ctx.used.add(key);
      continue;
    }
    ctx.push(
      violation(unbackedCode(verdict), {
        task: id,
        ...ctx.at(),
        message: `${item.action} of ${id} by ${review.by} does not count: ${verdict.detail}`,
        hint: "Review outcomes are recorded by taskgate from an eligible review; remove this entry.",
      }),
    );
  }
  if (state === "APPROVED" && good.size > 0 && good.size < policy.count) {
    ctx.push(
      violation("approval-forged", {
        task: id,
        ...ctx.at(),
        message: `${id} was approved by ${good.size} eligible review(s), but its gate needs ${policy.count}`,
      }),
    );
  }
  if (state === "CHANGES_REQUESTED") ctx.rejected.add(ownerKey(ctx.entry.owner ?? ""));
  return applyAction(ctx.entry, item);
}

const approve: ActionRule = (ctx) => reviewOutcome(ctx, "APPROVED");
const reject: ActionRule = (ctx) => reviewOutcome(ctx, "CHANGES_REQUESTED");

const unblock: ActionRule = (ctx) => {
  const { id, item, entry } = ctx;
  if (addedBy(ctx.writes, id, item).length === 0) {
    ctx.push(
      violation("illegal-transition", {
        task: id,
        ...ctx.at(),
        message: `${id} was unblocked by ${item.by}, but no commit by ${botLogins(ctx.config).join(" or ")} added the entry`,
        hint: "taskgate unblocks a task itself once every resolver is done; remove this entry.",
      }),
    );
  }
  const open = entry.blocked_by.filter((resolver) => entryOf(ctx.head, resolver).status !== "done");
  if (open.length > 0 || entry.blocked_by.length === 0) {
    ctx.push(
      violation("unblock-unresolved", {
        task: id,
        ...ctx.at(),
        message:
          open.length > 0
            ? `${id} was unblocked while ${open.join(", ")} ${open.length > 1 ? "are" : "is"} not done`
            : `${id} was unblocked, but blocked_by names no resolver`,
      }),
    );
  }
  return applyAction(entry, item);
};

/** A release of an external resolver: proposed in the pull request, opened by the coordinator. */
const release: ActionRule = (ctx) => {
  const { id, item, definition, config } = ctx;
  if (!definition.external || !ctx.entry.external_wait) {
    ctx.push(
      violation("illegal-transition", {
        task: id,
        ...ctx.at(),
        message: `${id} is not an external resolver waiting for release; only those are released`,
      }),
    );
    return applyAction(ctx.entry, item);
  }
  const role = config.board.coordinator_role;
  if (!isConfiguredRole(config, role)) {
    ctx.push(
      violation("config-invalid", {
        task: id,
        path: ".github/taskgate.yml",
        message: `the coordinator role "${role}" is not a role of .github/taskgate.yml, so nobody can release ${id}`,
        hint: `Add ${role} to \`roles\` with the people who release external resolvers.`,
      }),
    );
  }
  const judgement = ctx.judge.judgeGate("release", ctx.subject, rolePolicy(config, "release", role));
  if (judgement.met) {
    for (const verdict of judgement.approvals.slice(-judgement.policy.count)) {
      ctx.used.add(reviewKey(verdict.login, verdict.review.submitted_at));
    }
  }
  // A release needs no record: the coordinator's live approval opens it, or it waits.
  if (!judgement.met) {
    const where = ctx.at();
    ctx.findings.pending.push(
      pendingFor(judgement, {
        task: id,
        from: "blocked",
        to: "todo",
        path: where.path,
        line: where.line,
        waiting: `the release of ${id} waits for approval`,
      }),
    );
  }
  return applyAction(ctx.entry, item);
};

export const ACTION_RULES: Readonly<Record<Action, ActionRule>> = {
  claim,
  reassign,
  submit,
  escalate,
  approve,
  reject,
  unblock,
  release,
};

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
