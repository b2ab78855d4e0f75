/**
 * The port between the core and the places a task store lives. The local git adapter implements it
 * over a checkout; tests implement it in memory. The core itself never does I/O: orchestration
 * functions take a `TaskRepository` and hand plain snapshots to the pure rules.
 */
import type { ChangedFile, FileEntry, PrCommit, Snapshot } from "./types.js";

/**
 * Which part of a revision to read. `paths` are exact file paths, `prefixes` are folders (ending
 * in "/"). A scope of `undefined` means the whole revision.
 */
export interface SnapshotScope {
  readonly paths: readonly string[];
  readonly prefixes: readonly string[];
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
}

/** Looks up one file of a snapshot. */
export function fileAt(snapshot: Snapshot, path: string): FileEntry | undefined {
  return snapshot.files.get(path);
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
