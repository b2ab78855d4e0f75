/**
 * Review-as-approval, shared by every workflow model: which pull request reviews open a gate on one
 * task, and whether a decision the bot recorded (an approval line, a history entry) stands.
 *
 * A review counts when it is the reviewer's latest decision, carries a commit and a time, the
 * reviewer did not write the change, holds the gate's approver role and permission, and the task's
 * content at the head (or, for a recorded decision, where the bot recorded it) is the content the
 * reviewer saw, apart from what the bot recorded. Content is compared, not commit lists: merges,
 * reordered histories and bot commits in between change nothing.
 */
import { botLogins, type ApprovalRuleConfig, type Config } from "./config.js";
import type { Findings } from "./model.js";
import { own } from "./objects.js";
import { differingPaths, headView } from "./revisions.js";
import { noreplyLogin } from "./trailers.js";
import type { BotRecord, Pending, Permission, PrCommit, PrContext, Review, RevisionView, Snapshot } from "./types.js";
import { violation } from "./violations.js";

export type Ineligibility =
  | "author"
  | "contributor"
  | "bot"
  | "not-approver"
  | "permission"
  | "stale"
  | "conflict"
  | "incomplete"
  | "retracted"
  | "missing"
  | "reused"
  | "not-recorded"
  | "deleted";

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
  /** Is a repository path one of the task's files? A change to it after the review makes it stale. */
  touches(path: string): boolean;
  /** Files that hold the task's records; differences there are judged by `explains`, not by path. */
  readonly recordFiles: ReadonlySet<string>;
  /** Are the task's records at `to` those at `from` plus only what the bot recorded? */
  explains(from: RevisionView, to: RevisionView): boolean;
  /** Lower-cased logins that may not review this task, with the reason (board: owners, submitters). */
  readonly barred?: ReadonlyMap<string, string>;
  /** Identities (`reviewKey`) of reviews that already back a recorded decision of this task. */
  readonly used?: ReadonlySet<string>;
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

/** A decision found in the repository that claims to record a review. */
export interface RecordedDecision {
  /** The gate's name for its approval rule (a phase, `review`, `release`). */
  readonly gate: string;
  readonly login: string;
  readonly at: string;
  readonly state: "APPROVED" | "CHANGES_REQUESTED";
  /** Bot commits of the pull request that added exactly this decision. */
  readonly addedBy: readonly PrCommit[];
  /**
   * The decision ends the task's work (a board approval): the task must also be at the head as the
   * reviewer saw it, so nothing slips in after the approval was recorded.
   */
  readonly final?: boolean;
}

const RANK: Readonly<Record<Permission, number>> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

export function lower(login: string): string {
  return login.toLowerCase();
}

/** The approval rule for one gate: the global rule with the gate's overrides. */
export function gatePolicy(config: Config, gate: string): ApprovalRuleConfig {
  const { gates, ...base } = config.approvals;
  const override = own(gates, gate) ?? {};
  return { ...base, ...stripUndefined(override) };
}

/** A reviewer that is a bot: GitHub says so, the login ends in `[bot]`, or it is the configured bot. */
export function isBotLogin(login: string | null | undefined, config: Config, type?: string): boolean {
  if (!login) return false;
  return type === "Bot" || isBotIdentity(login, config) || /\[bot\]$/i.test(login);
}

/**
 * A commit is the bot's only when GitHub attributes it to the configured bot login, GitHub did not
 * report its signature as unverified, and, when GitHub names its committer, that committer is GitHub
 * itself (`web-flow`, which commits and signs what the bot writes through the API) or the bot. A git
 * author name never makes a commit the bot's, and neither does an e-mail a person wrote into a commit
 * they made some other way.
 */
export function isBotCommit(commit: PrCommit, config: Config): boolean {
  if (commit.author === null || !isBotIdentity(commit.author, config) || commit.verified === false) return false;
  const committer = commit.committer;
  return (
    committer === undefined ||
    (committer !== null && (lower(committer) === "web-flow" || isBotIdentity(committer, config)))
  );
}

/** Is a login one of the configured bot identities (compared as GitHub compares logins)? */
export function isBotIdentity(login: string, config: Config): boolean {
  return botLogins(config).some((bot) => lower(bot) === lower(login));
}

