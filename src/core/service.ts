/**
 * Use cases over the repository port: check a pull request, audit a revision, explain a task. These
 * read through `TaskRepository` (git locally, GitHub in the app) and hand snapshots to the pure core.
 */
import { CONFIG_PATH, locateIssues, parseConfig, readLimits, type Config, type ConfigIssue } from "./kernel/config.js";
import { audit, createModel, evaluate, neutralReport } from "./judge.js";
import type { Explanation, WorkflowModel } from "./kernel/model.js";
import { renderRootOf } from "./kernel/paths.js";
import { loadPresetModel } from "./presets.js";
import { staleness } from "./kernel/stale.js";
import { isBotCommit, latestDecisions } from "./kernel/approval.js";
import type { ReadLimits, SnapshotScope, TaskRepository } from "./kernel/port.js";
import type { PrCommit, PrContext, Report, Review, RevisionView, Snapshot } from "./kernel/types.js";

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

/**
 * A commit as GitHub lists it: the logins GitHub links to its author and committer, and its signature
 * verification. `co_authors` is taskgate's own addition (GitHub's REST commit names no co-author by
 * login; GraphQL's `Commit.authors` does): the logins of the people its `Co-authored-by:` trailers name.
 */
export interface PrInputCommit {
  readonly sha: string;
  readonly author?: { readonly login?: string | null } | null;
  readonly committer?: { readonly login?: string | null } | null;
  readonly co_authors?:
    | readonly { readonly login?: string | null; readonly email?: string | null; readonly name?: string | null }[]
    | null;
  readonly commit?: { readonly verification?: { readonly verified?: boolean | null } | null } | null;
}

/** What a caller knows about the pull request beyond git: GitHub's shapes, all optional. */
export interface PrInput {
  readonly author?: string;
  readonly reviews?: readonly Review[];
  readonly commits?: readonly PrInputCommit[];
  readonly permissions?: Readonly<Record<string, string>>;
  readonly teams?: Readonly<Record<string, readonly string[]>>;
  /** Why a login's permission or a team's members are unknown, when GitHub said (see `PrContext`). */
  readonly unresolved?: Readonly<Record<string, string>>;
}

/** Anything that reads snapshots: a git revision, or a work tree for rendering. */
export type SnapshotReader = Pick<TaskRepository, "readSnapshot">;

export interface Loaded {
  readonly config: Config;
  readonly model: WorkflowModel;
}

/** Reads and validates the config at a revision; `undefined` when the repository has none. */
export async function loadConfig(
  repo: SnapshotReader,
  rev: string,
  path: string = CONFIG_PATH,
): Promise<Loaded | undefined> {
  const snapshot = await repo.readSnapshot(rev, { paths: [path], prefixes: [] });
  const entry = snapshot.files.get(path);
  if (!entry) return undefined;
  if (entry.kind !== "file" || entry.text === undefined) {
    throw new ConfigError([{ path: "", message: `${path} is not a readable text file (${entry.kind})` }], path);
  }
  const parsed = parseConfig(entry.text);
  if (!parsed.ok) throw new ConfigError(parsed.issues, path);
  await loadPresetModel(parsed.config.preset);
  const created = createModel(parsed.config);
  if (!created.ok) throw new ConfigError(locateIssues(entry.text, created.issues), path);
  return { config: parsed.config, model: created.model };
}

export interface CheckRequest {
  readonly base: string;
  readonly head: string;
  readonly pr?: PrInput;
  /** Where the config lives (default `.github/taskgate.yml`). */
  readonly configPath?: string;
}

/**
 * Judges `head` as a pull request into `base`. The config comes from `base` (a PR never relaxes its
 * own gate); files are compared from the merge base, as GitHub does. Reads only what the PR touches.
 */
export async function checkPullRequest(repo: TaskRepository, request: CheckRequest): Promise<Report> {
  const [baseSha, headSha] = await Promise.all([repo.resolve(request.base), repo.resolve(request.head)]);
  const loaded = await loadConfig(repo, baseSha, request.configPath);
  if (!loaded) {
    return neutralReport(`taskgate is not configured on ${request.base} (no ${request.configPath ?? CONFIG_PATH})`);
  }
  const mergeBase = (await repo.mergeBase(baseSha, headSha)) ?? baseSha;
  const [files, gitCommits] = await Promise.all([
    repo.changedFiles(mergeBase, headSha),
    repo.commits(mergeBase, headSha),
  ]);
  // The config a pull request proposes is validated too, and it may name the other preset.
  if (files.some((file) => file.path === CONFIG_PATH)) {
    await Promise.all([loadPresetModel("phases"), loadPresetModel("board")]);
  }
  const pr = buildPrContext(request.pr ?? {}, files, gitCommits, headSha);
  const scope = loaded.model.prScope(files);
  const limits = readLimits(loaded.config);
  const [base, scopedHead] = await Promise.all([
    repo.readSnapshot(mergeBase, scope, limits),
    repo.readSnapshot(headSha, scope, limits),
  ]);
  let head = scopedHead;
  let viewScope = scope;
  const more = loaded.model.followUp?.(base, scopedHead);
  if (more && (more.paths.length > 0 || more.prefixes.length > 0)) {
    const extra = await repo.readSnapshot(headSha, more, limits);
    head = { rev: scopedHead.rev, files: new Map([...scopedHead.files, ...extra.files]) };
    viewScope = { paths: [...scope.paths, ...more.paths], prefixes: [...scope.prefixes, ...more.prefixes] };
  }
  const revisions = await readRevisions(repo, loaded.config, pr, viewScope, limits);
  return evaluate(loaded.config, base, head, { ...pr, revisions });
}

