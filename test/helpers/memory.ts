/**
 * In-memory snapshots and pull requests for core tests: the third implementation of the port.
 */
import { createHash } from "node:crypto";
import { defaultConfig, parseConfig, type Config } from "../../src/core/kernel/config.js";
import type {
  ChangedFile,
  FileEntry,
  PrCommit,
  PrContext,
  Review,
  RevisionView,
  Snapshot,
} from "../../src/core/kernel/types.js";

export type FileSpec = string | { kind: "symlink"; target: string } | { kind: "binary" | "oversized"; size: number };

/** A content id like git's: the same kind and bytes, the same id. */
function oidOf(kind: string, content: string): string {
  return createHash("sha1").update(`${kind}\u0000${content}`).digest("hex");
}

export function snapshot(files: Record<string, FileSpec>, rev = "mem"): Snapshot {
  const map = new Map<string, FileEntry>();
  for (const [path, spec] of Object.entries(files)) {
    if (typeof spec === "string")
      map.set(path, { path, kind: "file", size: Buffer.byteLength(spec), text: spec, oid: oidOf("file", spec) });
    else if (spec.kind === "symlink")
      map.set(path, {
        path,
        kind: "symlink",
        size: spec.target.length,
        target: spec.target,
        oid: oidOf("symlink", spec.target),
      });
    else map.set(path, { path, kind: spec.kind, size: spec.size, oid: oidOf(spec.kind, String(spec.size)) });
  }
  return { rev, files: map };
}

/** The view of `other` as a pull request's rules see it: its snapshot and what differs from `head`. */
export function view(sha: string, other: Snapshot, head: Snapshot): RevisionView {
  const changed = new Map<string, string | null>();
  for (const [path, entry] of other.files) if (head.files.get(path)?.oid !== entry.oid) changed.set(path, entry.oid!);
  for (const path of head.files.keys()) if (!other.files.has(path)) changed.set(path, null);
  return { sha, snapshot: other, changed };
}

/** The files that differ between two in-memory snapshots, as a PR would list them. */
export function diff(base: Snapshot, head: Snapshot): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const [path, entry] of head.files) {
    const before = base.files.get(path);
    if (!before) out.push({ path, status: "added" });
    else if (before.text !== entry.text || before.kind !== entry.kind || before.target !== entry.target) {
      out.push({ path, status: "modified" });
    }
  }
  for (const path of base.files.keys()) if (!head.files.has(path)) out.push({ path, status: "removed" });
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

export interface PrSpec {
  author?: string;
  reviews?: Review[];
  commits?: PrCommit[];
  permissions?: Record<string, string>;
  teams?: Record<string, string[]>;
  files?: ChangedFile[];
  /** Other commits of the pull request by id (reviewed commits, bot commits and their parents). */
  revisions?: Record<string, Snapshot>;
}

/** A PR from `base` to `head`; by default one commit `c1` by the author, parent `base`. */
export function pullRequest(base: Snapshot, head: Snapshot, spec: PrSpec = {}): PrContext {
  const files = spec.files ?? diff(base, head);
  const author = spec.author ?? "carol";
  const commits = spec.commits ?? [{ sha: "c1", author, parents: ["base"], files: files.map((file) => file.path) }];
  const revisions = new Map<string, RevisionView>([["base", view("base", base, head)]]);
  for (const [sha, other] of Object.entries(spec.revisions ?? {})) revisions.set(sha, view(sha, other, head));
  return {
    author,
    headSha: commits.at(-1)?.sha ?? "c1",
    files,
    commits,
    reviews: spec.reviews ?? [],
    permissions: spec.permissions ?? {},
    teams: spec.teams ?? {},
    revisions,
  };
}

/** One commit of a simulated pull request: what it changes (`null` deletes), or all its files. */
export interface Step {
  readonly sha: string;
  /** GitHub login; `null`: GitHub names nobody. Default: the PR's author. */
  readonly author?: string | null;
  readonly gitName?: string;
  readonly gitEmail?: string;
  /** GitHub login of the committer (`null`: GitHub links nobody); default: unknown. */
  readonly committer?: string | null;
  readonly gitCommitter?: PrCommit["gitCommitter"];
  readonly coAuthors?: PrCommit["coAuthors"];
  readonly verified?: boolean;
  /** Default: the previous step (the first step's parent is `base`). */
  readonly parents?: string[];
  readonly changes?: Record<string, FileSpec | null>;
  /** All files of the commit, instead of `changes` on its first parent. */
  readonly files?: Record<string, FileSpec>;
}

/**
 * A pull request built commit by commit on `baseFiles`: every commit is readable as a revision, the
 * last one is the head. Returns the base and head snapshots and the PR context.
 */
export function prHistory(
  baseFiles: Record<string, FileSpec>,
  steps: readonly Step[],
  spec: Omit<PrSpec, "commits" | "revisions"> = {},
): { base: Snapshot; head: Snapshot; pr: PrContext } {
  const author = spec.author ?? "carol";
  const trees = new Map<string, Record<string, FileSpec>>([["base", baseFiles]]);
  const commits: PrCommit[] = [];
  let previous = "base";
  for (const step of steps) {
    const parents = step.parents ?? [previous];
    let files: Record<string, FileSpec>;
    if (step.files) files = step.files;
    else {
      files = { ...trees.get(parents[0]!)! };
      for (const [path, content] of Object.entries(step.changes ?? {})) {
        if (content === null) delete files[path];
        else files[path] = content;
      }
    }
    trees.set(step.sha, files);
    commits.push({
      sha: step.sha,
      author: step.author === undefined ? author : step.author,
      parents,
      files: Object.keys(step.changes ?? step.files ?? {}),
      ...(step.gitName !== undefined && { gitName: step.gitName }),
      ...(step.gitEmail !== undefined && { gitEmail: step.gitEmail }),
      ...(step.committer !== undefined && { committer: step.committer }),
      ...(step.gitCommitter !== undefined && { gitCommitter: step.gitCommitter }),
      ...(step.coAuthors !== undefined && { coAuthors: step.coAuthors }),
      ...(step.verified !== undefined && { verified: step.verified }),
    });
    previous = step.sha;
  }
  const base = snapshot(baseFiles, "base");
  const head = snapshot(trees.get(previous)!, previous);
  const revisions: Record<string, Snapshot> = {};
  for (const [sha, files] of trees) if (sha !== previous && sha !== "base") revisions[sha] = snapshot(files, sha);
  const pr = pullRequest(base, head, { ...spec, author, commits, revisions });
  return { base, head, pr };
}

/** A bot commit step: GitHub attributes it to taskgate[bot]. */
export function botStep(sha: string, changes: Record<string, FileSpec | null>, extra: Partial<Step> = {}): Step {
  return { sha, author: "taskgate[bot]", changes, ...extra };
}

export function approve(login: string, commit = "c1", at = "2026-11-01T10:00:00Z", state = "APPROVED"): Review {
  return { user: { login }, state, commit_id: commit, submitted_at: at, body: "" };
}

export function config(yaml?: string): Config {
  if (yaml === undefined) return defaultConfig("phases");
  const parsed = parseConfig(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.config;
}

/** A phases task folder: `.state` plus the given files. */
export function task(
  id: string,
  state: string,
  files: Record<string, FileSpec> = {},
  dir = "tasks",
): Record<string, FileSpec> {
  const out: Record<string, FileSpec> = { [`${dir}/${id}/.state`]: `${state}\n` };
  for (const [name, spec] of Object.entries(files)) out[`${dir}/${id}/${name}`] = spec;
  return out;
}

export const CONFIG_FILE = { ".github/taskgate.yml": "preset: phases\n" };
