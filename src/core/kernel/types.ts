/**
 * Plain data shapes shared by the core and every adapter. Nothing here does I/O.
 */
import type { ViolationCode } from "./violations.js";

/** How a path is stored at a revision. Rules refuse anything that is not a readable regular file. */
export type FileKind = "file" | "symlink" | "binary" | "oversized" | "submodule";

export interface FileEntry {
  readonly path: string;
  readonly kind: FileKind;
  /** Size in bytes as stored in git. */
  readonly size: number;
  /** UTF-8 text, present for `file` only. */
  readonly text?: string;
  /** Link target, present for `symlink` when the adapter read it. */
  readonly target?: string;
  /**
   * A content id (git's object id). Two entries with the same `oid` hold the same bytes; rules compare
   * revisions with it without reading project files. Adapters fill it in when they know it.
   */
  readonly oid?: string;
}

/**
 * The task store read at one revision. A snapshot may be partial: an adapter that evaluates a PR
 * loads only the folders the PR touches (see `snapshotScope`), so a check never grows with repo size.
 */
export interface Snapshot {
  /** A label for messages: a ref name or a short sha. */
  readonly rev: string;
  readonly files: ReadonlyMap<string, FileEntry>;
}

export type ChangeStatus = "added" | "modified" | "removed" | "renamed";

export interface ChangedFile {
  readonly path: string;
  readonly status: ChangeStatus;
  /** For renames: the path before the rename. */
  readonly previousPath?: string;
}

export type ReviewState = "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";

/** A GitHub pull request review, as the REST API returns it (only the fields taskgate reads). */
export interface Review {
  readonly user: { readonly login: string; readonly type?: string } | null;
  readonly state: ReviewState | string;
  readonly commit_id?: string | null;
  readonly submitted_at?: string | null;
  readonly body?: string | null;
  /**
   * GitHub's word on the reviewer's relation to the repository (`OWNER`, `MEMBER`, `COLLABORATOR`,
   * `CONTRIBUTOR`, `NONE`, ...). Only orders which reviewed commits are read first; it never makes a
   * review count (permissions do).
   */
  readonly author_association?: string | null;
}

export interface PrCommit {
  readonly sha: string;
  /**
   * The GitHub login GitHub attributes the commit to, or `null` when GitHub names nobody (or nothing
   * is known). Only this login can make a commit the bot's; a git author name never does.
   */
  readonly author: string | null;
  /** The author name recorded in git: used only to name an unknown contributor, never as an identity. */
  readonly gitName?: string | null;
  /** The author's e-mail address as git recorded it: names an unknown contributor, like `gitName`. */
  readonly gitEmail?: string | null;
  /**
   * The GitHub login GitHub attributes the commit's committer to, `null` when GitHub links nobody;
   * `undefined` when unknown. GitHub's own committer (`web-flow`) is nobody.
   */
  readonly committer?: string | null;
  /** The committer as git recorded it: names the committer when GitHub links no login. */
  readonly gitCommitter?: { readonly name?: string | null; readonly email?: string | null } | null;
  /**
   * The people the commit message names in `Co-authored-by:` trailers, with the GitHub login GitHub
   * links to each (`null`: none, or unknown). `undefined` when the trailers were not read.
   */
  readonly coAuthors?: readonly {
    readonly login: string | null;
    readonly name?: string | null;
    readonly email?: string | null;
  }[];
  /** Parent commit ids, first parent first; `undefined` when unknown. */
  readonly parents?: readonly string[];
  /**
   * GitHub's signature verification of the commit, when known. A commit GitHub reports as not verified
   * is never the bot's, whatever its author.
   */
  readonly verified?: boolean;
  /** Files the commit changed; `undefined` when unknown. Informational: rules judge content, not lists. */
  readonly files?: readonly string[];
}

/**
 * The task store as it was at another commit of the pull request (a reviewed commit, a bot commit or
 * its parent), read with the same scope as the head, plus which paths differ from the head.
 */
export interface RevisionView {
  readonly sha: string;
  readonly snapshot: Snapshot;
  /**
   * Every path whose content differs between this revision and the head, with its content id at this
   * revision (`null`: absent here). A path not listed is identical to the head's.
   */
  readonly changed: ReadonlyMap<string, string | null>;
}

export type Permission = "none" | "read" | "triage" | "write" | "maintain" | "admin";

/** Everything about a pull request that is not file content. Commits are oldest first. */
export interface PrContext {
  readonly author: string;
  readonly headSha?: string;
  readonly files: readonly ChangedFile[];
  readonly commits: readonly PrCommit[];
  readonly reviews: readonly Review[];
  /** login → permission on the repository. Logins missing here have no known permission. */
  readonly permissions: Readonly<Record<string, Permission | string>>;
  /** "@org/team" → member logins. */
  readonly teams: Readonly<Record<string, readonly string[]>>;
  /**
   * Logins and teams GitHub could not resolve (an organization it does not know, a team it does not
   * show, a deleted user), with why: each costs only itself, and the pending text says why it did
   * not count.
   */
  readonly unresolved?: Readonly<Record<string, string>>;
  /**
   * Views of other commits, by commit id: every reviewed commit and every bot commit with its parents
   * that the adapter could read. A review whose commit has no view cannot be judged fresh and never
   * counts; a bot commit without views adds no recorded decision.
   */
  readonly revisions?: ReadonlyMap<string, RevisionView>;
}

export interface Violation {
  readonly code: ViolationCode;
  readonly task?: string;
  readonly path?: string;
  readonly line?: number;
  readonly message: string;
  readonly hint: string;
}

/** A gate still waiting for approval. Same shape as a violation, plus who may approve it. */
export interface Pending extends Violation {
  readonly approvers: readonly string[];
}

export interface Transition {
  readonly task: string;
  readonly from: string | null;
  readonly to: string | null;
}

/**
 * `adopt`: a phases task that first appears in the pull request past a gate, at the state its
 * artifacts show; the bot appends `adopted:approved|<time>|<reviewer>` and leaves `.state` as it is.
 */
export type RecordKind = "approve" | "reject" | "unblock" | "adopt";

/** Something the bot would commit on the PR branch: the decision of an eligible review. */
export interface BotRecord {
  readonly task: string;
  readonly from: string;
  readonly to: string;
  readonly by: string;
  readonly kind: RecordKind;
  /** When the deciding review was submitted (ISO-8601); the bot writes it into the approval line. */
  readonly at?: string;
  /** For rejects: the reviewer's words. */
  readonly reason?: string;
  /** The deciding reviews (login and submission time), one per reviewer the gate's count needs. */
  readonly reviews?: readonly { readonly by: string; readonly at: string }[];
}

export type Conclusion = "success" | "failure" | "action_required" | "neutral";

export interface Report {
  readonly conclusion: Conclusion;
  readonly violations: readonly Violation[];
  readonly pending: readonly Pending[];
  readonly transitions: readonly Transition[];
  readonly records: readonly BotRecord[];
  /** One line for people: what was judged and how. */
  readonly summary: string;
}
