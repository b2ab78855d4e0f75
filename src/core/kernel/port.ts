/**
 * The port between the core and the places a task store lives. The local git adapter implements it
 * over a checkout; tests implement it in memory. The core itself never does I/O: orchestration
 * functions take a `TaskRepository` and hand plain snapshots to the pure rules.
 */
import type { ChangedFile, PrCommit, Snapshot } from "./types.js";

/**
 * Which part of a revision to read. `paths` are exact file paths, `prefixes` are folders (ending
 * in "/"). A scope of `undefined` means the whole revision.
 */
export interface SnapshotScope {
  readonly paths: readonly string[];
  readonly prefixes: readonly string[];
}

/**
 * Whether a path falls in a scope (`undefined`: the whole revision), in time proportional to the
 * path's depth, never to the size of the scope: exact paths in one set, and each folder above the
 * path looked up in a set of prefixes. A prefix of "" or "/" names the whole revision; a prefix
 * `a/b` means the folder, so it matches `a/b/c` but not `a/bc`.
 */
export function scopeMatcher(scope: SnapshotScope | undefined): (path: string) => boolean {
  if (scope === undefined) return () => true;
  const paths = new Set(scope.paths.filter((path) => path !== ""));
  const prefixes = new Set(scope.prefixes.map(folderOf));
  if (prefixes.has("/")) return () => true;
  if (prefixes.size === 0) return (path) => paths.has(path);
  if (prefixes.size <= 8) {
    // A few folders: comparing in place allocates nothing.
    const few = [...prefixes];
    // A loop, not `some`: called for every listed path, it makes no closure per call.
    return (path) => {
      if (paths.has(path)) return true;
      for (let index = 0; index < few.length; index++) if (path.startsWith(few[index]!)) return true;
      return false;
    };
  }
  return (path) => {
    if (paths.has(path)) return true;
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
      if (prefixes.has(path.slice(0, slash + 1))) return true;
    }
    return false;
  };
}

/**
 * Whether everything `inner` reads lies in `outer`: each of its paths is one of `outer`'s or under
 * one of its folders, and each of its folders is under one of `outer`'s. `undefined` is the whole
 * revision. So a listing of `outer` holds every entry of `inner` (`scopeMatcher(inner)` picks them).
 */
export function scopeCovers(outer: SnapshotScope | undefined, inner: SnapshotScope | undefined): boolean {
  if (outer === undefined) return true;
  const folders = outer.prefixes.map(folderOf);
  if (folders.includes("/")) return true;
  if (inner === undefined) return false;
  const under = (path: string) => folders.some((folder) => path.startsWith(folder));
  const paths = new Set(outer.paths);
  return (
    inner.paths.every((path) => path === "" || paths.has(path) || under(path)) &&
    inner.prefixes.every((prefix) => folderOf(prefix) !== "/" && under(folderOf(prefix)))
  );
}

/** A scope prefix as a folder ending in "/" ("/" alone for the whole revision). */
export function folderOf(prefix: string): string {
  return prefix === "" || prefix.endsWith("/") ? prefix || "/" : `${prefix}/`;
}

/** Limits a reader applies; files above `maxFileBytes` are reported as `oversized`, not read. */
export interface ReadLimits {
  readonly maxFileBytes?: number;
  /** Files with a limit of their own (a board's ledger is its database and may be large). */
  readonly perPath?: Readonly<Record<string, number>>;
}

/** The size limit of one path under some limits. */
export function limitFor(path: string, limits: ReadLimits | undefined, fallback: number): number {
  const own = limits?.perPath && Object.hasOwn(limits.perPath, path) ? limits.perPath[path] : undefined;
  return own ?? limits?.maxFileBytes ?? fallback;
}

export interface TaskRepository {
  /** Resolves a ref to a commit id; throws `RefNotFoundError` when it does not exist. */
  resolve(ref: string): Promise<string>;
  /** The best common ancestor of two commits, or `undefined` for unrelated histories. */
  mergeBase(a: string, b: string): Promise<string | undefined>;
  /** Reads a revision (or the given part of it) with a constant number of processes/requests. */
  readSnapshot(rev: string, scope?: SnapshotScope, limits?: ReadLimits): Promise<Snapshot>;
  /** Files changed between two revisions, renames detected. */
  changedFiles(base: string, head: string): Promise<ChangedFile[]>;
  /**
   * Commits reachable from head but not from base, oldest first, each with its parents, its git
   * author (`gitName`, `gitEmail`; `author` is `null`: git knows no GitHub login), its committer
   * (`gitCommitter`), its `Co-authored-by:` trailers (`coAuthors`) and the files it changed.
   */
  commits(base: string, head: string): Promise<PrCommit[]>;
  /**
   * Every path whose content differs between two revisions (no rename detection: a rename is two
   * paths), mapped to its content id at `from` (`null` when absent at `from`). One process/request.
   */
  differences(from: string, to: string): Promise<ReadonlyMap<string, string | null>>;
  /**
   * Optional: the caller will read this scope at these revisions soon. A reader that lists folders
   * request by request (GitHub) lists theirs with the requests it makes meanwhile; a reader that
   * lists a revision in one process (git) lists the scope of one revision once, for every later read
   * it covers. It only saves requests and processes, and never changes what a read returns.
   */
  plan?(revs: readonly string[], scope: SnapshotScope): void;
  /**
   * Optional: who the people of a pull request are, as the place the repository lives knows them
   * (GitHub: repository permissions, team members, the logins linked to `Co-authored-by:`
   * trailers). A reader that has no such facts leaves it out; the caller's own facts (`PR.json`)
   * stand instead. A reader that batches answers it with the reads of the same tick.
   */
  people?(request: PeopleRequest): Promise<People>;
}

/** What a pull request's rules need to know about people: asked only when a rule needs it. */
export interface PeopleRequest {
  /** Logins whose repository permission counts (the reviewers of decisive reviews). */
  readonly logins: readonly string[];
  /** Teams (`@org/team`) whose members count. */
  readonly teams: readonly string[];
  /** Commits with `Co-authored-by:` trailers, whose co-authors' logins count. */
  readonly commits: readonly string[];
}

export interface People {
  readonly permissions: Readonly<Record<string, string>>;
  readonly teams: Readonly<Record<string, readonly string[]>>;
  /** Why a login's permission or a team's members are unknown. */
  readonly unresolved: Readonly<Record<string, string>>;
  /** The people linked to each commit asked for (its git author first, then each trailer). */
  readonly authors: ReadonlyMap<string, readonly { readonly login: string | null; readonly email: string | null }[]>;
}

export class RefNotFoundError extends Error {
  constructor(
    readonly ref: string,
    readonly hint: string = "Check the spelling, or fetch the branch first (git fetch origin <branch>).",
  ) {
    super(`ref not found: ${ref}`);
    this.name = "RefNotFoundError";
  }
}

export class RepositoryError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "RepositoryError";
  }
}
