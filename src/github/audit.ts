/**
 * The scheduled audit of the default branch: every rule over every task (the core's `audit`), plus
 * `unauthorized-change`, recomputed on every run from facts nobody with write access can forge. No
 * state is kept anywhere a person could edit it (an issue body, a status, a branch name).
 *
 * The audit walks the last commits that landed on the branch (its first-parent history, at most
 * 100). Each one that changed task files must have arrived one of two ways:
 * - through a merged pull request into the branch, whose result taskgate vouches for: the App's own
 *   check run `taskgate: <branch>` passed on the pull request's last commit (GitHub files a check
 *   run under the app that made it), or, under the Action (whose statuses any workflow can post),
 *   taskgate judges the pull request again itself, from its base at the merge, its head and its
 *   reviews; and what landed holds, in the task files it changed, what that head held;
 * - as a follow-up of the bot (a verified commit of its own), when its changes are exactly the
 *   follow-ups the branch called for at its parent (unblocks, renders).
 * Anything else that changed task files, bot commit or not, is reported, until a later commit on the
 * branch brings every task file it changed back to what it was before it, or it leaves the window.
 * Reads go through a local checkout when there is one (the Action), else through the API (the app).
 */
import {
  CONFIG_PATH,
  ConfigError,
  auditRevision,
  botLogins,
  buildReport,
  checkPullRequest,
  followUpFiles,
  isBotCommit,
  likelyAuditScope,
  loadConfig,
  neutralReport,
  readLimits,
  renderRootOf,
  violation,
  type Config,
  type PrCommit,
  type Report,
  type SnapshotScope,
  type TaskRepository,
  type Violation,
  type WorkflowModel,
} from "../core/index.js";
import type { CommitLandings, GitHubApi, Landing } from "./api.js";
import type { Logger } from "./flow.js";
import type { Self } from "./identity.js";
import { GitHubRepository, prCommitsOf } from "./repository.js";
import { checkName } from "./summary.js";
import { trackIssue } from "./tracking-issue.js";
import type { WriteResult } from "./writes.js";

/** At most this many commits of the branch are judged per audit; older ones are out of its window. */
export const MAX_AUDIT_COMMITS = 100;

/** A repository with commit history on this machine (the Action's checkout). */
export type LocalRepository = TaskRepository;

export interface AuditOptions {
  readonly configPath?: string;
  /** A checkout holding the audited commit: task files and history are read from it. */
  readonly local?: LocalRepository;
  readonly log: Logger;
}

export interface AuditOutcome {
  readonly branch: string;
  readonly sha: string;
  readonly report: Report;
  readonly issue: WriteResult | "closed";
}

export async function auditDefaultBranch(api: GitHubApi, options: AuditOptions): Promise<AuditOutcome> {
  const { name: branch, sha, viewer } = await api.defaultBranch();
  const self: Self = { ...api.identity, login: viewer };
  const remote = new GitHubRepository(api);
  const reader: TaskRepository = options.local ?? remote;
  const configPath = options.configPath ?? CONFIG_PATH;
  let report: Report;
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    // What the audit reads is listed with the config's own read, not after it.
    reader.plan?.([sha], likelyAuditScope(configPath));
    loaded = await loadConfig(reader, sha, configPath);
    report = await auditRevision(reader, sha, configPath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    loaded = undefined;
    report = buildReport(
      {
        violations: error.issues.map((issue) =>
          violation("config-invalid", {
            path: configPath,
            line: issue.line,
            message: `${issue.path}: ${issue.message}`,
          }),
        ),
        pending: [],
        transitions: [],
        records: [],
      },
      `audit of ${branch}`,
    );
  }
  if (!loaded) {
    if (report.conclusion === "neutral" || report.violations.length === 0) {
      return { branch, sha, report: neutralReport(`taskgate is not configured on ${branch}`), issue: "none" };
    }
    return { branch, sha, report, issue: await trackIssue(api, { branch, sha, report, self }) };
  }
  const scan: Scan = { ...loaded, api, branch, sha, configPath, reader, remote, local: options.local, self };
  const problems = await scanLandings(scan);
  const full =
    problems.length === 0
      ? report
      : buildReport(
          {
            violations: [...report.violations, ...problems],
            pending: [...report.pending],
            transitions: [...report.transitions],
            records: [...report.records],
          },
          `audit of ${branch} at ${sha.slice(0, 7)}`,
        );
  const issue = await trackIssue(api, { branch, sha, report: full, self });
  options.log.info(`audit of ${branch} at ${sha.slice(0, 7)}: ${full.conclusion}; tracking issue ${issue}`);
  return { branch, sha, report: full, issue };
}