/** At most this many other commits are read per check; reviews of further commits never count. */
export const MAX_REVISIONS = 40;

/** Associations of reviewers who may hold a permission on the repository. */
const INSIDERS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/**
 * The commits the approval rules look into besides the head, most needed first, at most
 * `MAX_REVISIONS`: the newest bot commits and their parents (without them no record stands), then
 * the commits of the latest decision of each reviewer GitHub names an owner, member or collaborator
 * (they can open gates), the remaining bot commits, the latest decisions of everyone else, and the
 * commits of earlier reviews, newest first (they back recorded decisions). So reviews anyone can post
 * on a public repository never push a collaborator's review out of the window.
 */
export function wantedRevisions(config: Config, pr: PrContext): string[] {
  const wanted = new Set<string>();
  const add = (sha: string | null | undefined) => {
    if (sha && sha !== pr.headSha && wanted.size < MAX_REVISIONS) wanted.add(sha);
  };
  const bots = pr.commits.filter((commit) => isBotCommit(commit, config)).reverse();
  const addBots = (list: readonly PrCommit[]) => {
    for (const commit of list) {
      add(commit.sha);
      for (const parent of commit.parents ?? []) add(parent);
    }
  };
  const decisive = (review: Review) => review.state === "APPROVED" || review.state === "CHANGES_REQUESTED";
  const insider = (review: Review) => INSIDERS.has(String(review.author_association ?? "").toUpperCase());
  const unknown = (review: Review) => review.author_association === undefined || review.author_association === null;
  const latest = latestDecisions(pr.reviews).filter(decisive);
  addBots(bots.slice(0, MAX_REVISIONS / 4));
  for (const review of latest) if (insider(review) || unknown(review)) add(review.commit_id);
  addBots(bots.slice(MAX_REVISIONS / 4));
  for (const review of latest) add(review.commit_id);
  for (const review of [...pr.reviews].reverse())
    if (decisive(review) && (insider(review) || unknown(review))) add(review.commit_id);
  for (const review of [...pr.reviews].reverse()) if (decisive(review)) add(review.commit_id);
  return [...wanted];
}

/** Reads the task store (same scope as the head) at each wanted commit, with its differences from the head. */
async function readRevisions(
  repo: TaskRepository,
  config: Config,
  pr: PrContext,
  scope: SnapshotScope,
  limits: ReadLimits,
): Promise<Map<string, RevisionView>> {
  const views = new Map<string, RevisionView>();
  const head = pr.headSha!;
  await Promise.all(
    wantedRevisions(config, pr).map(async (rev) => {
      // A commit this repository does not have (a force-pushed review, a typo) gets no view: a
      // review of it never counts.
      const sha = await repo.resolve(rev).catch(() => undefined);
      if (!sha) return;
      const [changed, snapshot] = await Promise.all([
        repo.differences(sha, head),
        repo.readSnapshot(sha, scope, limits),
      ]);
      views.set(rev, { sha, snapshot, changed });
    }),
  );
  return views;
}

/** Audits every task at a revision. */
export async function auditRevision(repo: TaskRepository, ref: string, configPath?: string): Promise<Report> {
  const sha = await repo.resolve(ref);
  const loaded = await loadConfig(repo, sha, configPath);
  if (!loaded) return neutralReport(`taskgate is not configured at ${ref} (no ${configPath ?? CONFIG_PATH})`);
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
 * commit logins and verification, permissions, teams). A commit GitHub does not name stays a human
 * of unknown identity (`author: null`): its git name is kept to bar a reviewer of that name, but it
 * never makes the commit the bot's. Likewise its committer (`committer: null` unless GitHub links
 * one) and its co-authors: git's `Co-authored-by:` trailers, each with the login `co_authors` gives
 * for its e-mail (any case) or name, else none. A login is never guessed.
 */
export function buildPrContext(
  input: PrInput,
  files: PrContext["files"],
  gitCommits: readonly PrCommit[],
  headSha: string,
): PrContext {
  const known = input.commits ?? [];
  const find = (sha: string) =>
    known.find((commit) => commit.sha === sha) ??
    known.find(
      (commit) => commit.sha.length >= 7 && /^[0-9a-f]+$/i.test(commit.sha) && sha.startsWith(commit.sha.toLowerCase()),
    );
  const commits = gitCommits.map((commit): PrCommit => {
    const github = find(commit.sha);
    const verified = github?.commit?.verification?.verified;
    const linked = github?.co_authors ?? [];
    const coAuthors = commit.coAuthors?.map((person) => {
      const match = linked.find(
        (other) =>
          (!!other.email && !!person.email && other.email.toLowerCase() === person.email.toLowerCase()) ||
          (!!other.name && other.name === person.name),
      );
      return { ...person, login: match?.login ?? person.login };
    });
    return {
      ...commit,
      author: github?.author?.login ?? null,
      // Unknown unless GitHub's answer names the committer (or says it links nobody).
      ...(github && github.committer !== undefined && { committer: github.committer?.login ?? null }),
      ...(coAuthors && { coAuthors }),
      ...(typeof verified === "boolean" && { verified }),
    };
  });
  const author = input.author ?? commits[0]?.author ?? commits[0]?.gitName ?? "unknown";
  return {
    author,
    headSha,
    files,
    commits,
    reviews: input.reviews ?? [],
    permissions: input.permissions ?? {},
    teams: input.teams ?? {},
    ...(input.unresolved && { unresolved: input.unresolved }),
  };
}
