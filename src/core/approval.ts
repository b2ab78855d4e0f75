/**
 * Review-as-approval: which PR reviews count as approval of a gate on one task. Shared by every
 * workflow model. A review counts when it is the reviewer's latest decision, the reviewer did not
 * write the change, holds the gate's approver role and permission, and nothing touched the task
 * after the reviewed commit.
 */
import type { ApprovalRuleConfig, Config } from "./config.js";
import type { Findings } from "./model.js";
import type { Permission, PrCommit, PrContext, Review } from "./types.js";
import { violation } from "./violations.js";

export type Ineligibility = "author" | "contributor" | "bot" | "not-approver" | "permission" | "stale" | "conflict";

export interface ReviewVerdict {
  readonly login: string;
  readonly review: Review;
  readonly ok: boolean;
  readonly reason?: Ineligibility;
  /** Why, in words, when not ok. */
  readonly detail?: string;
}

export interface ApprovalSubject {
  readonly task: string;
  /** Is a repository path one of the task's files? A later push to them makes approvals stale. */
  touches(path: string): boolean;
  /** Lower-cased logins that may not review this task, with the reason (board: owners, submitters). */
  readonly barred?: ReadonlyMap<string, string>;
}

export interface GateJudgement {
  /** Eligible approvals from the reviewers' latest decisions, oldest first. */
  readonly approvals: readonly ReviewVerdict[];
  /** Latest APPROVED reviews that do not count, with the reason. */
  readonly ignored: readonly ReviewVerdict[];
  /** Eligible latest CHANGES_REQUESTED reviews, oldest first. */
  readonly rejections: readonly ReviewVerdict[];
  readonly met: boolean;
  readonly policy: ApprovalRuleConfig;
}

const RANK: Record<Permission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

export function lower(login: string): string {
  return login.toLowerCase();
}

/** The approval rule for one gate: the global rule with the gate's overrides. */
export function gatePolicy(config: Config, gate: string): ApprovalRuleConfig {
  const { gates, ...base } = config.approvals;
  const override = gates[gate] ?? {};
  return { ...base, ...stripUndefined(override) };
}

export function isBotLogin(login: string | null | undefined, config: Config, type?: string): boolean {
  if (!login) return false;
  return type === "Bot" || lower(login) === lower(config.bot) || /\[bot\]$/i.test(login);
}

/** Reviews that decide: per reviewer, the latest review that is not COMMENTED or PENDING. */
export function latestDecisions(reviews: readonly Review[]): Review[] {
  const ordered = reviews
    .map((review, index) => ({ review, index }))
    .filter(({ review }) => review.user?.login && review.state !== "COMMENTED" && review.state !== "PENDING")
    .sort((a, b) => timeOf(a.review) - timeOf(b.review) || a.index - b.index);
  const latest = new Map<string, Review>();
  for (const { review } of ordered) latest.set(lower(review.user!.login), review);
  return [...latest.values()];
}

/** Expands approver principals to a membership test over logins. */
export function principalMatcher(
  principals: readonly string[],
  config: Config,
  pr: Pick<PrContext, "teams">,
): (login: string) => boolean {
  const logins = new Set<string>();
  const teams = new Set<string>();
  const visit = (entry: string, seen: Set<string>) => {
    if (entry.startsWith("role:")) {
      const role = entry.slice(5);
      if (seen.has(role)) return;
      seen.add(role);
      for (const member of config.roles[role] ?? []) visit(member, seen);
    } else if (entry.startsWith("@")) teams.add(lower(entry));
    else logins.add(lower(entry));
  };
  for (const principal of principals) visit(principal, new Set());
  const teamMembers = new Set<string>();
  for (const [team, members] of Object.entries(pr.teams)) {
    if (teams.has(lower(team))) for (const member of members) teamMembers.add(lower(member));
  }
  return (login) => logins.has(lower(login)) || teamMembers.has(lower(login));
}

