/**
 * The repository port over GitHub's API, for what runs without a checkout (audits, explanations,
 * the pull request pipeline's reads). Costs and limits, as GitHub sets them:
 *
 * - Trees are read folder by folder, never whole: `changedFiles` and `differences` descend from the
 *   two roots into the folders whose object ids differ, and `readSnapshot` into the folders its scope
 *   reaches. Each level of that walk is one GraphQL request (per 200 folders) for every commit and
 *   every read at once, so a small pull request costs one request per level of its deepest changed
 *   path, whatever the size of the repository, and the bytes of the folders it enters. With the
 *   files a comparison lists, the folders above them come with the roots: one request in all. No cap of
 *   3,000 files as the pull request files API has, nor of 100,000 entries as a recursive tree has.
 * - A folder a scope reads whole (the task store of an audit) is asked for in one recursive request
 *   of that folder; when GitHub cuts it short (over 100,000 entries or 7 MB), the folders it did list
 *   whole are kept and the rest is walked level by level.
 * - GraphQL lists a folder without saying whether it cut it: each listing is checked against the
 *   folder's object id (git's hash of its entries). A listing that fails the check is asked again by
 *   REST, which says when it cut it short; only a folder GitHub cuts even alone fails:
 *   `TruncatedTreeError`.
 * - `readSnapshot`: then one GraphQL request per 200 blobs the scope needs; blobs are cached by
 *   object id, so a blob two commits share is read once.
 * - `commits`: one comparison; GitHub lists at most 250 commits, and a longer list is never judged
 *   as if complete: `CappedListError`.
 * - `mergeBase`: the same comparison (cached per pair).
 */
import {
  coAuthorsOf,
  type ReadLimits,
  RefNotFoundError,
  type SnapshotScope,
  type TaskRepository,
} from "../core/index.js";
import type { ChangedFile, PrCommit, Snapshot } from "../core/index.js";
import { MAX_COMMITS, type BlobData, type Comparison, type FolderListing, type GitHubApi } from "./api.js";
import {
  Tree,
  absorbListing,
  blobsToRead,
  changedFiles,
  compareFolders,
  differences,
  isWhole,
  scopeFolder,
  scopeIndex,
  snapshotOf,
  type Folders,
  type ScopeIndex,
} from "./trees.js";

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

/** A folder the rules need that GitHub cuts short even when asked for alone. */
export class TruncatedTreeError extends Error {
  readonly hint =
    "The folder has more entries than GitHub lists at once: split it into subfolders, or run `taskgate check` on a local clone.";

  constructor(
    readonly sha: string,
    readonly path = "",
  ) {
    super(
      `GitHub cut the file tree of ${sha.slice(0, 7)} short (over 100,000 entries or 7 MB)${path ? ` in ${path}` : ""}`,
    );
    this.name = "TruncatedTreeError";
  }
}

/** A commit GitHub does not have (a force-pushed review, a typo): GitHub's own answer, 404. */
export class MissingCommitError extends Error {
  readonly status = 404;

  constructor(readonly sha: string) {
    super(`GitHub has no commit ${sha}`);
    this.name = "MissingCommitError";
  }
}

/** What a walk prepares: the differences of two trees, or the part of one tree a scope names. */
export type TreeRead =
  | { readonly compare: readonly [Tree, Tree] }
  | { readonly tree: Tree; readonly scope: SnapshotScope | undefined };

/** A folder (or two compared ones) a read still has to enter, and what lies below once it is listed. */
interface Pending {
  readonly tree: Tree;
  readonly path: string;
  readonly oids: readonly string[];
  /** A folder a scope reads whole from here down: one recursive request may list all of it. */
  readonly subtree?: string;
  below(folders: Folders): Pending[];
}

function comparing(a: Tree, b: Tree, path: string, left: string | undefined, right: string | undefined): Pending {
  return {
    tree: b,
    path,
    oids: [left, right].filter((oid): oid is string => oid !== undefined),
    below(folders) {
      const out: Pending[] = [];
      const entries = (oid: string | undefined) => (oid === undefined ? [] : folders.get(oid)!);
      compareFolders(path, entries(left), entries(right), (prefix, l, r) => out.push(comparing(a, b, prefix, l, r)));
      return out;
    },
  };
}

