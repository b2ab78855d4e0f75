/**
 * Judging a pull request on GitHub in a few requests, whatever the size of the repository: the pull
 * request with its reviews and the base branch's config (one GraphQL request), the comparison (merge
 * base, commits, changed files), the folders that differ between the merge base, the head and each
 * commit the approval rules look into (one GraphQL request for the roots and the folders above the
 * files the comparison lists, then one per level where more differ, for all commits at once), and one
 * GraphQL batch of the task files, permissions and team members. Lists GitHub caps are never judged
 * as if complete, nor a folder GitHub cuts short.
 */
import {
  buildReport,
  type Config,
  CONFIG_PATH,
  configReport,
  createModel,
  evaluate,
  neutralReport,
  parseConfig,
  principalMatcher,
  readLimits,
  renderRootOf,
  violation,
  wantedRevisions,
} from "../core/index.js";
import type {
  PrContext,
  Report,
  RevisionView,
  Snapshot,
  SnapshotScope,
  Violation,
  WorkflowModel,
} from "../core/index.js";
import { MAX_COMMITS, type BlobData, type GitHubApi, type PullRequestFacts, type Tree } from "./api.js";
import { GitHubRepository, MissingCommitError, TruncatedTreeError, linkCoAuthors, prCommitsOf } from "./repository.js";
import { blobsToRead, changedFiles, differences, snapshotOf } from "./trees.js";

export interface Evaluation {
  readonly facts: PullRequestFacts;
  /** The commit that was judged. */
  readonly headSha: string;
  readonly report: Report;
  /** Present when the repository is configured and its config is valid. */
  readonly config?: Config;
  readonly model?: WorkflowModel;
  /** The head as read for the rules (the touched tasks), and its tree as far as it was read. */
  readonly head?: Snapshot;
  readonly headTree?: Tree;
  /** The reads of this evaluation, to read more of the same trees. */
  readonly repo?: GitHubRepository;
  /** Something GitHub did not show in full: the records of this evaluation must not be committed. */
  readonly incomplete: boolean;
}

/** Evaluates pull request `number` at its head (or at `headSha`, a commit the bot just made). */
export async function evaluatePullRequest(
  api: GitHubApi,
  number: number,
  options: { headSha?: string; configPath?: string } = {},
): Promise<Evaluation | undefined> {
  const facts = await api.pullRequest(number, options.configPath);
  if (!facts) return undefined;
  const headSha = options.headSha ?? facts.headRefOid;
  const loaded = loadConfig(facts);
  if (!loaded.ok) return { facts, headSha, report: loaded.report, incomplete: false };
  try {
    return await judge(api, facts, headSha, loaded.config, loaded.model);
  } catch (error) {
    if (!(error instanceof TruncatedTreeError)) throw error;
    const report = buildReport(
      { violations: cutShort([error]), pending: [], transitions: [], records: [] },
      `pull request by ${facts.author}`,
    );
    return { facts, headSha, report, config: loaded.config, model: loaded.model, incomplete: true };
  }
}

/** The evaluation of a configured pull request; `TruncatedTreeError` when GitHub cuts a folder it needs. */
async function judge(
  api: GitHubApi,
  facts: PullRequestFacts,
  headSha: string,
  config: Config,
  model: WorkflowModel,
): Promise<Evaluation> {
  const repo = new GitHubRepository(api);
  const comparison = await repo.compare(facts.baseTip, headSha);
  let commits = prCommitsOf(comparison);
  const context = { author: facts.author, headSha, commits, reviews: facts.reviews, permissions: {}, teams: {} };
  const { baseTree, headTree, viewTrees } = await readTrees(repo, {
    base: comparison.mergeBase,
    head: headSha,
    others: wantedRevisions(config, { ...context, files: [] }),
    scope: model.prScope([]),
    // The files that changed, as far as the comparison lists them, and the status matrix a record
    // commit re-renders when it exists (see `rendered` in flow.ts): their folders come with the roots.
    changed: [...comparison.files, ...(config.render.commit === "pr" ? [`${renderRootOf(config)}/matrix.md`] : [])],
  });
  const files = changedFiles(baseTree, headTree);
  const pr: PrContext = { ...context, files };
  const scope = model.prScope(files);
  const limits = readLimits(config);
  await repo.cover([baseTree, headTree, ...viewTrees.values()].map((tree) => ({ tree, scope })));
  const people = peopleToLookUp(config, pr);
  const first = await api.batch({
    blobs: [baseTree, headTree, ...viewTrees.values()].flatMap((tree) => blobsToRead(tree, scope, limits)),
    people: people.logins,
    teams: people.teams,
    // Who GitHub links to each `Co-authored-by:` trailer: asked only for commits that have one.
    commits: commits.filter((commit) => (commit.coAuthors?.length ?? 0) > 0).map((commit) => commit.sha),
  });
  commits = linkCoAuthors(commits, first.authors);
  for (const [oid, blob] of first.blobs) repo.blobs.set(oid, blob);
  const read = repo.blobs;
  let base = snapshotOf(baseTree, scope, limits, read);
  let head = snapshotOf(headTree, scope, limits, read);
  let viewScope: SnapshotScope = scope;
  const more = model.followUp?.(base, head);
  if (more && (more.paths.length > 0 || more.prefixes.length > 0)) {
    await repo.cover([headTree, ...viewTrees.values()].map((tree) => ({ tree, scope: more })));
    await repo.prefetch([headTree, ...viewTrees.values()].flatMap((tree) => blobsToRead(tree, more, limits)));
    viewScope = { paths: [...scope.paths, ...more.paths], prefixes: [...scope.prefixes, ...more.prefixes] };
    head = snapshotOf(headTree, viewScope, limits, read);
    base = snapshotOf(baseTree, scope, limits, read);
  }
  const revisions = new Map<string, RevisionView>();
  for (const [sha, tree] of viewTrees) {
    revisions.set(sha, {
      sha,
      snapshot: snapshotOf(tree, viewScope, limits, read),
      changed: differences(tree, headTree),
    });
  }
  const judged = evaluate(config, base, head, {
    ...pr,
    commits,
    permissions: first.permissions,
    teams: first.teams,
    unresolved: first.unresolved,
    revisions,
  });
  const blind = unseen(comparison.totalCommits, comparison.commits.length);
  const report = blind.length === 0 ? judged : failClosed(judged, blind);
  return { facts, headSha, report, config, model, head, headTree, repo, incomplete: blind.length > 0 };
}