/** People who may approve a gate, in words for messages and pending items. */
export function describeApprovers(policy: ApprovalRuleConfig): string[] {
  return policy.approvers.length > 0 ? [...policy.approvers] : [`anyone with ${policy.min_permission} permission`];
}

export class ApprovalJudge {
  private readonly contributors: Set<string>;
  private readonly commitIndex: Map<string, number>;

  constructor(
    private readonly config: Config,
    private readonly pr: PrContext,
  ) {
    this.contributors = new Set(
      pr.commits
        .filter((commit) => commit.author && !isBotLogin(commit.author, config))
        .map((commit) => lower(commit.author!))
        .filter((login) => login !== lower(pr.author)),
    );
    this.commitIndex = new Map(pr.commits.map((commit, index) => [commit.sha, index]));
  }

  /** Judges one gate on one task from the reviewers' latest decisions. */
  judgeGate(gate: string, subject: ApprovalSubject, override: Partial<ApprovalRuleConfig> = {}): GateJudgement {
    const policy = { ...gatePolicy(this.config, gate), ...override };
    const approvals: ReviewVerdict[] = [];
    const ignored: ReviewVerdict[] = [];
    const rejections: ReviewVerdict[] = [];
    for (const review of latestDecisions(this.pr.reviews)) {
      if (review.state !== "APPROVED" && review.state !== "CHANGES_REQUESTED") continue;
      const verdict = this.judgeReview(review, policy, subject, false);
      if (review.state === "APPROVED") (verdict.ok ? approvals : ignored).push(verdict);
      else if (verdict.ok) rejections.push(verdict);
    }
    return { approvals, ignored, rejections, met: approvals.length >= policy.count, policy };
  }

  /**
   * Judges a recorded decision (an approval line or history entry naming `login`): is there a review
   * by that login, in the given state, that was eligible and fresh when the bot recorded it?
   */
  backing(
    gate: string,
    login: string,
    subject: ApprovalSubject,
    state: "APPROVED" | "CHANGES_REQUESTED" = "APPROVED",
    override: Partial<ApprovalRuleConfig> = {},
  ): ReviewVerdict | undefined {
    const policy = { ...gatePolicy(this.config, gate), ...override };
    const candidates = this.pr.reviews.filter(
      (review) => review.state === state && review.user?.login && lower(review.user.login) === lower(login),
    );
    let best: ReviewVerdict | undefined;
    for (const review of candidates) {
      const verdict = this.judgeReview(review, policy, subject, true);
      if (verdict.ok) return verdict;
      best ??= verdict;
    }
    return best;
  }

  private judgeReview(
    review: Review,
    policy: ApprovalRuleConfig,
    subject: ApprovalSubject,
    recorded: boolean,
  ): ReviewVerdict {
    const login = review.user!.login;
    const who = lower(login);
    const no = (reason: Ineligibility, detail: string): ReviewVerdict => ({ login, review, ok: false, reason, detail });
    if (isBotLogin(login, this.config, review.user?.type)) return no("bot", `${login} is a bot; bots never approve`);
    if (who === lower(this.pr.author) && !policy.allow_author) {
      return no("author", `${login} is the author of the pull request`);
    }
    if (this.contributors.has(who) && !policy.allow_contributor) {
      return no("contributor", `${login} pushed commits to the pull request`);
    }
    const barred = subject.barred?.get(who);
    if (barred) return no("conflict", `${login} ${barred}`);
    if (policy.approvers.length > 0 && !principalMatcher(policy.approvers, this.config, this.pr)(login)) {
      return no("not-approver", `${login} is not among the approvers (${policy.approvers.join(", ")})`);
    }
    const permission = permissionOf(this.pr, login);
    if (RANK[permission] < RANK[policy.min_permission]) {
      return no(
        "permission",
        `${login} has ${permission === "none" ? "no known" : permission} permission; ${policy.min_permission} is needed`,
      );
    }
    if (policy.invalidate_on_push) {
      const stale = this.staleness(review, subject, recorded);
      if (stale) return no("stale", stale);
    }
    return { login, review, ok: true };
  }