function scoped(tree: Tree, path: string, oid: string, whole: boolean, index: ScopeIndex, top: boolean): Pending {
  return {
    tree,
    path,
    oids: [oid],
    ...(whole && top && { subtree: oid }),
    below(folders) {
      const out: Pending[] = [];
      scopeFolder(path, folders.get(oid)!, whole, index, (prefix, child, all) =>
        out.push(scoped(tree, prefix, child, all, index, all && !whole)),
      );
      return out;
    },
  };
}

function startOf(read: TreeRead): Pending[] {
  if ("compare" in read) {
    const [a, b] = read.compare;
    return a.root === b.root ? [] : [comparing(a, b, "", a.root, b.root)];
  }
  const index = scopeIndex(read.scope);
  return [scoped(read.tree, "", read.tree.root, index.whole, index, true)];
}

/** Every folder above the given paths (`a/b/c` → `a`, `a/b`), each once. O(length of the paths). */
function foldersAbove(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
      const folder = path.slice(0, at);
      if (out.has(folder)) break;
      out.add(folder);
    }
  }
  return [...out];
}

export class GitHubRepository implements TaskRepository {
  /** Every folder listed so far, by object id, for every commit. */
  readonly folders: Folders = new Map();
  /** Each commit's root folder (`null`: GitHub has no such commit). */
  private readonly roots = new Map<string, Promise<string | null>>();
  /** Folders asked for in one recursive request already (cut short: walked instead). */
  private readonly recursive = new Set<string>();
  private readonly comparisons = new Map<string, Promise<Comparison>>();
  /** The files comparisons listed, by `mergeBase...head`. */
  private readonly changed = new Map<string, readonly string[]>();
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

  /**
   * The trees of commits, their root folders listed: one GraphQL request for all the commits not
   * asked for yet. With `hints` (paths that may have changed, as a comparison lists them), the same
   * request lists each folder above those paths at the commits `hints.at`: a walk down to them then
   * finds them listed, and costs no more requests. A hint only saves requests: every folder is still
   * reached from its root and checked against its id. A commit GitHub does not have is left out.
   */
  async trees(
    shas: readonly string[],
    hints?: { readonly at: readonly string[]; readonly paths: readonly string[] },
  ): Promise<Map<string, Tree>> {
    const fresh = [...new Set(shas)].filter((sha) => !this.roots.has(sha));
    const folders = hints ? foldersAbove(hints.paths) : [];
    const where = new Map<string, { sha: string; path: string }>();
    for (const sha of hints?.at ?? []) {
      if (FULL_SHA.test(sha)) for (const path of folders) where.set(`${sha}:${path}`, { sha, path: `${path}/` });
    }
    if (fresh.length > 0 || where.size > 0) {
      const asked = this.api.folders(
        fresh.filter((sha) => FULL_SHA.test(sha)),
        [...where.keys()],
      );
      for (const sha of fresh) {
        this.roots.set(
          sha,
          asked.then(async (found) => {
            const listing = found.get(sha);
            if (!listing) return null;
            await this.keep([listing], new Map([[listing.oid, { sha, path: "" }]]));
            return listing.oid;
          }),
        );
      }
      const found = await asked;
      const hinted = [...where].flatMap(([key, at]) => {
        const listing = found.get(key);
        return listing ? [{ listing, at }] : [];
      });
      await this.keep(
        hinted.map((item) => item.listing),
        new Map(hinted.map((item) => [item.listing.oid, item.at])),
      );
    }
    const out = new Map<string, Tree>();
    for (const sha of new Set(shas)) {
      const root = await this.roots.get(sha)!;
      if (root !== null) out.set(sha, new Tree(sha, root, this.folders));
    }
    return out;
  }

  /** The tree of one commit, its root folder listed; `MissingCommitError` when GitHub has none. */
  async tree(sha: string): Promise<Tree> {
    const tree = (await this.trees([sha])).get(sha);
    if (!tree) throw new MissingCommitError(sha);
    return tree;
  }

  /**
   * Lists every folder the reads enter, level by level: one GraphQL request (per 200 folders) per
   * level for all the reads together, and one recursive request for a folder a scope reads whole.
   * Throws `TruncatedTreeError` when GitHub cuts a needed folder short even alone.
   */
  async cover(reads: readonly TreeRead[]): Promise<void> {
    let frontier = reads.flatMap(startOf);
    for (;;) {
      const waiting = this.enterListed(frontier);
      if (waiting.length === 0) return;
      await this.list(waiting);
      frontier = waiting;
    }
  }

