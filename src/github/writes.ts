/**
 * What taskgate writes on GitHub: the check run of a head, its one sticky comment, and the atomic
 * commit of recorded decisions. Each write is skipped when it would change nothing, and when the
 * result in place was computed from newer facts (its stamp). Only taskgate's own check runs and
 * comments are ever edited or deleted: found by what GitHub enforces (the App's id, the token's own
 * comments), a name or a marker only picks among them.
 */
import type { CommentCandidate, GitHubApi, IssueCommentData } from "./api.js";
import { COMMENT_WINDOW } from "./api.js";
import { GitHubError } from "./errors.js";
import { finalText, inertPlain } from "./inert.js";
import { isSelf, writtenBy, type Self } from "./identity.js";
import { isOlder, readStamp, stampMarker, stampSuffix, withoutStamp, type FactsStamp } from "./stamp.js";
import { ANNOTATIONS_PER_REQUEST, COMMENT_MARKER, GITHUB_TEXT_LIMIT, checkName, type CheckOutput } from "./summary.js";

/** `stale`: not written, because the result in place was computed from newer facts. */
export type WriteResult = "created" | "updated" | "unchanged" | "stale" | "none";

/** GitHub refuses a commit status description above this many characters. */
const DESCRIPTION_LIMIT = 140;

export interface WriteTarget {
  readonly baseRef: string;
  readonly headSha: string;
  readonly detailsUrl: string;
  /** What the result was computed from. */
  readonly stamp: FactsStamp;
}

/**
 * Creates or updates the App's own check run `taskgate: <base>` on a head commit. A run of that name
 * another app or a workflow made is never touched: taskgate's own is created next to it.
 */
export async function publishCheck(api: GitHubApi, target: WriteTarget, output: CheckOutput): Promise<WriteResult> {
  const name = checkName(target.baseRef);
  const [ours] = await api.ownCheckRuns(target.headSha, name);
  const inPlace = readStamp(ours?.output?.summary);
  if (ours && inPlace && isOlder(target.stamp, inPlace)) return "stale";
  if (
    ours &&
    ours.conclusion === output.conclusion &&
    ours.output?.summary?.includes(`<!-- taskgate:fingerprint ${output.fingerprint} -->`)
  ) {
    return "unchanged";
  }
  const batches: (typeof output.annotations)[] = [];
  for (let start = 0; start < output.annotations.length; start += ANNOTATIONS_PER_REQUEST) {
    batches.push(output.annotations.slice(start, start + ANNOTATIONS_PER_REQUEST));
  }
  const summary = finalText(`${stampMarker(target.stamp)}\n${output.summary}`, GITHUB_TEXT_LIMIT);
  const body = (annotations: typeof output.annotations) => ({
    name,
    status: "completed" as const,
    conclusion: output.conclusion,
    completed_at: new Date().toISOString(),
    details_url: target.detailsUrl,
    output: { title: inertPlain(output.title), summary, annotations: [...annotations] },
  });
  const write = async (annotations: typeof output.annotations): Promise<number> => {
    if (ours) {
      await api.updateCheckRun(ours.id, body(annotations));
      return ours.id;
    }
    return api.createCheckRun({ ...body(annotations), head_sha: target.headSha });
  };
  let id: number;
  try {
    id = await write(batches[0] ?? []);
  } catch (error) {
    // An annotation GitHub refuses (a path it does not know) must not cost the whole check.
    if (!(error instanceof GitHubError && error.is(422)) || batches.length === 0) throw error;
    await write([]);
    return ours ? "updated" : "created";
  }
  for (const batch of batches.slice(1)) await api.updateCheckRun(id, body(batch));
  return ours ? "updated" : "created";
}

const STATES = { success: "success", failure: "failure", action_required: "pending", neutral: "success" } as const;

/**
 * Reports as a commit status `taskgate: <base>` on the head commit (the Action's way: see
 * docs/action.md). Approvals pending are `pending`. Only statuses of the token's own account are
 * compared with: anything else of that name is not taskgate's (though under the Action, every
 * workflow shares the account; docs/action.md says what that means).
 */
export async function publishStatus(
  api: GitHubApi,
  target: WriteTarget,
  output: CheckOutput,
  self: Self,
): Promise<WriteResult> {
  const context = checkName(target.baseRef);
  const state = STATES[output.conclusion];
  const suffix = stampSuffix(target.stamp);
  const title = inertPlain(output.title);
  const room = DESCRIPTION_LIMIT - suffix.length;
  const description = `${title.length > room ? `${title.slice(0, room - 1)}…` : title}${suffix}`;
  const latest = (await api.statuses(target.headSha)).find(
    (status) => status.context === context && isSelf(status.creator, self),
  );
  const inPlace = readStamp(latest?.description);
  if (latest && inPlace && isOlder(target.stamp, inPlace)) return "stale";
  if (latest && latest.state === state && withoutStamp(latest.description) === withoutStamp(description)) {
    return "unchanged";
  }
  await api.createStatus(target.headSha, {
    state,
    context,
    description: finalText(description, DESCRIPTION_LIMIT),
    target_url: target.detailsUrl,
  });
  return latest ? "updated" : "created";
}

export interface CommentPlan {
  readonly body: string;
  /** Is there something to say (problems, approvals pending, decisions withheld)? */
  readonly needed: boolean;
  readonly stamp: FactsStamp;
  /** The token's own comments among the first and last ones GitHub showed with the facts. */
  readonly seen: readonly CommentCandidate[];
  /** How many comments the pull request has. */
  readonly count: number;
}