  /** Why a review is stale, or undefined when it is fresh. */
  private staleness(review: Review, subject: ApprovalSubject, recorded: boolean): string | undefined {
    const sha = review.commit_id;
    if (!sha) return undefined;
    const at = this.commitIndex.get(sha);
    if (at === undefined) {
      return `${review.user!.login} reviewed ${sha.slice(0, 7)}, which is no longer part of the pull request`;
    }
    for (const commit of this.pr.commits.slice(at + 1)) {
      if (isBotLogin(commit.author, this.config)) {
        // A recorded approval was judged when the bot recorded it: later work does not undo it.
        if (recorded) return undefined;
        continue;
      }
      if (touchesSubject(commit, subject)) {
        return `${commit.sha.slice(0, 7)} by ${commit.author ?? "someone"} changed ${subject.task} after ${review.user!.login} reviewed ${sha.slice(0, 7)}`;
      }
    }
    return undefined;
  }
}

function touchesSubject(commit: PrCommit, subject: ApprovalSubject): boolean {
  // Unknown file lists are treated as touching the task: staleness must not be missed.
  return commit.files === undefined || commit.files.some((path) => subject.touches(path));
}

function permissionOf(pr: PrContext, login: string): Permission {
  const entry = Object.entries(pr.permissions).find(([name]) => lower(name) === lower(login));
  const value = entry?.[1];
  return value !== undefined && value in RANK ? (value as Permission) : "none";
}

function timeOf(review: Review): number {
  const time = review.submitted_at ? Date.parse(review.submitted_at) : NaN;
  return Number.isNaN(time) ? Number.MAX_SAFE_INTEGER : time;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

/** Where a gate stands, for its record or its pending item. */
export interface GateSite {
  readonly task: string;
  readonly from: string;
  readonly to: string;
  readonly path: string;
  readonly line?: number | undefined;
  /** What waits, in words: "t1 waits for approval of research". */
  readonly waiting: string;
}

/** A met gate becomes the record the bot commits; an unmet one a pending item naming who may approve. */
export function gateOutcome(judgement: GateJudgement, site: GateSite, findings: Findings): void {
  if (judgement.met) {
    const deciding = judgement.approvals.slice(-judgement.policy.count);
    const at = deciding.at(-1)?.review.submitted_at;
    findings.records.push({
      task: site.task,
      from: site.from,
      to: site.to,
      by: deciding.map((verdict) => verdict.login).join(","),
      kind: "approve",
      ...(at ? { at } : {}),
    });
    return;
  }
  const notes = judgement.ignored.map((verdict) => verdict.detail).filter(Boolean);
  const approvers = describeApprovers(judgement.policy);
  findings.pending.push({
    ...violation("approval-required", {
      task: site.task,
      path: site.path,
      line: site.line,
      message:
        `${site.waiting} (${site.from} → ${site.to}): ${judgement.approvals.length} of ${judgement.policy.count} approving review(s)` +
        (notes.length > 0 ? `; not counted: ${notes.join("; ")}` : ""),
      hint: `Ask ${approvers.join(" or ")} to approve the pull request; taskgate then records ${site.to}.`,
    }),
    approvers,
  });
}

/** The code for a recorded decision that no eligible review backs, by why the review does not count. */
export function unbackedCode(
  verdict: ReviewVerdict | undefined,
): "reviewer-conflict" | "approval-self" | "approval-stale" | "approval-forged" {
  switch (verdict?.reason) {
    case "conflict":
      return "reviewer-conflict";
    case "author":
    case "contributor":
      return "approval-self";
    case "stale":
      return "approval-stale";
    default:
      return "approval-forged";
  }
}
