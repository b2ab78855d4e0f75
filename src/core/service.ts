/**
 * Use cases over the repository port: check a pull request, audit a revision, explain a task. These
 * read through `TaskRepository` (git locally, GitHub in the app) and hand snapshots to the pure core.
 */
import { CONFIG_PATH, locateIssues, parseConfig, readLimits, type Config, type ConfigIssue } from "./config.js";
import { audit, createModel, evaluate, neutralReport } from "./evaluate.js";
import type { Explanation, WorkflowModel } from "./model.js";
import { renderRootOf } from "./paths.js";
import { staleness } from "./render/stale.js";
import type { TaskRepository } from "./port.js";
import type { PrCommit, PrContext, Report, Review, Snapshot } from "./types.js";

/** A configuration that cannot be used: the caller reports it (CLI exit code 2). */
export class ConfigError extends Error {
  constructor(
    readonly issues: readonly ConfigIssue[],
    readonly path: string = CONFIG_PATH,
  ) {
    super(
      `${path} is invalid: ${issues.map((issue) => `${issue.path ? `${issue.path}: ` : ""}${issue.message}`).join("; ")}`,
    );
    this.name = "ConfigError";
  }
}

/** What a caller knows about the pull request beyond git: GitHub's shapes, all optional. */
export interface PrInput {
  readonly author?: string;
  readonly reviews?: readonly Review[];
  readonly commits?: readonly { readonly sha: string; readonly author?: { readonly login?: string | null } | null }[];
  readonly permissions?: Readonly<Record<string, string>>;
  readonly teams?: Readonly<Record<string, readonly string[]>>;
}

/** Anything that reads snapshots: a git revision, or a work tree for rendering. */
export type SnapshotReader = Pick<TaskRepository, "readSnapshot">;

export interface Loaded {
  readonly config: Config;
  readonly model: WorkflowModel;
}

/** Reads and validates the config at a revision; `undefined` when the repository has none. */
export async function loadConfig(repo: SnapshotReader, rev: string): Promise<Loaded | undefined> {
  const snapshot = await repo.readSnapshot(rev, { paths: [CONFIG_PATH], prefixes: [] });
  const entry = snapshot.files.get(CONFIG_PATH);
  if (!entry) return undefined;
  if (entry.kind !== "file" || entry.text === undefined) {
    throw new ConfigError([{ path: "", message: `${CONFIG_PATH} is not a readable text file (${entry.kind})` }]);
  }
  const parsed = parseConfig(entry.text);
  if (!parsed.ok) throw new ConfigError(parsed.issues);
  const created = createModel(parsed.config);
  if (!created.ok) throw new ConfigError(locateIssues(entry.text, created.issues));
  return { config: parsed.config, model: created.model };
}

export interface CheckRequest {
  readonly base: string;
  readonly head: string;
  readonly pr?: PrInput;
}

/**
 * Judges `head` as a pull request into `base`. The config comes from `base` (a PR never relaxes its
 * own gate); files are compared from the merge base, as GitHub does. Reads only what the PR touches.
 */
export async function checkPullRequest(repo: TaskRepository, request: CheckRequest): Promise<Report> {
  const baseSha = await repo.resolve(request.base);
  const headSha = await repo.resolve(request.head);
  const loaded = await loadConfig(repo, baseSha);
  if (!loaded) return neutralReport(`taskgate is not configured on ${request.base} (no ${CONFIG_PATH})`);
  const mergeBase = (await repo.mergeBase(baseSha, headSha)) ?? baseSha;
  const [files, gitCommits] = await Promise.all([
    repo.changedFiles(mergeBase, headSha),
    repo.commits(mergeBase, headSha),
  ]);
  const pr = buildPrContext(request.pr ?? {}, files, gitCommits, headSha);
  const scope = loaded.model.prScope(files);
  const limits = readLimits(loaded.config);
  const [base, scopedHead] = await Promise.all([
    repo.readSnapshot(mergeBase, scope, limits),
    repo.readSnapshot(headSha, scope, limits),
  ]);
  let head = scopedHead;
  const more = loaded.model.followUp?.(base, scopedHead);
  if (more && (more.paths.length > 0 || more.prefixes.length > 0)) {
    const extra = await repo.readSnapshot(headSha, more, limits);
    head = { rev: scopedHead.rev, files: new Map([...scopedHead.files, ...extra.files]) };
  }
  return evaluate(loaded.config, base, head, pr);
}

/** Audits every task at a revision. */
export async function auditRevision(repo: TaskRepository, ref: string): Promise<Report> {
  const sha = await repo.resolve(ref);
  const loaded = await loadConfig(repo, sha);
  if (!loaded) return neutralReport(`taskgate is not configured at ${ref} (no ${CONFIG_PATH})`);
  const snapshot = await repo.readSnapshot(sha, loaded.model.auditScope(), readLimits(loaded.config));
  return audit(loaded.config, { ...snapshot, rev: ref });
}

export interface RenderResult {
  readonly root: string;
  readonly files: ReadonlyMap<string, string>;
  /** Rendered files that differ from what is there, or are missing. */
  readonly stale: readonly string[];
  /** Cards of tasks that no longer exist. */
  readonly extra: readonly string[];
}

/** Renders the status files of a revision (or work tree) and compares them with what it holds. */
export async function renderStatus(reader: SnapshotReader, rev: string): Promise<RenderResult | undefined> {
  const loaded = await loadConfig(reader, rev);
  if (!loaded) return undefined;
  const snapshot = await reader.readSnapshot(rev, loaded.model.auditScope(), readLimits(loaded.config));
  const root = renderRootOf(loaded.config);
  const files = loaded.model.render(snapshot);
  return { root, files, ...staleness(files, snapshot, root) };
}

export type ExplainResult =
  | { found: true; explanation: Explanation; config: Config }
  | { found: false; known: string[]; configured: boolean };

export async function explainTask(repo: TaskRepository, ref: string, task: string): Promise<ExplainResult> {
  const sha = await repo.resolve(ref);
  const loaded = await loadConfig(repo, sha);
  if (!loaded) return { found: false, known: [], configured: false };
  const snapshot: Snapshot = await repo.readSnapshot(sha, loaded.model.auditScope(), readLimits(loaded.config));
  const explanation = loaded.model.explain(snapshot, task);
  if (!explanation) return { found: false, known: loaded.model.taskIds(snapshot), configured: true };
  return { found: true, explanation, config: loaded.config };
}

/**
 * Merges what git knows (files, commits) with what the caller knows from GitHub (author, reviews,
 * commit logins, permissions, teams). A commit GitHub does not know is attributed by its git author.
 */
export function buildPrContext(
  input: PrInput,
  files: PrContext["files"],
  gitCommits: readonly PrCommit[],
  headSha: string,
): PrContext {
  const logins = new Map((input.commits ?? []).map((commit) => [commit.sha, commit.author?.login ?? null]));
  const commits = gitCommits.map((commit) => ({ ...commit, author: logins.get(commit.sha) ?? commit.author }));
  const author = input.author ?? commits[0]?.author ?? "unknown";
  return {
    author,
    headSha,
    files,
    commits,
    reviews: input.reviews ?? [],
    permissions: input.permissions ?? {},
    teams: input.teams ?? {},
  };
}