interface Scan {
  readonly api: GitHubApi;
  readonly config: Config;
  readonly model: WorkflowModel;
  readonly branch: string;
  readonly sha: string;
  readonly configPath: string;
  readonly reader: TaskRepository;
  readonly remote: GitHubRepository;
  readonly local: LocalRepository | undefined;
  readonly self: Self;
}

/** A run of commits that landed one merged pull request (one commit, or a rebased series). */
interface Group {
  readonly pull: Landing;
  /** The first parent of the run's oldest commit: the branch as the pull request found it. */
  readonly base: string;
  /** The run's last commit: what the branch held once the pull request landed. */
  readonly end: PrCommit;
}

/** The commits that landed on the branch, oldest first: its first-parent history, within the window. */
async function landedCommits(scan: Scan): Promise<PrCommit[]> {
  const listed = prCommitsOf({ commits: await scan.api.recentCommits(scan.sha, MAX_AUDIT_COMMITS) });
  const bySha = new Map(listed.map((commit) => [commit.sha, commit]));
  const chain: PrCommit[] = [];
  for (let at = bySha.get(scan.sha); at && chain.length < MAX_AUDIT_COMMITS; at = bySha.get(at.parents?.[0] ?? "")) {
    chain.push(at);
  }
  // A root commit is the repository's creation: there is nothing it could have gone around.
  return chain.reverse().filter((commit) => (commit.parents?.length ?? 0) > 0);
}

/** Which merged pull request each commit landed, grouping a rebased series with its last commit. */
function groupsOf(
  branch: string,
  commits: readonly PrCommit[],
  landings: ReadonlyMap<string, CommitLandings>,
): Map<string, Group> {
  const groups = new Map<string, Group>();
  const index = new Map(commits.map((commit, at) => [commit.sha, at]));
  commits.forEach((commit, at) => {
    for (const pull of landings.get(commit.sha)?.pulls ?? []) {
      if (pull.baseRefName !== branch || !pull.mergeCommit) continue;
      const end = index.get(pull.mergeCommit);
      if (end === undefined || end < at) continue;
      // Every commit from this one to the merge commit belongs to the same pull request.
      const run = commits.slice(at, end + 1);
      if (!run.every((item) => landings.get(item.sha)?.pulls.some((other) => other.number === pull.number))) continue;
      groups.set(commit.sha, { pull, base: commit.parents![0]!, end: commits[end]! });
      return;
    }
  });
  return groups;
}

async function scanLandings(scan: Scan): Promise<Violation[]> {
  const { api, branch } = scan;
  const commits = await landedCommits(scan);
  const landings = await api.landings(
    commits.map((commit) => ({ sha: commit.sha, parent: commit.parents![0]! })),
    { checkName: checkName(branch), configPath: scan.configPath, appId: scan.self.appId },
  );
  const groups = groupsOf(branch, commits, landings);
  const files = fileLister(scan);
  const verdicts = new Map<number, Promise<string | undefined>>();
  const out: Violation[] = [];
  const unauthorized: { commit: PrCommit; paths: string[]; at: number }[] = [];
  for (const [at, commit] of commits.entries()) {
    if (!landings.get(commit.sha)?.configured) continue; // taskgate was not set up yet
    const group = groups.get(commit.sha);
    let why: string | undefined;
    if (group) {
      let verdict = verdicts.get(group.pull.number);
      if (!verdict) verdicts.set(group.pull.number, (verdict = judgeLanding(scan, group)));
      why = await verdict;
      if (!why) continue;
    }
    const paths = (await files(commit)).filter((path) => isTaskFile(scan, path));
    if (paths.length === 0) continue;
    if (!group && isBotCommit(commit, scan.config)) {
      const followUp = await followUpMismatch(scan, commit, paths);
      if (!followUp) continue;
      why = followUp;
    }
    unauthorized.push({ commit, paths, at });
    out.push(
      violation("unauthorized-change", {
        path: paths[0],
        message: `commit ${commit.sha.slice(0, 7)} by ${commit.author ?? commit.gitName ?? "someone unknown"} changed ${paths.length} task file(s) on ${branch} (${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ", …" : ""}) ${why ?? `without a merged pull request whose ${checkName(branch)} check passed`}`,
        hint: "Revert the commit through a pull request that taskgate checks, or take the change through one.",
      }),
      ...(await decisionsAdded(scan, commit, paths)),
    );
  }
  return withoutReverted(scan, commits, unauthorized, out, files);
}

/**
 * Why a merged pull request does not vouch for what landed, or `undefined` when it does: its own
 * check passed (the App) or taskgate judges it again and it passes (the Action); and the task files
 * the landing changed hold what the pull request's head held.
 */
