/**
 * Use cases over the repository port: check a pull request, audit a revision, explain a task. These
 * read through `TaskRepository` (git locally, GitHub in the app) and hand snapshots to the pure core.
 */
import {
  BOARD_DEFAULTS,
  CONFIG_PATH,
  DEFAULT_RENDER_PATH,
  locateIssues,
  parseConfig,
  readLimits,
  type Config,
  type ConfigIssue,
} from "./kernel/config.js";
import { PHASES_PRESET } from "./phases/preset.js";
import { audit, createModel, evaluate, neutralReport } from "./judge.js";
import type { Explanation, WorkflowModel } from "./kernel/model.js";
import { renderRootOf } from "./kernel/paths.js";
import { loadPresetModel } from "./presets.js";
import { staleness } from "./kernel/stale.js";
import { isBotCommit, latestDecisions, principalMatcher } from "./kernel/approval.js";
import {
  RefNotFoundError,
  type People,
  type ReadLimits,
  type SnapshotScope,
  type TaskRepository,
} from "./kernel/port.js";
import type { FileEntry, PrCommit, PrContext, Report, Review, RevisionView, Snapshot } from "./kernel/types.js";

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
export type SnapshotReader = Pick<TaskRepository, "readSnapshot" | "plan">;

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
  return entry && configOf(entry, path);
}

/** Validates a config file and builds its model, loading the preset it names; `ConfigError` when unusable. */
export async function configOf(entry: FileEntry, path: string = CONFIG_PATH): Promise<Loaded> {
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
  /**
   * The config file at `base` when the caller holds it already (GitHub sends it with the pull
   * request's facts; `null`: there is none); read from `base` otherwise.
   */
  readonly configFile?: FileEntry | null;
  /** How messages name the base (default: `base` as given). */
  readonly baseName?: string;
}

/** A pull request as judged: the report, and what it was judged with when the repository is configured. */
export interface Judgement {
  readonly report: Report;
  readonly loaded?: Loaded;
  /** The head as read for the rules (the touched tasks, and what the follow-up named). */
  readonly head?: Snapshot;
}

/**
 * Judges `head` as a pull request into `base`. The config comes from `base` (a PR never relaxes its
 * own gate); files are compared from the merge base, as GitHub does. Reads only what the PR touches.
 */
export async function checkPullRequest(repo: TaskRepository, request: CheckRequest): Promise<Report> {
  return (await judgePullRequest(repo, request)).report;
}

/**
 * The one pipeline of a pull request's check, for every reader (git, GitHub, memory): the config
 * at the base, the changed files and commits from the merge base, the scope the model names, the
 * snapshots of the merge base and the head, the follow-up read, the revisions the approval rules
 * look into, and `evaluate`. Reads that do not depend on each other start in the same tick, so a
 * reader that batches (GitHub) answers them together: the commits' trees with the changed files,
 * and the revisions' task files and the people with the snapshots.
 */
export async function judgePullRequest(repo: TaskRepository, request: CheckRequest): Promise<Judgement> {
  const [baseSha, headSha] = await Promise.all([repo.resolve(request.base), repo.resolve(request.head)]);
  const loaded =
    request.configFile === undefined
      ? await loadConfig(repo, baseSha, request.configPath)
      : request.configFile && (await configOf(request.configFile, request.configPath));
  if (!loaded) {
    const name = request.baseName ?? request.base;
    return { report: neutralReport(`taskgate is not configured on ${name} (no ${request.configPath ?? CONFIG_PATH})`) };
  }
  const { config, model } = loaded;
  const limits = readLimits(config);
  const mergeBase = (await repo.mergeBase(baseSha, headSha)) ?? baseSha;
  const changes = await readChanges(repo, loaded, mergeBase, headSha, request.pr ?? {});
  // The config a pull request proposes is validated too, and it may name the other preset.
  if (changes.pr.files.some((file) => file.path === CONFIG_PATH)) {
    await Promise.all([loadPresetModel("phases"), loadPresetModel("board")]);
  }
  const scope = model.prScope(changes.pr.files);
  const [base, scopedHead, views, people] = await Promise.all([
    repo.readSnapshot(mergeBase, scope, limits),
    repo.readSnapshot(headSha, scope, limits),
    readViews(repo, changes.revisions, scope, limits),
    peopleOf(repo, config, changes.pr, request.pr),
  ]);
  const more = model.followUp?.(base, scopedHead);
  const { head, revisions } = await followUp(repo, { head: scopedHead, views, more, limits });
  const report = evaluate(config, base, head, { ...withPeople(changes.pr, people), revisions });
  return { report, loaded, head };
}