  /** Goes down every folder already listed; returns those still to list. */
  private enterListed(frontier: readonly Pending[]): Pending[] {
    const waiting: Pending[] = [];
    const queue = [...frontier];
    for (let node = queue.pop(); node; node = queue.pop()) {
      if (node.oids.some((oid) => !this.folders.has(oid))) waiting.push(node);
      else for (const next of node.below(this.folders)) queue.push(next);
    }
    return waiting;
  }

  /** Lists one level: the folders in one GraphQL batch, and each subtree read whole in one request. */
  private async list(waiting: readonly Pending[]): Promise<void> {
    const wanted = new Map<string, { sha: string; path: string }>();
    const subtrees = new Map<string, Pending>();
    for (const node of waiting) {
      if (node.subtree && !this.recursive.has(node.subtree)) subtrees.set(node.subtree, node);
      else
        for (const oid of node.oids)
          if (!this.folders.has(oid)) wanted.set(oid, { sha: node.tree.sha, path: node.path });
    }
    for (const oid of wanted.keys()) subtrees.delete(oid);
    const level = async () => {
      if (wanted.size === 0) return;
      const found = await this.api.folders([...wanted.keys()]);
      const listings = [...wanted].map(([oid, where]) => {
        const listing = found.get(oid);
        if (!listing)
          throw new Error(`GitHub has no folder ${where.path} (${oid.slice(0, 7)}) of ${where.sha.slice(0, 7)}`);
        return listing;
      });
      await this.keep(listings, wanted);
    };
    const whole = async (oid: string) => {
      this.recursive.add(oid);
      absorbListing(await this.api.listing(oid, { recursive: true }), this.folders, true);
    };
    await Promise.all([level(), ...[...subtrees.keys()].map(whole)]);
  }

  /**
   * Keeps GraphQL's listings that hold their folder whole; asks REST again for any other, and fails
   * closed when REST cuts that folder short too.
   */
  private async keep(
    listings: readonly FolderListing[],
    where: ReadonlyMap<string, { sha: string; path: string }>,
  ): Promise<void> {
    const again: FolderListing[] = [];
    for (const listing of listings) {
      if (isWhole(listing.oid, listing.entries)) this.folders.set(listing.oid, listing.entries);
      else again.push(listing);
    }
    await Promise.all(
      again.map(async ({ oid }) => {
        const answer = await this.api.listing(oid, { recursive: false });
        const at = where.get(oid) ?? { sha: oid, path: "" };
        if (answer.truncated) throw new TruncatedTreeError(at.sha, at.path);
        absorbListing(answer, this.folders, false);
      }),
    );
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
    await this.cover([{ tree, scope }]);
    await this.prefetch(blobsToRead(tree, scope, limits));
    return { ...snapshotOf(tree, scope, limits, this.blobs), rev };
  }

  async changedFiles(base: string, head: string): Promise<ChangedFile[]> {
    const [before, after] = await this.compared(base, head);
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
    const [before, after] = await this.compared(from, to);
    return differences(before, after);
  }

  /**
   * Two trees with every folder that differs between them listed; the folders above the files a
   * comparison of the two listed come with their roots.
   */
  private async compared(a: string, b: string): Promise<[Tree, Tree]> {
    const paths = this.changed.get(`${a}...${b}`);
    const trees = await this.trees([a, b], paths && { at: [a, b], paths });
    const pair: [Tree, Tree] = [trees.get(a)!, trees.get(b)!];
    for (const [at, sha] of [a, b].entries()) if (!pair[at]) throw new MissingCommitError(sha);
    await this.cover([{ compare: pair }]);
    return pair;
  }

  /**
   * The comparison of `base...head` (cached per pair); the files it lists are kept as hints for
   * comparing the merge base with the head.
   */
  compare(base: string, head: string): Promise<Comparison> {
    const key = `${base}...${head}`;
    let comparison = this.comparisons.get(key);
    if (!comparison) {
      comparison = this.api.compare(base, head).then((answer) => {
        this.changed.set(`${answer.mergeBase}...${head}`, answer.files);
        return answer;
      });
      this.comparisons.set(key, comparison);
    }
    return comparison;
  }
}