async function judgeLanding(scan: Scan, group: Group): Promise<string | undefined> {
  const { pull } = group;
  if (scan.self.appId !== undefined) {
    if (!pull.checks.includes("SUCCESS")) {
      return `through pull request #${pull.number}, whose ${checkName(scan.branch)} check of taskgate did not pass`;
    }
    // GitHub made the landing commit (a merge or squash of the head it checked): it holds the head.
    if (group.end.committer === "web-flow" && group.end.verified === true) return undefined;
  } else {
    const why = await judgeAgain(scan, group);
    if (why) return why;
  }
  return hiddenChange(scan, group);
}

/** The reader that has a commit: the checkout when it does, else GitHub's API. */
async function readerFor(scan: Scan, sha: string): Promise<TaskRepository> {
  if (!scan.local) return scan.remote;
  return scan.local.resolve(sha).then(
    () => scan.local!,
    () => scan.remote,
  );
}

/** Does what landed differ, in the task files it changed, from the head the pull request was judged at? */
async function hiddenChange(scan: Scan, group: Group): Promise<string | undefined> {
  const head = group.pull.headRefOid;
  const reader = await readerFor(scan, head);
  const [changed, differs] = await Promise.all([
    reader.changedFiles(group.base, group.end.sha),
    reader.differences(group.end.sha, head),
  ]);
  const hidden = changed
    .flatMap((file) => [file.path, ...(file.previousPath ? [file.previousPath] : [])])
    .filter((path) => isTaskFile(scan, path) && differs.has(path));
  if (hidden.length === 0) return undefined;
  return `through pull request #${group.pull.number}, but ${hidden.slice(0, 3).join(", ")} landed unlike the pull request's head ${head.slice(0, 7)} that taskgate judged`;
}

/**
 * Judges a merged pull request again, as its check would have: the config and the branch at the
 * merge (the landing's first parent), its head, and the reviews submitted before it merged.
 */
async function judgeAgain(scan: Scan, group: Group): Promise<string | undefined> {
  const { api, config } = scan;
  const { pull } = group;
  const facts = await api.pullRequest(pull.number, scan.configPath);
  if (!facts) return `through pull request #${pull.number}, which GitHub no longer shows`;
  const merged = pull.mergedAt ? Date.parse(pull.mergedAt) : Number.POSITIVE_INFINITY;
  const reviews = facts.reviews.filter(
    (review) => !review.submitted_at || Number.isNaN(merged) || Date.parse(review.submitted_at) <= merged,
  );
  const comparison = await api.compare(group.base, pull.headRefOid);
  const reviewers = reviews
    .filter((review) => review.user?.type !== "Deleted" && ["APPROVED", "CHANGES_REQUESTED"].includes(review.state))
    .map((review) => review.user!.login);
  const teams = [
    ...config.approvals.approvers,
    ...Object.values(config.approvals.gates).flatMap((gate) => gate.approvers ?? []),
    ...Object.values(config.roles).flat(),
    ...config.maintainers,
  ].filter((principal) => /^@[^/\s]+\/[^/\s]+$/.test(principal));
  const known = await api.batch({
    blobs: [],
    people: reviewers,
    teams,
    commits: prCommitsOf(comparison)
      .filter((commit) => (commit.coAuthors?.length ?? 0) > 0)
      .map((commit) => commit.sha),
  });
  const reader = await readerFor(scan, pull.headRefOid);
  const report = await checkPullRequest(reader, {
    base: group.base,
    head: pull.headRefOid,
    configPath: scan.configPath,
    pr: {
      author: facts.author,
      reviews,
      commits: comparison.commits.map((commit) => ({
        ...commit,
        co_authors: (known.authors.get(commit.sha) ?? []).filter((person) => person.login),
      })),
      permissions: known.permissions,
      teams: known.teams,
    },
  });
  // The config was there at the merge (only such landings are judged): anything but a pass is a miss.
  if (report.conclusion === "success") return undefined;
  return `through pull request #${pull.number}, which taskgate judges "${report.conclusion}" from its base at the merge, its head ${pull.headRefOid.slice(0, 7)} and its reviews (${report.summary})`;
}

/**
 * Why a commit of the bot on the branch is not exactly the follow-ups the branch called for at its
 * parent, or `undefined` when it is. A record of any other kind (an approval, a rejection) reaches the
 * default branch only through a merged pull request.
 */