/** A promise awaited later: its failure is not reported as unhandled meanwhile. */
function held<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** A revision the approval rules look into, its reads started. */
interface StartedRevision {
  readonly rev: string;
  readonly sha: Promise<string | undefined>;
  readonly changed: Promise<ReadonlyMap<string, string | null> | undefined>;
}

/**
 * The changed files, the commits and the pull request's context, with the revisions' comparisons
 * with the head started: a reader that lists trees (GitHub) lists every commit's root, the folders
 * above the files the comparison names and those of the rules' own paths in one request.
 */
async function readChanges(
  repo: TaskRepository,
  { config, model }: Loaded,
  mergeBase: string,
  headSha: string,
  input: PrInput,
): Promise<{ pr: PrContext; revisions: StartedRevision[] }> {
  const fixed = model.prScope([]);
  // The status matrix a record commit re-renders, when the config renders in pull requests.
  const matrix = config.render.commit === "pr" ? [`${renderRootOf(config)}/matrix.md`] : [];
  repo.plan?.([mergeBase, headSha], { paths: [...fixed.paths, ...matrix], prefixes: fixed.prefixes });
  const listing = held(repo.changedFiles(mergeBase, headSha));
  const context = buildPrContext(input, [], await repo.commits(mergeBase, headSha), headSha);
  const revisions = wantedRevisions(config, context).map((rev): StartedRevision => {
    // A commit this repository does not have (a force-pushed review, a typo) gets no view: a
    // review of it never counts.
    const sha = repo.resolve(rev).catch(() => undefined);
    const changed = held(
      sha.then((found) => (found === undefined ? undefined : repo.differences(found, headSha).catch(missing))),
    );
    return { rev, sha, changed };
  });
  return { pr: { ...context, files: await listing }, revisions };
}

/** `undefined` for a commit the reader does not have; any other failure stands. */
function missing(error: unknown): undefined {
  if (error instanceof RefNotFoundError) return undefined;
  throw error;
}

/** Reads the task store (same scope as the head) at each revision, with its differences from the head. */
async function readViews(
  repo: TaskRepository,
  revisions: readonly StartedRevision[],
  scope: SnapshotScope,
  limits: ReadLimits,
): Promise<Map<string, RevisionView>> {
  const views = new Map<string, RevisionView>();
  await Promise.all(
    revisions.map(async ({ rev, sha: resolved, changed: compared }) => {
      const sha = await resolved;
      if (!sha) return;
      const [changed, snapshot] = await Promise.all([compared, repo.readSnapshot(sha, scope, limits).catch(missing)]);
      if (changed && snapshot) views.set(rev, { sha, snapshot, changed });
    }),
  );
  return views;
}

/**
 * What the model's follow-up names beyond the scope (a board's evidence and handoffs), read at the
 * head and at every revision together, and merged into their snapshots.
 */
async function followUp(
  repo: TaskRepository,
  read: { head: Snapshot; views: Map<string, RevisionView>; more: SnapshotScope | undefined; limits: ReadLimits },
): Promise<{ head: Snapshot; revisions: Map<string, RevisionView> }> {
  const { head, views, more, limits } = read;
  if (!more || (more.paths.length === 0 && more.prefixes.length === 0)) return { head, revisions: views };
  const merge = (snapshot: Snapshot, extra: Snapshot): Snapshot => ({
    rev: snapshot.rev,
    files: new Map([...snapshot.files, ...extra.files]),
  });
  const [extra, ...others] = await Promise.all([
    repo.readSnapshot(head.rev, more, limits),
    ...[...views.values()].map((view) => repo.readSnapshot(view.sha, more, limits)),
  ]);
  const revisions = new Map<string, RevisionView>();
  [...views].forEach(([rev, view], index) =>
    revisions.set(rev, { ...view, snapshot: merge(view.snapshot, others[index]!) }),
  );
  return { head: merge(head, extra!), revisions };
}

/**
 * Who the people are, from the reader when it knows (GitHub) and the caller did not say: the
 * permissions of decisive reviewers, the members of the teams a gate needs, and the logins of
 * co-authors. `undefined`: the caller's own facts stand (`PR.json`).
 */
async function peopleOf(
  repo: TaskRepository,
  config: Config,
  pr: PrContext,
  input: PrInput | undefined,
): Promise<People | undefined> {
  if (!repo.people || input?.permissions !== undefined || input?.teams !== undefined) return undefined;
  const { logins, teams } = peopleToLookUp(config, pr);
  const commits = pr.commits.filter((commit) => (commit.coAuthors?.length ?? 0) > 0).map((commit) => commit.sha);
  return repo.people({ logins, teams, commits });
}