/**
 * Keeps one comment of taskgate's on a pull request: its own comment (GitHub says the token wrote
 * it) that carries the marker. Created only when there is something to say, updated in place, never
 * duplicated, never written over a comment computed from newer facts. The comment is looked for
 * among the first and last 50 that came with the facts; only when there is something to say and it
 * is not there does taskgate page through the rest, and then it posts the comment anew at the end,
 * where the next delivery finds it without paging.
 */
export async function upsertComment(
  api: GitHubApi,
  number: number,
  plan: CommentPlan,
  self: Self,
): Promise<WriteResult> {
  const body = finalText(`${stampMarker(plan.stamp)}\n${plan.body}`, GITHUB_TEXT_LIMIT);
  let mine = plan.seen.filter((comment) => comment.body.includes(COMMENT_MARKER));
  let sunk = false;
  if (mine.length === 0 && plan.needed && plan.count > 2 * COMMENT_WINDOW) {
    mine = await searchComments(api, number, plan.count, self);
    sunk = mine.length > 0;
  }
  if (mine.length === 0) {
    if (!plan.needed) return "none";
    await api.createComment(number, body);
    return "created";
  }
  const [keep, ...extras] = mine;
  for (const extra of extras) await deleteComment(api, extra.id);
  const inPlace = readStamp(keep!.body);
  if (inPlace && isOlder(plan.stamp, inPlace)) return "stale";
  if (sunk) {
    await deleteComment(api, keep!.id);
    await api.createComment(number, body);
    return "updated";
  }
  if (withoutStamp(keep!.body) === withoutStamp(body)) return "unchanged";
  await api.updateComment(keep!.id, body);
  return "updated";
}

/**
 * After writing: when replicas created a comment each at the same moment, the oldest stays, with the
 * text of the newest facts, and the others are deleted. Only the token's own comments are touched.
 */
export async function convergeComments(api: GitHubApi, recent: readonly CommentCandidate[]): Promise<void> {
  const mine = recent.filter((comment) => comment.body.includes(COMMENT_MARKER)).sort((a, b) => a.id - b.id);
  if (mine.length < 2) return;
  const newest = mine.reduce((best, comment) => {
    const a = readStamp(comment.body);
    const b = readStamp(best.body);
    return a && (!b || isOlder(b, a)) ? comment : best;
  });
  const [keep, ...extras] = mine;
  for (const extra of extras) await deleteComment(api, extra.id);
  if (newest.id !== keep!.id) await api.updateComment(keep!.id, newest.body);
}

/** Pages through every comment for taskgate's own one (by the App's id or the token's login). */
async function searchComments(api: GitHubApi, number: number, count: number, self: Self): Promise<CommentCandidate[]> {
  const found: CommentCandidate[] = [];
  for (let page = 1; page <= Math.ceil(count / 100); page++) {
    const comments: IssueCommentData[] = await api.commentsPage(number, page);
    for (const comment of comments) {
      if (writtenBy(comment, self) && comment.body?.includes(COMMENT_MARKER)) {
        found.push({ id: comment.id, body: comment.body });
      }
    }
    if (comments.length < 100) break;
  }
  return found.sort((a, b) => a.id - b.id);
}

async function deleteComment(api: GitHubApi, id: number): Promise<void> {
  try {
    await api.deleteComment(id);
  } catch (error) {
    // Another replica deleted it first.
    if (!(error instanceof GitHubError && error.is(404))) throw error;
  }
}

/** The branch does not accept the bot's commits (protection rules, missing permission). */
export class CommitRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommitRefused";
  }
}

/**
 * Commits files on a branch as one signed commit of the app, only if the branch is still at
 * `expectedHead`. Returns the new commit, or `undefined` when the branch moved (or is gone): the
 * push that moved it brings its own evaluation, and nothing of anyone else's is overwritten. A branch
 * that refuses the bot's commits throws `CommitRefused`.
 */
export async function commitFiles(
  api: GitHubApi,
  target: { branch: string; expectedHead: string; headline: string; body: string },
  files: ReadonlyMap<string, string>,
  deletions: readonly string[] = [],
): Promise<string | undefined> {
  try {
    return await api.createCommit({
      branch: target.branch,
      expectedHead: target.expectedHead,
      headline: inertPlain(target.headline),
      body: finalText(inertPlain(target.body), 60_000),
      additions: [...files].map(([path, contents]) => ({ path, contents })),
      deletions,
    });
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    const refusal = refusalOf(error);
    if (refusal) throw new CommitRefused(refusal);
    if (isMovedBranch(error)) return undefined;
    throw error;
  }
}

/** Why the branch refuses the bot's commit (protection rules, a missing permission), if it does. */
function refusalOf(error: GitHubError): string | undefined {
  const found = error.graphqlErrors.find(
    (item) =>
      item.type === "FORBIDDEN" ||
      /protected branch|rule violations|not accessible by integration|must not contain merge commits|required status/i.test(
        item.message,
      ),
  );
  if (found) return found.message || found.type;
  return error.is(403) ? "permission denied" : undefined;
}

/** Did the branch move on from the expected head, or go away? */
function isMovedBranch(error: GitHubError): boolean {
  return (
    error.is(404, 409, 422) ||
    error.hasType("STALE_DATA", "NOT_FOUND") ||
    error.graphqlErrors.some((item) => /expected branch to point to|does not exist|not found/i.test(item.message))
  );
}
