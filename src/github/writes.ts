/**
 * What taskgate writes on GitHub: the check run of a head, its one sticky comment, and the atomic
 * commit of recorded decisions. Each write is skipped when it would change nothing.
 */
import { CREATE_COMMIT } from "./queries.js";
import type { GitHubApi } from "./api.js";
import { isStatus } from "./pull-request.js";
import { ANNOTATIONS_PER_REQUEST, COMMENT_MARKER, checkName, type CheckOutput } from "./summary.js";

export type WriteResult = "created" | "updated" | "unchanged" | "none";

/**
 * Creates or updates the check run `taskgate: <base>` on a head commit. Unchanged results (same
 * conclusion and fingerprint) are not written again; annotations go 50 per request.
 */
export async function publishCheck(
  api: GitHubApi,
  target: { baseRef: string; headSha: string; detailsUrl: string },
  output: CheckOutput,
): Promise<WriteResult> {
  const { owner, repo } = api.repo;
  const name = checkName(target.baseRef);
  const { data } = await api.octokit.rest.checks.listForRef({
    owner,
    repo,
    ref: target.headSha,
    check_name: name,
    filter: "latest",
    per_page: 20,
  });
  const ours = data.check_runs.find((run) => run.output?.summary?.includes("<!-- taskgate:fingerprint "));
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
  const body = (annotations: typeof output.annotations) => ({
    owner,
    repo,
    name,
    status: "completed" as const,
    conclusion: output.conclusion,
    completed_at: new Date().toISOString(),
    details_url: target.detailsUrl,
    output: { title: output.title, summary: output.summary, annotations: [...annotations] },
  });
  let id: number;
  try {
    id = await writeCheck(api, ours?.id, target.headSha, body(batches[0] ?? []));
  } catch (error) {
    // An annotation GitHub refuses (a path it does not know) must not cost the whole check.
    if (!isStatus(error, 422) || batches.length === 0) throw error;
    await writeCheck(api, ours?.id, target.headSha, body([]));
    return ours ? "updated" : "created";
  }
  for (const batch of batches.slice(1)) {
    await api.octokit.rest.checks.update({ ...body(batch), check_run_id: id });
  }
  return ours ? "updated" : "created";
}

interface CheckBody {
  owner: string;
  repo: string;
  name: string;
  status: "completed";
  conclusion: CheckOutput["conclusion"];
  completed_at: string;
  details_url: string;
  output: { title: string; summary: string; annotations: CheckOutput["annotations"][number][] };
}

const STATES = { success: "success", failure: "failure", action_required: "pending", neutral: "success" } as const;

/**
 * Reports as a commit status `taskgate: <base>` on the head commit (the Action's way: see
 * docs/action.md). Approvals pending are `pending`; an unchanged status is not written again.
 */
export async function publishStatus(
  api: GitHubApi,
  target: { baseRef: string; headSha: string; detailsUrl: string },
  output: CheckOutput,
): Promise<WriteResult> {
  const context = checkName(target.baseRef);
  const state = STATES[output.conclusion];
  const description = output.title.length > 140 ? `${output.title.slice(0, 139)}…` : output.title;
  const { data } = await api.octokit.rest.repos.listCommitStatusesForRef({
    ...api.repo,
    ref: target.headSha,
    per_page: 100,
  });
  const latest = data.find((status) => status.context === context);
  if (latest && latest.state === state && latest.description === description) return "unchanged";
  await api.octokit.rest.repos.createCommitStatus({
    ...api.repo,
    sha: target.headSha,
    state,
    context,
    description,
    target_url: target.detailsUrl,
  });
  return latest ? "updated" : "created";
}

async function writeCheck(
  api: GitHubApi,
  existing: number | undefined,
  headSha: string,
  body: CheckBody,
): Promise<number> {
  if (existing !== undefined) {
    await api.octokit.rest.checks.update({ ...body, check_run_id: existing });
    return existing;
  }
  const { data } = await api.octokit.rest.checks.create({ ...body, head_sha: headSha } as never);
  return (data as { id: number }).id;
}