/** The pull request's context with what the reader said of its people. */
function withPeople(pr: PrContext, people: People | undefined): PrContext {
  if (!people) return pr;
  return {
    ...pr,
    commits: linkCoAuthors(pr.commits, people.authors),
    permissions: people.permissions,
    teams: people.teams,
    unresolved: people.unresolved,
  };
}

/**
 * Whose repository permission and which teams an evaluation needs: the reviewers of decisive
 * reviews (their gates need both), and the teams the config names where the author's membership
 * decides the maintainers' exemption.
 */
export function peopleToLookUp(config: Config, pr: PrContext): { logins: string[]; teams: string[] } {
  const logins = new Set<string>();
  for (const review of pr.reviews) {
    if (review.user?.type === "Deleted") continue; // nobody to ask about
    if (review.user?.login && (review.state === "APPROVED" || review.state === "CHANGES_REQUESTED")) {
      logins.add(review.user.login);
    }
  }
  const principals = [
    ...config.approvals.approvers,
    ...Object.values(config.approvals.gates).flatMap((gate) => gate.approvers ?? []),
    ...Object.values(config.roles).flat(),
  ];
  const teams = new Set<string>();
  if (logins.size > 0) for (const principal of principals) if (principal.startsWith("@")) teams.add(principal);
  const maintainerTeams = config.maintainers.filter((principal) => principal.startsWith("@"));
  // The maintainers' teams matter only when the author is not a maintainer by login already.
  if (maintainerTeams.length > 0 && !principalMatcher(config.maintainers, config, { teams: {} })(pr.author)) {
    for (const team of maintainerTeams) teams.add(team);
  }
  return { logins: [...logins], teams: [...teams].filter((team) => /^@[^/\s]+\/[^/\s]+$/.test(team)) };
}

/**
 * Links the co-authors of commits to the logins the reader names for them (the git author first,
 * then each trailer), by e-mail; a co-author linked to nobody keeps `null`.
 */
export function linkCoAuthors(
  commits: readonly PrCommit[],
  authors: ReadonlyMap<string, readonly { readonly login: string | null; readonly email: string | null }[]>,
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

/**
 * What an audit of either preset reads where the config's defaults put things: the config, each
 * preset's task store and the rendered files. Planned with the config's read, so a reader can list
 * a revision once for both reads; a config that moves anything is read as it says (the guess then
 * costs its listing alone, never a blob).
 */
export function likelyAuditScope(configPath: string = CONFIG_PATH): SnapshotScope {
  const board = BOARD_DEFAULTS;
  return {
    paths: [...new Set([configPath, CONFIG_PATH, board.definitions, board.ledger])],
    prefixes: [
      PHASES_PRESET.tasksDir,
      board.evidence_dir,
      board.handoffs_dir,
      board.issues_dir,
      DEFAULT_RENDER_PATH,
    ].map((folder) => `${folder}/`),
  };
}

/**
 * The config at `rev` and the snapshot its audit reads, planned together (`likelyAuditScope`), or
 * `undefined` when the revision has no config. What `audit`, `render` and `explain` read.
 */
async function readAudited(
  reader: SnapshotReader,
  rev: string,
  configPath?: string,
): Promise<{ loaded: Loaded; snapshot: Snapshot } | undefined> {
  reader.plan?.([rev], likelyAuditScope(configPath));
  const loaded = await loadConfig(reader, rev, configPath);
  if (!loaded) return undefined;
  return { loaded, snapshot: await reader.readSnapshot(rev, loaded.model.auditScope(), readLimits(loaded.config)) };
}

/** Audits every task at a revision. */
export async function auditRevision(repo: TaskRepository, ref: string, configPath?: string): Promise<Report> {
  const read = await readAudited(repo, await repo.resolve(ref), configPath);
  if (!read) return neutralReport(`taskgate is not configured at ${ref} (no ${configPath ?? CONFIG_PATH})`);
  return audit(read.loaded.config, { ...read.snapshot, rev: ref });
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
  const read = await readAudited(reader, rev);
  if (!read) return undefined;
  const { loaded, snapshot } = read;
  const root = renderRootOf(loaded.config);
  const files = loaded.model.render(snapshot);
  return { root, files, ...staleness(files, snapshot, root) };
}

export type ExplainResult =
  | { found: true; explanation: Explanation; config: Config }
  | { found: false; known: string[]; configured: boolean };

export async function explainTask(repo: TaskRepository, ref: string, task: string): Promise<ExplainResult> {
  const read = await readAudited(repo, await repo.resolve(ref));
  if (!read) return { found: false, known: [], configured: false };
  const { loaded, snapshot } = read;
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
      // A commit the caller does not list keeps what the reader says (git names no login).
      author: github ? (github.author?.login ?? null) : (commit.author ?? null),
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