/** The identity of one review: who, and when (a decision records both). */
export function reviewKey(login: string, at: string | null | undefined): string {
  const time = at ? Date.parse(at) : NaN;
  return `${lower(login)}\u0000${Number.isNaN(time) ? `?${at ?? ""}` : time}`;
}

function timeOf(review: Review): number {
  const time = review.submitted_at ? Date.parse(review.submitted_at) : NaN;
  // An undated review sorts last: it can only cancel, never be outranked.
  return Number.isNaN(time) ? Number.MAX_SAFE_INTEGER : time;
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

/** The logins and `@org/team`s approver principals name, `role:NAME` expanded (lower-cased). */
function expandPrincipals(principals: readonly string[], config: Config): { logins: Set<string>; teams: Set<string> } {
  const logins = new Set<string>();
  const teams = new Set<string>();
  const visit = (entry: string, seen: Set<string>) => {
    if (entry.startsWith("role:")) {
      const role = entry.slice(5);
      if (seen.has(role)) return;
      seen.add(role);
      for (const member of own(config.roles, role) ?? []) visit(member, seen);
    } else if (entry.startsWith("@")) teams.add(lower(entry));
    else logins.add(lower(entry));
  };
  for (const principal of principals) visit(principal, new Set());
  return { logins, teams };
}

/** Expands approver principals to a membership test over logins. */
export function principalMatcher(
  principals: readonly string[],
  config: Config,
  pr: Pick<PrContext, "teams">,
): (login: string) => boolean {
  const { logins, teams } = expandPrincipals(principals, config);
  const teamMembers = new Set<string>();
  for (const [team, members] of Object.entries(pr.teams)) {
    if (teams.has(lower(team)) && Array.isArray(members)) for (const member of members) teamMembers.add(lower(member));
  }
  return (login) => logins.has(lower(login)) || teamMembers.has(lower(login));
}

/** People who may approve a gate, in words for messages and pending items. */
export function describeApprovers(policy: ApprovalRuleConfig): string[] {
  return policy.approvers.length > 0 ? [...policy.approvers] : [`anyone with ${policy.min_permission} permission`];
}

/** How someone contributed to a commit, strongest first: the wording of the refusal names it. */
type ContributionKind = "author" | "committer" | "co-author";
const STRENGTH: Readonly<Record<ContributionKind, number>> = { author: 0, committer: 1, "co-author": 2 };

interface Contribution {
  readonly kind: ContributionKind;
  /** The commit's short id. */
  readonly commit: string;
}

/** A person who contributed to a commit: a GitHub login, or (none linked) a git name and e-mail. */
interface Contributor {
  readonly login?: string | null;
  readonly name?: string | null;
  readonly email?: string | null;
}

/** GitHub's committer of web edits, merges and API commits: maps to no user, so it is nobody. */
const WEB_FLOW = "web-flow";

function isGitHubCommitter(committer: { readonly name?: string | null; readonly email?: string | null }): boolean {
  return lower(committer.name ?? "") === "github" && lower(committer.email ?? "") === "noreply@github.com";
}

function sameEmail(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && lower(a.trim()) === lower(b.trim());
}

function contributionDetail(login: string, { kind, commit }: Contribution): string {
  switch (kind) {
    case "author":
      return `${login} pushed commits to the pull request (${commit})`;
    case "committer":
      return `${login} committed ${commit}`;
    case "co-author":
      return `${login} is a co-author of ${commit} (Co-authored-by)`;
  }
}

export class ApprovalJudge {
  /**
   * Lower-cased identities of the people who wrote non-bot commits (authors, committers, co-authors),
   * other than the pull request's author and the bot, with how they contributed.
   */
  private readonly contributors: Map<string, Contribution>;
  private readonly head: RevisionView;
  private readonly byLogin: Map<string, Review[]>;

  constructor(
    private readonly config: Config,
    private readonly pr: PrContext,
    head: Snapshot,
  ) {
    this.contributors = new Map();
    for (const commit of pr.commits) {
      if (isBotCommit(commit, config)) continue;
      const short = commit.sha.slice(0, 7);
      this.contribute({ login: commit.author, name: commit.gitName, email: commit.gitEmail }, "author", short);
      if (typeof commit.committer === "string") {
        if (lower(commit.committer) !== WEB_FLOW) this.contribute({ login: commit.committer }, "committer", short);
      } else if (
        commit.gitCommitter &&
        !isGitHubCommitter(commit.gitCommitter) &&
        // GitHub links people by e-mail: a committer with the linked author's address is the author.
        !(commit.author !== null && sameEmail(commit.gitCommitter.email, commit.gitEmail))
      ) {
        this.contribute({ name: commit.gitCommitter.name, email: commit.gitCommitter.email }, "committer", short);
      }
      for (const coAuthor of commit.coAuthors ?? []) this.contribute(coAuthor, "co-author", short);
    }
    this.head = headView(pr.headSha ?? head.rev, head);
    this.byLogin = new Map();
    for (const review of pr.reviews) {
      const login = review.user?.login;
      if (!login) continue;
      const list = this.byLogin.get(lower(login)) ?? [];
      list.push(review);
      this.byLogin.set(lower(login), list);
    }
  }

  /**
   * Bars a contributor: by login when GitHub links one (never the pull request's author, who is
   * judged by `allow_author`, nor the bot). Unlinked, a person of unknown identity bars the reviewer
   * whose login is its git name, or the login its GitHub no-reply address encodes; their git name
   * is no proof of who they are, so it exempts nobody, not even the author.
   */
  private contribute(who: Contributor, kind: ContributionKind, commit: string): void {
    const keys: string[] = [];
    if (who.login) {
      if (lower(who.login) !== lower(this.pr.author)) keys.push(lower(who.login));
    } else {
      if (who.name) keys.push(lower(who.name));
      const noreply = noreplyLogin(who.email);
      if (noreply) keys.push(lower(noreply));
    }
    for (const key of keys) {
      if (isBotIdentity(key, this.config)) continue;
      const known = this.contributors.get(key);
      if (!known || STRENGTH[kind] <= STRENGTH[known.kind]) this.contributors.set(key, { kind, commit });
    }
  }

  /** The view of a commit of the pull request, when the adapter could read it. */
  view(sha: string | null | undefined): RevisionView | undefined {
    if (!sha) return undefined;
    if (sha === this.head.sha) return this.head;
    return this.pr.revisions?.get(sha);
  }

  get headRevision(): RevisionView {
    return this.head;
  }

  /** Judges one gate on one task from the reviewers' latest decisions, against the head. */
  judgeGate(gate: string, subject: ApprovalSubject, override: Partial<ApprovalRuleConfig> = {}): GateJudgement {
    const policy = { ...gatePolicy(this.config, gate), ...override };
    const approvals: ReviewVerdict[] = [];
    const ignored: ReviewVerdict[] = [];
    const rejections: ReviewVerdict[] = [];
    for (const review of latestDecisions(this.pr.reviews)) {
      if (review.state !== "APPROVED" && review.state !== "CHANGES_REQUESTED") continue;
      let verdict = this.judgeReview(review, policy, subject, this.head);
      if (verdict.ok && subject.used?.has(reviewKey(verdict.login, review.submitted_at))) {
        verdict = {
          ...verdict,
          ok: false,
          reason: "reused",
          detail: `${verdict.login}'s review already recorded another gate of ${subject.task}; each gate needs its own review`,
        };
      }
      if (review.state === "APPROVED") (verdict.ok ? approvals : ignored).push(verdict);
      else if (verdict.ok) rejections.push(verdict);
    }
    return { approvals, ignored, rejections, met: approvals.length >= policy.count, policy };
  }

  /**
   * Judges a decision found in the repository: it stands only when a bot commit of the pull request
   * added it, the review it names (login and time) exists in the named state and was not retracted,
   * the reviewer was eligible, and the task was as reviewed where the bot recorded it.
   */
  judgeRecord(
    decision: RecordedDecision,
    subject: ApprovalSubject,
    override: Partial<ApprovalRuleConfig> = {},
  ): ReviewVerdict {
    const policy = { ...gatePolicy(this.config, decision.gate), ...override };
    const fake: Review = { user: { login: decision.login }, state: decision.state };
    const no = (reason: Ineligibility, detail: string, review: Review = fake): ReviewVerdict => ({
      login: decision.login,
      review,
      ok: false,
      reason,
      detail,
    });
    if (decision.addedBy.length === 0) {
      return no(
        "not-recorded",
        `no commit by ${botLogins(this.config).join(" or ")} added it; only taskgate records decisions`,
      );
    }
    const key = reviewKey(decision.login, decision.at);
    const reviews = this.byLogin.get(lower(decision.login)) ?? [];
    const review = reviews.find((item) => reviewKey(decision.login, item.submitted_at) === key);
    if (review?.state === "DISMISSED") {
      return no("retracted", `${decision.login}'s review at ${decision.at} was dismissed`, review);
    }
    if (!review || review.state !== decision.state) {
      return no(
        "missing",
        `${decision.login} gave no ${decision.state === "APPROVED" ? "approving" : "changes-requested"} review at ${decision.at} on this pull request`,
        review ?? fake,
      );
    }
    const retraction = this.retraction(review);
    if (retraction) return no("retracted", retraction, review);
    const verdict = this.judgeReview(review, policy, subject, undefined);
    if (!verdict.ok) return verdict;
    if (!policy.invalidate_on_push) return verdict;
    // Fresh where the bot recorded it: the task at the parent of the recording commit is the task
    // the reviewer saw (apart from what the bot recorded).
    const reviewed = this.view(review.commit_id);
    if (!reviewed) return no("stale", this.unreadable(review), review);
    let why: string | undefined;
    for (const commit of decision.addedBy) {
      const parent = this.view(commit.parents?.[0]);
      if (!parent) {
        why ??= `the parent of ${commit.sha.slice(0, 7)} cannot be read`;
        continue;
      }
      const stale = this.staleness(review, reviewed, parent, subject);
      if (!stale) {
        const later = decision.final ? this.staleness(review, reviewed, this.head, subject) : undefined;
        return later ? no("stale", `${later}, after the approval was recorded`, review) : verdict;
      }
      why ??= stale;
    }
    return no("stale", why ?? "it was recorded on changed content", review);
  }

  /** Why a review was cancelled by a later decision of the same reviewer, if it was. */
  private retraction(review: Review): string | undefined {
    const login = review.user!.login;
    const at = timeOf(review);
    const later = (this.byLogin.get(lower(login)) ?? []).find(
      (other) =>
        other !== review &&
        timeOf(other) > at &&
        (other.state === "DISMISSED" || (review.state === "APPROVED" && other.state === "CHANGES_REQUESTED")),
    );
    if (!later) return undefined;
    return `${login}'s review was retracted by a later ${later.state} review${later.submitted_at ? ` (${later.submitted_at})` : ""}`;
  }

  /** Eligibility, and (against `target`, when given) freshness of one review. */
  private judgeReview(
    review: Review,
    policy: ApprovalRuleConfig,
    subject: ApprovalSubject,
    target: RevisionView | undefined,
  ): ReviewVerdict {
    const login = review.user!.login;
    const who = lower(login);
    const no = (reason: Ineligibility, detail: string): ReviewVerdict => ({ login, review, ok: false, reason, detail });
    if (review.user?.type === "Deleted") {
      return no("deleted", "a review by an account that no longer exists does not count");
    }
    if (isBotLogin(login, this.config, review.user?.type)) return no("bot", `${login} is a bot; bots never approve`);
    if (!review.submitted_at || Number.isNaN(Date.parse(review.submitted_at))) {
      return no("incomplete", `${login}'s review has no submission time, so it cannot be ordered and does not count`);
    }
    if (!review.commit_id) {
      return no(
        "incomplete",
        `${login}'s review names no commit, so what was reviewed is unknown and it does not count`,
      );
    }
    if (who === lower(this.pr.author) && !policy.allow_author) {
      return no("author", `${login} is the author of the pull request`);
    }
    const contributed = this.contributors.get(who);
    if (contributed && !policy.allow_contributor) {
      return no("contributor", contributionDetail(login, contributed));
    }
    const barred = subject.barred?.get(who);
    if (barred) return no("conflict", `${login} ${barred}`);
    if (policy.approvers.length > 0 && !principalMatcher(policy.approvers, this.config, this.pr)(login)) {
      const unknown = unresolvedTeams(policy.approvers, this.config, this.pr);
      return no(
        "not-approver",
        `${login} is not among the approvers (${policy.approvers.join(", ")})` +
          (unknown.length > 0 ? `; ${unknown.join("; ")}` : ""),
      );
    }
    const permission = permissionOf(this.pr, login);
    if (RANK[permission] < RANK[policy.min_permission]) {
      const why = permission === "none" ? lookup(this.pr.unresolved, login) : undefined;
      return no(
        "permission",
        `${login} has ${permission === "none" ? "no known" : permission} permission; ${policy.min_permission} is needed` +
          (why ? ` (${why})` : ""),
      );
    }
    if (target && policy.invalidate_on_push) {
      const reviewed = this.view(review.commit_id);
      const stale = reviewed ? this.staleness(review, reviewed, target, subject) : this.unreadable(review);
      if (stale) return no("stale", stale);
    }
    return { login, review, ok: true };
  }

  private unreadable(review: Review): string {
    return `${review.user!.login} reviewed ${review.commit_id!.slice(0, 7)}, which cannot be read (no longer part of the pull request?)`;
  }

  /** Why the task differs between the reviewed commit and `target`, or undefined when it does not. */
  private staleness(
    review: Review,
    reviewed: RevisionView,
    target: RevisionView,
    subject: ApprovalSubject,
  ): string | undefined {
    let records = false;
    for (const path of differingPaths(reviewed, target)) {
      if (subject.recordFiles.has(path)) records = true;
      else if (subject.touches(path)) {
        return `${path} changed after ${review.user!.login} reviewed ${review.commit_id!.slice(0, 7)}`;
      }
    }
    if (records && !subject.explains(reviewed, target)) {
      return `${subject.task}'s state changed after ${review.user!.login} reviewed ${review.commit_id!.slice(0, 7)}`;
    }
    return undefined;
  }
}

/** Why GitHub could not resolve a login or team, when it said (compared as GitHub compares names). */
function lookup(unresolved: PrContext["unresolved"], name: string): string | undefined {
  if (!unresolved) return undefined;
  return Object.entries(unresolved).find(([key]) => lower(key) === lower(name))?.[1];
}

/** The reasons the approvers' teams (directly or through roles) could not be read. */
function unresolvedTeams(principals: readonly string[], config: Config, pr: PrContext): string[] {
  const reasons = [...expandPrincipals(principals, config).teams].map((team) => lookup(pr.unresolved, team));
  return [...new Set(reasons.filter((why): why is string => why !== undefined))];
}

function permissionOf(pr: PrContext, login: string): Permission {
  const entry = Object.entries(pr.permissions).find(([name]) => lower(name) === lower(login));
  const value = entry?.[1];
  return typeof value === "string" && Object.hasOwn(RANK, value) ? (value as Permission) : "none";
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
  if (!judgement.met) {
    findings.pending.push(pendingFor(judgement, site));
    return;
  }
  findings.records.push(recordOf(judgement, { task: site.task, from: site.from, to: site.to, kind: "approve" }));
}

/** The record of a met gate: the deciding reviews (the latest `count` approvals), who and when. */
export function recordOf(
  judgement: GateJudgement,
  what: { task: string; from: string; to: string; kind: BotRecord["kind"] },
): BotRecord {
  const deciding = judgement.approvals.slice(-judgement.policy.count);
  const at = deciding.at(-1)?.review.submitted_at;
  return {
    ...what,
    by: deciding.map((verdict) => verdict.login).join(","),
    ...(at ? { at } : {}),
    reviews: deciding.map((verdict) => ({ by: verdict.login, at: verdict.review.submitted_at! })),
  };
}

/** The pending item of an unmet gate: how many approvals it has, which did not count and why. */
export function pendingFor(judgement: GateJudgement, site: GateSite): Pending {
  const notes = judgement.ignored.map((verdict) => verdict.detail).filter(Boolean);
  const approvers = describeApprovers(judgement.policy);
  return {
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
  };
}

/** The code for a recorded decision that does not stand, by why its review does not count. */
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
