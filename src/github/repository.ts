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
 * - Reads batch by tick: the folders asked for in the same tick (by any read: roots, hints, a level
 *   of a walk) share one `Folders` request, and the blobs and people (`people`: permissions, team
 *   members, co-authors' logins) one `Batch`, sent once no snapshot read started with them is still
 *   listing folders. So the core's pipeline, which starts its independent reads together, costs
 *   what a hand-written sequence of batched calls would.
 * - `commits`: one comparison; GitHub lists at most 250 commits, and a longer list is never judged
 *   as if complete: `CappedListError` (or, for a caller that fails closed itself, the listed ones).
 * - `mergeBase`: the same comparison (cached per pair, and as its merge base's comparison).
 */
import {
  RefNotFoundError,
  coAuthorsOf,
  type ChangedFile,
  type People,
  type PeopleRequest,
  type PrCommit,
  type ReadLimits,
  type Snapshot,
  type SnapshotScope,
  type TaskRepository,
} from "../core/index.js";
import {
  MAX_COMMITS,
  type BatchAnswer,
  type BlobData,
  type Comparison,
  type FolderListing,
  type GitHubApi,
} from "./api.js";
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
export class MissingCommitError extends RefNotFoundError {
  readonly status = 404;

  constructor(readonly sha: string) {
    super(sha, "Name a commit this repository has.");
    this.message = `GitHub has no commit ${sha}`;
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

/** Where a folder sits: the commit and the path it was asked for at (for messages). */
interface Where {
  readonly sha: string;
  readonly path: string;
}

/** Folders asked for in one tick, listed by one GraphQL request, by key (object id or expression). */
interface FolderQueue {
  readonly items: Map<string, { readonly expression: boolean; readonly where: Where }>;
  readonly answer: Promise<ReadonlyMap<string, FolderListing | null>>;
}

/** Blobs and people asked for in one tick, read by one `Batch`. */
interface BatchQueue {
  readonly blobs: Set<string>;
  readonly people: Set<string>;
  readonly teams: Set<string>;
  readonly commits: Set<string>;
  readonly answer: Promise<BatchAnswer>;
  settle(flush: () => Promise<BatchAnswer>): void;
}

export interface GitHubReaderOptions {
  /**
   * Commits beyond what GitHub lists (250): `"fail"` (the default) throws `CappedListError`;
   * `"listed"` gives the listed ones, for a caller that fails closed itself.
   */
  readonly cappedCommits?: "fail" | "listed";
}

/** A promise awaited later, or never: its failure is not reported as unhandled meanwhile. */
function held<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

export class GitHubRepository implements TaskRepository {
  /** Every folder listed so far, by object id, for every commit. */
  readonly folders: Folders = new Map();
  /** Each commit's root folder (`null`: GitHub has no such commit). */
  private readonly roots = new Map<string, Promise<string | null>>();
  /** Folders asked for in one recursive request (cut short: walked instead), and those answered. */
  private readonly recursive = new Map<string, Promise<void>>();
  private readonly absorbed = new Set<string>();
  private readonly comparisons = new Map<string, Promise<Comparison>>();
  /** The files comparisons listed, by `mergeBase...head`. */
  private readonly changed = new Map<string, readonly string[]>();
  readonly blobs = new Map<string, BlobData>();
  /** Every folder asked for, by key, listed and kept once its request is answered. */
  private readonly asked = new Map<string, Promise<FolderListing | null>>();
  private folderQueue: FolderQueue | undefined;
  /** Blobs asked for and not read yet, by object id. */
  private readonly reading = new Map<string, Promise<BatchAnswer>>();
  private batchQueue: BatchQueue | undefined;
  private batchScheduled = false;
  /** Snapshot reads still listing folders: the blobs of reads started together are read together. */
  private walking = 0;

  constructor(
    readonly api: GitHubApi,
    private readonly options: GitHubReaderOptions = {},
  ) {}

  async resolve(ref: string): Promise<string> {
    if (FULL_SHA.test(ref)) return ref;
    try {
      return await this.api.commitSha(ref);
    } catch {
      throw new RefNotFoundError(ref, "Name a branch, a tag or a full commit id of this repository.");
    }
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    return (await this.compare(a, b)).mergeBase;
  }

  /**
   * The trees of commits, their root folders listed: the commits not asked for yet join the next
   * GraphQL request of folders. With `hints` (paths that may have changed, as a comparison lists
   * them), the same request lists each folder above those paths at the commits `hints.at`: a walk
   * down to them then finds them listed, and costs no more requests. A hint only saves requests:
   * every folder is still reached from its root and checked against its id. A commit GitHub does
   * not have is left out.
   */
  async trees(
    shas: readonly string[],
    hints?: { readonly at: readonly string[]; readonly paths: readonly string[] },
  ): Promise<Map<string, Tree>> {
    if (hints) this.hint(hints.at, hints.paths);
    for (const sha of new Set(shas)) {
      if (this.roots.has(sha)) continue;
      const root = FULL_SHA.test(sha)
        ? this.ask(sha, false, { sha, path: "" }).then((listing) => listing?.oid ?? null)
        : Promise.resolve(null);
      this.roots.set(sha, held(root));
    }
    const out = new Map<string, Tree>();
    for (const sha of new Set(shas)) {
      const root = await this.roots.get(sha)!;
      if (root !== null) out.set(sha, new Tree(sha, root, this.folders));
    }
    return out;
  }

  /**
   * The tree of commit `sha` from one recursive REST listing of its root: for a read that enters
   * folders it cannot name before it has read a file (the repository page reads the config and a
   * store it does not know yet). What GitHub cut short of it is listed later by `cover`, as any
   * folder not listed yet.
   */
  async wholeTree(sha: string): Promise<Tree> {
    if (!this.roots.has(sha)) {
      const root = this.api.listing(sha, { recursive: true }).then((answer) => {
        absorbListing(answer, this.folders, true);
        if (!answer.truncated) this.absorbed.add(answer.sha);
        return answer.sha;
      });
      this.roots.set(sha, held(root));
    }
    return this.tree(sha);
  }

  /** Asks, with the next request of folders, for each folder above `paths` at the commits `at`. */
  private hint(at: readonly string[], paths: readonly string[]): void {
    const folders = foldersAbove(paths);
    for (const sha of at) {
      if (!FULL_SHA.test(sha)) continue;
      for (const path of folders) held(this.ask(`${sha}:${path}`, true, { sha, path: `${path}/` }));
    }
  }

  /**
   * A folder by object id (a commit's id names its root folder) or by expression (`<commit>:<path>`),
   * listed and kept: folders asked for in the same tick share one GraphQL request (per 200), and a
   * folder is asked for once. `null`: GitHub has no such folder. Fails, for every folder of the
   * request, when GitHub cuts one of them short even alone.
   */
  private ask(key: string, expression: boolean, where: Where): Promise<FolderListing | null> {
    const known = this.asked.get(key);
    if (known) return known;
    if (!this.folderQueue) {
      const items: FolderQueue["items"] = new Map();
      const answer = new Promise<ReadonlyMap<string, FolderListing | null>>((resolve, reject) =>
        setImmediate(() => {
          if (this.folderQueue?.items === items) this.folderQueue = undefined;
          this.listFolders(items).then(resolve, reject);
        }),
      );
      this.folderQueue = { items, answer };
    }
    this.folderQueue.items.set(key, { expression, where });
    const asked = held(this.folderQueue.answer.then((found) => found.get(key) ?? null));
    this.asked.set(key, asked);
    return asked;
  }

  /** One request for the folders of a tick, each listing kept (or asked again by REST when cut). */
  private async listFolders(items: FolderQueue["items"]): Promise<ReadonlyMap<string, FolderListing | null>> {
    const keys = [...items.keys()];
    const found = await this.api.folders(
      keys.filter((key) => !items.get(key)!.expression),
      keys.filter((key) => items.get(key)!.expression),
    );
    const listings = keys.flatMap((key) => {
      const listing = found.get(key);
      return listing ? [{ listing, where: items.get(key)!.where }] : [];
    });
    await this.keep(
      listings.map((item) => item.listing),
      new Map(listings.map((item) => [item.listing.oid, item.where])),
    );
    return found;
  }

  /**
   * Reads `scope` at `revs` ahead (their roots and the folders above its paths join the next
   * request of folders, and the folders it enters are listed with the walks of the same level), so
   * that a later snapshot of it costs no request of folders of its own.
   */
  plan(revs: readonly string[], scope: SnapshotScope): void {
    this.hint(revs, scope.paths);
    for (const rev of revs) held(this.tree(rev).then((tree) => this.cover([{ tree, scope }])));
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

  /**
   * Lists one level: the folders join the tick's GraphQL request of folders, and each subtree read
   * whole is asked for in one request (a read that needs one another read asked for waits for it).
   */
  private async list(waiting: readonly Pending[]): Promise<void> {
    const wanted = new Map<string, Where>();
    const subtrees = new Set<string>();
    const listing: Promise<void>[] = [];
    for (const node of waiting) {
      const whole = node.subtree === undefined ? undefined : this.recursive.get(node.subtree);
      if (node.subtree && !whole) subtrees.add(node.subtree);
      else if (whole && !this.folders.has(node.subtree!) && !this.absorbed.has(node.subtree!)) listing.push(whole);
      else
        for (const oid of node.oids)
          if (!this.folders.has(oid)) wanted.set(oid, { sha: node.tree.sha, path: node.path });
    }
    for (const oid of wanted.keys()) subtrees.delete(oid);
    const level = [...wanted].map(async ([oid, where]) => {
      const found = await this.ask(oid, false, where);
      if (!found)
        throw new Error(`GitHub has no folder ${where.path} (${oid.slice(0, 7)}) of ${where.sha.slice(0, 7)}`);
    });
    const whole = [...subtrees].map((oid) => {
      const read = this.api.listing(oid, { recursive: true }).then((answer) => {
        absorbListing(answer, this.folders, true);
        this.absorbed.add(oid);
      });
      this.recursive.set(oid, held(read));
      return read;
    });
    await Promise.all([...level, ...whole, ...listing]);
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

  /** Reads the named blobs not read yet, with the other blobs and people asked for in the same tick. */
  async prefetch(oids: readonly string[]): Promise<void> {
    const missing = [...new Set(oids)].filter((oid) => !this.blobs.has(oid));
    await Promise.all(this.request({ blobs: missing }));
  }

  /**
   * Reads `rev` in `scope`: its folders listed (with the other reads' of the same level), then its
   * blobs in the `Batch` of every read started with it (a read still listing folders holds that
   * batch back, so reads started together never split it).
   */
  async readSnapshot(rev: string, scope?: SnapshotScope, limits: ReadLimits = {}): Promise<Snapshot> {
    this.walking++;
    let tree: Tree;
    let read: Promise<unknown>[];
    try {
      tree = await this.tree(rev);
      await this.cover([{ tree, scope }]);
      const missing = [...new Set(blobsToRead(tree, scope, limits))].filter((oid) => !this.blobs.has(oid));
      read = this.request({ blobs: missing });
    } finally {
      this.walking--;
      if (this.walking === 0) this.scheduleBatch();
    }
    await Promise.all(read);
    return { ...snapshotOf(tree, scope, limits, this.blobs), rev };
  }

  /**
   * Repository permissions, team members and the logins GitHub links to commits' co-authors, in the
   * `Batch` of the reads of the same tick.
   */
  async people(request: PeopleRequest): Promise<People> {
    const [answer] = this.request({ people: request.logins, teams: request.teams, commits: request.commits });
    if (!answer) return { permissions: {}, teams: {}, unresolved: {}, authors: new Map() };
    const { permissions, teams, unresolved, authors } = await answer;
    return { permissions, teams, unresolved, authors };
  }

  /**
   * Queues blobs and people for the tick's `Batch`; the promises of the batches that answer them
   * (none when nothing is left to ask: a blob read or asked for already waits for its batch).
   */
  private request(items: {
    blobs?: readonly string[];
    people?: readonly string[];
    teams?: readonly string[];
    commits?: readonly string[];
  }): Promise<BatchAnswer>[] {
    const out = new Set<Promise<BatchAnswer>>();
    const fresh = (items.blobs ?? []).filter((oid) => {
      const asked = this.reading.get(oid);
      if (asked) out.add(asked);
      return !asked;
    });
    const others = [...(items.people ?? []), ...(items.teams ?? []), ...(items.commits ?? [])];
    if (fresh.length === 0 && others.length === 0) return [...out];
    const queue = (this.batchQueue ??= batchQueue());
    for (const oid of fresh) {
      queue.blobs.add(oid);
      this.reading.set(oid, queue.answer);
    }
    for (const login of items.people ?? []) queue.people.add(login);
    for (const team of items.teams ?? []) queue.teams.add(team);
    for (const sha of items.commits ?? []) queue.commits.add(sha);
    out.add(queue.answer);
    this.scheduleBatch();
    return [...out];
  }

  /** Sends the queued `Batch` on the next tick, once no read started with it is still listing folders. */
  private scheduleBatch(): void {
    if (this.batchScheduled || !this.batchQueue) return;
    this.batchScheduled = true;
    setImmediate(() => {
      this.batchScheduled = false;
      const queue = this.batchQueue;
      // The last read to finish listing its folders schedules the batch again.
      if (!queue || this.walking > 0) return;
      this.batchQueue = undefined;
      queue.settle(async () => {
        try {
          const answer = await this.api.batch({
            blobs: [...queue.blobs],
            people: [...queue.people],
            teams: [...queue.teams],
            commits: [...queue.commits],
          });
          for (const [oid, blob] of answer.blobs) this.blobs.set(oid, blob);
          return answer;
        } finally {
          for (const oid of queue.blobs) this.reading.delete(oid);
        }
      });
    });
  }

  async changedFiles(base: string, head: string): Promise<ChangedFile[]> {
    const [before, after] = await this.compared(base, head);
    return changedFiles(before, after);
  }

  async commits(base: string, head: string): Promise<PrCommit[]> {
    const comparison = await this.compare(base, head);
    if (comparison.totalCommits > comparison.commits.length && this.options.cappedCommits !== "listed") {
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
   * The comparison of `base...head` (cached per pair, and as the comparison of its merge base with
   * `head`: GitHub compares from the merge base); the files it lists are kept as hints for
   * comparing the merge base with the head.
   */
  compare(base: string, head: string): Promise<Comparison> {
    const key = `${base}...${head}`;
    let comparison = this.comparisons.get(key);
    if (!comparison) {
      comparison = this.api.compare(base, head).then((answer) => {
        const from = `${answer.mergeBase}...${head}`;
        this.changed.set(from, answer.files);
        if (!this.comparisons.has(from)) this.comparisons.set(from, Promise.resolve(answer));
        return answer;
      });
      this.comparisons.set(key, comparison);
    }
    return comparison;
  }
}

/** An empty `Batch` queue whose answer is settled by the flush it is given. */
function batchQueue(): BatchQueue {
  let settle!: BatchQueue["settle"];
  const answer = held(
    new Promise<BatchAnswer>((resolve, reject) => {
      settle = (flush) => void flush().then(resolve, reject);
    }),
  );
  return { blobs: new Set(), people: new Set(), teams: new Set(), commits: new Set(), answer, settle };
}