type Loaded = { ok: true; config: Config; model: WorkflowModel } | { ok: false; report: Report };

/** The config at the tip of the base branch; a pull request never judges itself by its own. */
function loadConfig(facts: PullRequestFacts): Loaded {
  const blob = facts.config;
  if (!blob)
    return {
      ok: false,
      report: neutralReport(`taskgate is not configured on ${facts.baseRefName} (no ${CONFIG_PATH})`),
    };
  if (blob.text === null || blob.isBinary || blob.isTruncated) {
    return { ok: false, report: configReport([{ path: "", message: `${CONFIG_PATH} is not a readable text file` }]) };
  }
  const parsed = parseConfig(blob.text);
  if (!parsed.ok) return { ok: false, report: configReport(parsed.issues) };
  const created = createModel(parsed.config);
  if (!created.ok) return { ok: false, report: configReport(created.issues) };
  return { ok: true, config: parsed.config, model: created.model };
}

/**
 * The trees of the merge base, the head and the commits the approval rules look into (a commit
 * GitHub no longer has is left out), with every folder that differs from the head's listed, and
 * what `scope` names in the merge base and the head. The folders above the files the comparison
 * lists come with the roots, so a walk down to them costs nothing more: for a pull request of at
 * most 300 files, one request in all (more only for commits that differ from the head elsewhere).
 */
async function readTrees(
  repo: GitHubRepository,
  read: { base: string; head: string; others: readonly string[]; scope: SnapshotScope; changed: readonly string[] },
): Promise<{ baseTree: Tree; headTree: Tree; viewTrees: Map<string, Tree> }> {
  const { base, head, others, scope } = read;
  const trees = await repo.trees([base, head, ...others], {
    at: [base, head],
    paths: [...read.changed, ...scope.paths],
  });
  const [baseTree, headTree] = [trees.get(base), trees.get(head)];
  if (!baseTree) throw new MissingCommitError(base);
  if (!headTree) throw new MissingCommitError(head);
  const viewTrees = new Map(others.flatMap((sha) => (trees.has(sha) ? [[sha, trees.get(sha)!] as const] : [])));
  await repo.cover([
    { compare: [baseTree, headTree] },
    ...[...viewTrees.values()].map((tree) => ({ compare: [tree, headTree] as const })),
    { tree: baseTree, scope },
    { tree: headTree, scope },
  ]);
  return { baseTree, headTree, viewTrees };
}

/**
 * Whose repository permission and which teams an evaluation needs: the reviewers of decisive
 * reviews (their gates need both), and the teams the config names where the author's membership
 * decides the maintainers' exemption.
 */
function peopleToLookUp(config: Config, pr: PrContext): { logins: string[]; teams: string[] } {
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

/** What GitHub did not show in full: commits beyond its cap. */
function unseen(totalCommits: number, listed: number): Violation[] {
  const out: Violation[] = [];
  if (totalCommits > listed) {
    out.push(
      violation("state-invalid", {
        message: `this pull request has ${totalCommits} commits and GitHub lists only ${Math.min(listed, MAX_COMMITS)}, so taskgate cannot see who wrote all of them`,
        hint: "Split the pull request, or squash its history, so that it has at most 250 commits.",
      }),
    );
  }
  return out;
}

/** Folders GitHub cut short even when asked for alone: taskgate cannot see every file the rules need. */
function cutShort(errors: readonly TruncatedTreeError[]): Violation[] {
  return errors.map((error) =>
    violation("state-invalid", {
      message: `${error.message}, so taskgate cannot see every file the rules need`,
      hint: error.hint,
    }),
  );
}

/** A report that fails, keeps its findings, and records nothing. */
function failClosed(report: Report, problems: readonly Violation[]): Report {
  return buildReport(
    {
      violations: [...report.violations, ...problems],
      pending: [...report.pending],
      transitions: [...report.transitions],
      records: [],
    },
    report.summary.replace(/^\w+: /, "").replace(/;.*$/, ""),
  );
}

export type { BlobData };