async function followUpMismatch(scan: Scan, commit: PrCommit, paths: readonly string[]): Promise<string | undefined> {
  const { config, model, reader } = scan;
  const parent = commit.parents![0]!;
  const limits = readLimits(config);
  const [before, after] = await Promise.all([
    reader.readSnapshot(parent, model.auditScope(), limits),
    reader.readSnapshot(commit.sha, { paths: [...paths], prefixes: [] }, limits),
  ]);
  const added = model.decisionsAdded(before, after);
  const expected = followUpFiles(config, model, before, { now: added.find((item) => item.at)?.at ?? "" });
  const same =
    paths.every((path) => expected.changes.get(path) === after.files.get(path)?.text) &&
    [...expected.changes.keys()].filter((path) => isTaskFile(scan, path)).every((path) => paths.includes(path));
  if (same) return undefined;
  return `as a commit of ${botLogins(config).join(" or ")} that is not a follow-up of ${scan.branch} (a record reaches ${scan.branch} only through a merged pull request)`;
}

/** Decisions an unauthorized commit added to the task store. */
async function decisionsAdded(scan: Scan, commit: PrCommit, paths: readonly string[]): Promise<Violation[]> {
  const parent = commit.parents![0]!;
  const limits = readLimits(scan.config);
  const scope: SnapshotScope = { paths: [...paths], prefixes: [] };
  const [before, after] = await Promise.all([
    scan.reader.readSnapshot(parent, scope, limits),
    scan.reader.readSnapshot(commit.sha, scope, limits),
  ]);
  const bot = isBotCommit(commit, scan.config);
  return scan.model.decisionsAdded(before, after).map((added) =>
    violation("unauthorized-change", {
      task: added.task,
      path: added.path,
      message: bot
        ? `commit ${commit.sha.slice(0, 7)} of ${botLogins(scan.config).join(" or ")} added the recorded decision "${added.what}" of ${added.task} on ${scan.branch} directly, not through a merged pull request`
        : `commit ${commit.sha.slice(0, 7)} added the recorded decision "${added.what}" of ${added.task}, but it is not a verified commit of ${botLogins(scan.config).join(" or ")}`,
      hint: "Only taskgate records decisions, on a pull request's branch; revert the line or entry, and take the review through a pull request.",
    }),
  );
}

/**
 * The findings, less those of unauthorized commits that a later commit reverted (at that commit,
 * every task file the unauthorized one changed is back to what it was before it), and less the
 * revert itself when it changed nothing else: undoing a change that went around the check goes
 * around nothing.
 */
async function withoutReverted(
  scan: Scan,
  commits: readonly PrCommit[],
  unauthorized: readonly { commit: PrCommit; paths: string[]; at: number }[],
  findings: readonly Violation[],
  files: (commit: PrCommit) => Promise<string[]>,
): Promise<Violation[]> {
  const reverted = new Set<string>();
  const pending = new Map(unauthorized.map((item) => [item.commit.sha, item]));
  for (const { commit, paths, at } of unauthorized) {
    const parent = commit.parents![0]!;
    for (const later of commits.slice(at + 1)) {
      const touched = new Set(await files(later));
      if (!paths.some((path) => touched.has(path))) continue;
      const differs = await scan.reader.differences(parent, later.sha);
      if (paths.every((path) => !differs.has(path))) {
        reverted.add(commit.sha.slice(0, 7));
        const revert = pending.get(later.sha);
        if (revert && revert.paths.every((path) => paths.includes(path))) reverted.add(later.sha.slice(0, 7));
        break;
      }
    }
  }
  if (reverted.size === 0) return [...findings];
  return findings.filter((item) => ![...reverted].some((short) => item.message.startsWith(`commit ${short} `)));
}

/** The files a landed commit changed against its first parent: from the checkout, else one request each. */
function fileLister(scan: Scan): (commit: PrCommit) => Promise<string[]> {
  const cache = new Map<string, Promise<string[]>>();
  return (commit) => {
    let found = cache.get(commit.sha);
    if (!found) {
      found = scan.local
        ? scan.local
            .changedFiles(commit.parents![0]!, commit.sha)
            .then((changed) =>
              changed.flatMap((file) => [file.path, ...(file.previousPath ? [file.previousPath] : [])]),
            )
        : scan.api.commitFiles(commit.sha).then((answer) => answer.files);
      cache.set(commit.sha, found);
    }
    return found;
  };
}

/** Is a path part of the task store (not the config, not a rendered status file)? */
function isTaskFile(scan: Scan, path: string): boolean {
  const scope = scan.model.auditScope();
  const root = `${renderRootOf(scan.config)}/`;
  return (
    !path.startsWith(root) &&
    path !== scan.configPath &&
    path !== CONFIG_PATH &&
    (scope.paths.includes(path) || scope.prefixes.some((prefix) => path.startsWith(prefix)))
  );
}