interface IssueComment {
  id: number;
  body?: string | null;
  user?: { login: string; type: string } | null;
}

/**
 * Keeps one comment of taskgate's on a pull request, found by its hidden marker: created only when
 * there is something to say, updated in place, never duplicated. Replicas that both created one at
 * the same moment converge: the oldest stays, the others are deleted.
 */
export async function upsertComment(
  api: GitHubApi,
  number: number,
  comment: { body: string; needed: boolean; headSha: string; current: () => Promise<boolean> },
): Promise<WriteResult> {
  const { body, needed } = comment;
  const mine = await ownComments(api, number);
  if (mine.length === 0) {
    if (!needed) return "none";
    await api.octokit.rest.issues.createComment({ ...api.repo, issue_number: number, body });
    const again = await ownComments(api, number);
    for (const extra of again.slice(1)) await deleteComment(api, extra.id);
    if (again.length > 0 && again[0]!.body !== body) {
      await api.octokit.rest.issues.updateComment({ ...api.repo, comment_id: again[0]!.id, body });
    }
    return "created";
  }
  const [keep, ...extras] = mine;
  for (const extra of extras) await deleteComment(api, extra.id);
  if (keep!.body === body) return "unchanged";
  const written = /<!-- taskgate:head ([0-9a-f]+) -->/.exec(keep!.body ?? "")?.[1];
  if (written && written !== comment.headSha && !(await comment.current())) return "unchanged";
  await api.octokit.rest.issues.updateComment({ ...api.repo, comment_id: keep!.id, body });
  return "updated";
}

async function ownComments(api: GitHubApi, number: number): Promise<IssueComment[]> {
  const comments = (await api.octokit.paginate(api.octokit.rest.issues.listComments, {
    ...api.repo,
    issue_number: number,
    per_page: 100,
  })) as IssueComment[];
  return comments
    .filter((comment) => comment.user?.type === "Bot" && comment.body?.includes(COMMENT_MARKER))
    .sort((a, b) => a.id - b.id);
}

async function deleteComment(api: GitHubApi, id: number): Promise<void> {
  try {
    await api.octokit.rest.issues.deleteComment({ ...api.repo, comment_id: id });
  } catch (error) {
    // Another replica deleted it first.
    if (!isStatus(error, 404)) throw error;
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
    const result = await api.octokit.graphql<{ createCommitOnBranch: { commit: { oid: string } } }>(CREATE_COMMIT, {
      input: {
        branch: { repositoryNameWithOwner: `${api.repo.owner}/${api.repo.repo}`, branchName: target.branch },
        expectedHeadOid: target.expectedHead,
        message: { headline: target.headline, body: target.body },
        fileChanges: {
          additions: [...files].map(([path, contents]) => ({
            path,
            contents: Buffer.from(contents, "utf8").toString("base64"),
          })),
          ...(deletions.length > 0 && { deletions: deletions.map((path) => ({ path })) }),
        },
      },
    });
    return result.createCommitOnBranch.commit.oid;
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) throw new CommitRefused(refusal);
    if (isMovedBranch(error)) return undefined;
    throw error;
  }
}

function errorsOf(error: unknown): { type?: string; message?: string }[] {
  return (error as { errors?: { type?: string; message?: string }[] } | null)?.errors ?? [];
}

function refusalOf(error: unknown): string | undefined {
  const found = errorsOf(error).find(
    (item) =>
      item.type === "FORBIDDEN" ||
      /protected branch|rule violations|not accessible by integration|must not contain merge commits|required status/i.test(
        item.message ?? "",
      ),
  );
  if (found) return found.message ?? found.type;
  return isStatus(error, 403) ? "permission denied" : undefined;
}

function isMovedBranch(error: unknown): boolean {
  return (
    isStatus(error, 404, 409, 422) ||
    errorsOf(error).some(
      (item) =>
        item.type === "STALE_DATA" ||
        item.type === "NOT_FOUND" ||
        /expected branch to point to|does not exist|not found/i.test(item.message ?? ""),
    )
  );
}
