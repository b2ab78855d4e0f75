/**
 * The repository port over GitHub's API, for what runs without a checkout (audits, explanations,
 * the pull request pipeline's reads). Costs and limits, as GitHub sets them:
 *
 * - `readSnapshot`: one tree request per commit (cached), then one GraphQL request per 200 blobs
 *   the scope needs; blobs are cached by object id, so a blob two commits share is read once.
 * - `changedFiles` and `differences`: two trees, compared by object id: no request per file, and no
 *   cap of 3,000 files as the pull request files API has. A tree GitHub cuts short (over 100,000
 *   entries or 7 MB) is never read as if complete: `TruncatedTreeError`.
 * - `commits`: one comparison; GitHub lists at most 250 commits, and a longer list is never judged
 *   as if complete: `CappedListError`.
 * - `mergeBase`: the same comparison (cached per pair).
 */
import { RefNotFoundError, type ReadLimits, type SnapshotScope, type TaskRepository } from "../core/port.js";
import { coAuthorsOf } from "../core/trailers.js";
import type { ChangedFile, PrCommit, Snapshot } from "../core/types.js";
import { MAX_COMMITS, type BlobData, type Comparison, type GitHubApi, type Tree } from "./api.js";
import { blobsToRead, changedFiles, differences, snapshotOf } from "./trees.js";

const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * The commits of a comparison as the rules see them: GitHub's logins of author and committer, the
 * names and e-mails git recorded, the `Co-authored-by:` trailers (logins are linked later, from
 * GraphQL's `Commit.authors`), parents and signature verification.
 */
export function prCommitsOf(comparison: Pick<Comparison, "commits">): PrCommit[] {
  return comparison.commits.map((commit) => ({
    sha: commit.sha,
    author: commit.author?.login ?? null,
    gitName: commit.commit.author?.name ?? null,
    gitEmail: commit.commit.author?.email ?? null,
    ...(commit.committer !== undefined && { committer: commit.committer?.login ?? null }),
    ...(commit.commit.committer && {
      gitCommitter: { name: commit.commit.committer.name ?? null, email: commit.commit.committer.email ?? null },
    }),
    ...(commit.commit.message !== undefined && {
      coAuthors: coAuthorsOf(commit.commit.message).map((person) => ({ login: null, ...person })),
    }),
    parents: commit.parents.map((parent) => parent.sha),
    ...(typeof commit.commit.verification?.verified === "boolean" && {
      verified: commit.commit.verification.verified,
    }),
  }));
}

/**
 * Links the co-authors of commits to the logins GitHub names for them (`Commit.authors`: the git
 * author first, then each trailer), by e-mail; a co-author GitHub links to nobody keeps `null`.
 */
export function linkCoAuthors(
  commits: readonly PrCommit[],
  authors: ReadonlyMap<string, readonly { login: string | null; email: string | null }[]>,
): PrCommit[] {
  return commits.map((commit) => {
    const known = authors.get(commit.sha);
    if (!known || !commit.coAuthors?.length) return commit;
    const byEmail = new Map(
      known.filter((item) => item.email && item.login).map((item) => [item.email!.toLowerCase(), item.login!]),
    );
    return {
      ...commit,
      coAuthors: commit.coAuthors.map((person) => ({
        ...person,
        login: (person.email && byEmail.get(person.email.toLowerCase())) ?? person.login,
      })),
    };
  });
}

export class CappedListError extends Error {
  constructor(
    readonly what: string,
    readonly total: number,
    readonly shown: number,
  ) {
    super(`GitHub lists ${shown} of the ${total} ${what}; taskgate does not judge a list it cannot see whole`);
    this.name = "CappedListError";
  }
}

export class TruncatedTreeError extends Error {
  constructor(readonly sha: string) {
    super(`GitHub cut the file tree of ${sha.slice(0, 7)} short (over 100,000 entries or 7 MB)`);
    this.name = "TruncatedTreeError";
  }
}

export class GitHubRepository implements TaskRepository {
  private readonly trees = new Map<string, Promise<Tree>>();
  private readonly comparisons = new Map<string, Promise<Comparison>>();
  readonly blobs = new Map<string, BlobData>();

  constructor(readonly api: GitHubApi) {}

  async resolve(ref: string): Promise<string> {
    if (FULL_SHA.test(ref)) return ref;
    try {
      const { data } = await this.api.octokit.rest.repos.getCommit({ ...this.api.repo, ref, per_page: 1 });
      return data.sha;
    } catch {
      throw new RefNotFoundError(ref, "Name a branch, a tag or a full commit id of this repository.");
    }
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    return (await this.compare(a, b)).mergeBase;
  }

  /** The tree of a commit as GitHub gives it (one request, cached), cut short or not. */
  listing(sha: string): Promise<Tree> {
    let tree = this.trees.get(sha);
    if (!tree) this.trees.set(sha, (tree = this.api.tree(sha)));
    return tree;
  }

  /** The tree of a commit; a tree GitHub cut short throws. */
  async tree(sha: string): Promise<Tree> {
    const value = await this.listing(sha);
    if (value.truncated) throw new TruncatedTreeError(sha);
    return value;
  }

  /** Reads the named blobs not read yet, in batches. */
  async prefetch(oids: readonly string[]): Promise<void> {
    const missing = [...new Set(oids)].filter((oid) => !this.blobs.has(oid));
    if (missing.length === 0) return;
    const { blobs } = await this.api.batch({ blobs: missing, people: [], teams: [] });
    for (const [oid, blob] of blobs) this.blobs.set(oid, blob);
  }

  async readSnapshot(rev: string, scope?: SnapshotScope, limits: ReadLimits = {}): Promise<Snapshot> {
    const tree = await this.tree(rev);
    await this.prefetch(blobsToRead(tree, scope, limits));
    return { ...snapshotOf(tree, scope, limits, this.blobs), rev };
  }

  async changedFiles(base: string, head: string): Promise<ChangedFile[]> {
    const [before, after] = await Promise.all([this.tree(base), this.tree(head)]);
    return changedFiles(before, after);
  }

  async commits(base: string, head: string): Promise<PrCommit[]> {
    const comparison = await this.compare(base, head);
    if (comparison.totalCommits > comparison.commits.length) {
      throw new CappedListError("commits", comparison.totalCommits, Math.min(comparison.commits.length, MAX_COMMITS));
    }
    return prCommitsOf(comparison);
  }

  async differences(from: string, to: string): Promise<ReadonlyMap<string, string | null>> {
    const [before, after] = await Promise.all([this.tree(from), this.tree(to)]);
    return differences(before, after);
  }

  /** The comparison of `base...head` (cached per pair). */
  compare(base: string, head: string): Promise<Comparison> {
    const key = `${base}...${head}`;
    let comparison = this.comparisons.get(key);
    if (!comparison) this.comparisons.set(key, (comparison = this.api.compare(base, head)));
    return comparison;
  }
}
