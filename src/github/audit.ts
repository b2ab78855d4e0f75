/**
 * The scheduled audit of the default branch: every rule over every task (the core's `audit`), plus
 * `unauthorized-change`: commits since the last audit that changed task files without a merged pull
 * request whose taskgate check passed, and recorded decisions that no verified commit of the bot
 * added. The scan is incremental: the last audited commit is kept in the tracking issue. Reads go
 * through a local checkout when there is one (the Action), else through the API (the app).
 */
import { isBotCommit } from "../core/approval.js";
import { CONFIG_PATH, botLogins, readLimits, type Config } from "../core/config.js";
import { buildReport, neutralReport } from "../core/evaluate.js";
import type { WorkflowModel } from "../core/model.js";
import { renderRootOf } from "../core/paths.js";
import type { SnapshotScope, TaskRepository } from "../core/port.js";
import { ConfigError, auditRevision, loadConfig } from "../core/service.js";
import type { PrCommit, Report, Violation } from "../core/types.js";
import { violation } from "../core/violations.js";
import type { CompareCommit, GitHubApi } from "./api.js";
import type { Logger } from "./flow.js";
import { GitHubRepository, prCommitsOf } from "./repository.js";
import { auditIssueBody, checkName } from "./summary.js";
import type { WriteResult } from "./writes.js";

/** At most this many commits are scanned per audit; more are reported, never judged as scanned. */
export const MAX_AUDIT_COMMITS = 100;
export const AUDIT_LABEL = "taskgate-audit";
export const AUDIT_MARKER = "<!-- taskgate:audit -->";

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
  const { name: branch, sha } = await api.defaultBranch();
  const remote = new GitHubRepository(api);
  const reader: TaskRepository = options.local ?? remote;
  const configPath = options.configPath ?? CONFIG_PATH;
  let report: Report;
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
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
    return { branch, sha, report, issue: await trackIssue(api, { branch, sha, report, bots: ["taskgate[bot]"] }) };
  }
  const tracked = await findIssue(api, botLogins(loaded.config));
  const since = tracked?.audited;
  const problems = await scanCommits(api, { ...loaded, branch, sha, since, reader, remote, local: options.local });
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
  const issue = await trackIssue(api, { branch, sha, report: full, bots: botLogins(loaded.config), existing: tracked });
  options.log.info(`audit of ${branch} at ${sha.slice(0, 7)}: ${full.conclusion}; tracking issue ${issue}`);
  return { branch, sha, report: full, issue };
}

interface Scan {
  readonly config: Config;
  readonly model: WorkflowModel;
  readonly branch: string;
  readonly sha: string;
  readonly since: string | undefined;
  readonly reader: TaskRepository;
  readonly remote: GitHubRepository;
  readonly local: LocalRepository | undefined;
}

/** The commits since the last audit, with what GitHub says of each and the files each changed. */
async function commitsToScan(
  api: GitHubApi,
  scan: Scan,
): Promise<{ commits: { commit: PrCommit; files: readonly string[] }[]; skipped: number }> {
  let listed: CompareCommit[];
  let total: number;
  if (scan.since && scan.since !== scan.sha) {
    const comparison = await scan.remote.compare(scan.since, scan.sha);
    if (comparison.mergeBase !== scan.since) return commitsToScan(api, { ...scan, since: undefined });
    listed = [...comparison.commits];
    total = comparison.totalCommits;
  } else if (scan.since === scan.sha) {
    return { commits: [], skipped: 0 };
  } else {
    // No audit before this one (or history was rewritten): the latest commits.
    listed = await api.recentCommits(scan.sha, MAX_AUDIT_COMMITS);
    listed.reverse();
    total = listed.length;
  }
  // A root commit is the repository's creation: there is nothing it could have gone around.
  const kept = listed.slice(-MAX_AUDIT_COMMITS).filter((commit) => commit.parents.length > 0);
  const skipped = total - listed.slice(-MAX_AUDIT_COMMITS).length;
  const prCommits = prCommitsOf({ mergeBase: "", totalCommits: kept.length, commits: kept });
  if (scan.local) {
    // The checkout knows each commit's files: one git process for the whole range.
    const oldest = prCommits[0]?.parents?.[0];
    const withFiles = oldest ? await scan.local.commits(oldest, scan.sha) : [];
    const files = new Map(withFiles.map((commit) => [commit.sha, commit.files ?? []]));
    return { commits: prCommits.map((commit) => ({ commit, files: files.get(commit.sha) ?? [] })), skipped };
  }
  const details = await Promise.all(prCommits.map((commit) => api.commitFiles(commit.sha)));
  return { commits: prCommits.map((commit, index) => ({ commit, files: details[index]!.files })), skipped };
}

async function scanCommits(api: GitHubApi, scan: Scan): Promise<Violation[]> {
  const { config, model, branch } = scan;
  const { commits, skipped } = await commitsToScan(api, scan);
  const out: Violation[] = [];
  if (skipped > 0) {
    out.push(
      violation("unauthorized-change", {
        message: `${skipped} commit(s) on ${branch} since the last audit were not scanned (an audit scans at most ${MAX_AUDIT_COMMITS})`,
        hint: "Look through them by hand (`git log`); the next audit starts from this one.",
      }),
    );
  }
  const scope = model.auditScope();
  const root = `${renderRootOf(config)}/`;
  const isTaskFile = (path: string) =>
    !path.startsWith(root) &&
    path !== CONFIG_PATH &&
    (scope.paths.includes(path) || scope.prefixes.some((prefix) => path.startsWith(prefix)));
  const touching = commits.filter(({ files }) => files.some(isTaskFile));
  const unverified = touching.filter(({ commit }) => !isBotCommit(commit, config));
  const passed =
    unverified.length > 0
      ? await api.authorized(
          unverified.map(({ commit }) => commit.sha),
          branch,
          checkName(branch),
        )
      : new Set<string>();
  for (const { commit, files } of unverified) {
    if (passed.has(commit.sha)) continue;
    const changed = files.filter(isTaskFile);
    out.push(
      violation("unauthorized-change", {
        path: changed[0],
        message: `commit ${commit.sha.slice(0, 7)} by ${commit.author ?? commit.gitName ?? "someone unknown"} changed ${changed.length} task file(s) on ${branch} (${changed.slice(0, 3).join(", ")}${changed.length > 3 ? ", …" : ""}) without a merged pull request whose ${checkName(branch)} check passed`,
        hint: "Revert the commit, or take the change through a pull request that taskgate checks.",
      }),
    );
    out.push(...(await unbotDecisions(scan, commit, files)));
  }
  return out;
}

/** Decisions a commit that is not the bot's added to the task store. */
async function unbotDecisions(scan: Scan, commit: PrCommit, files: readonly string[]): Promise<Violation[]> {
  const parent = commit.parents?.[0];
  if (!parent) return [];
  const limits = readLimits(scan.config);
  const scope: SnapshotScope = { paths: [...files], prefixes: [] };
  const [before, after] = await Promise.all([
    scan.reader.readSnapshot(parent, scope, limits),
    scan.reader.readSnapshot(commit.sha, scope, limits),
  ]);
  return scan.model.decisionsAdded(before, after).map((added) =>
    violation("unauthorized-change", {
      task: added.task,
      path: added.path,
      message: `commit ${commit.sha.slice(0, 7)} added the recorded decision "${added.what}" of ${added.task}, but it is not a verified commit of ${botLogins(scan.config).join(" or ")}`,
      hint: "Only taskgate records decisions; revert the line or entry, and take the review through a pull request.",
    }),
  );
}

interface TrackedIssue {
  readonly number: number;
  readonly open: boolean;
  readonly body: string;
  readonly audited: string | undefined;
}

/** The tracking issue the bot keeps (found by label, marker and author), and the commit it last audited. */
async function findIssue(api: GitHubApi, bots: readonly string[]): Promise<TrackedIssue | undefined> {
  const issues = (await api.octokit.paginate(api.octokit.rest.issues.listForRepo, {
    ...api.repo,
    labels: AUDIT_LABEL,
    state: "all",
    per_page: 100,
  })) as {
    number: number;
    state: string;
    body?: string | null;
    user?: { login: string; type: string } | null;
    pull_request?: unknown;
  }[];
  const mine = issues
    .filter(
      (issue) =>
        !issue.pull_request &&
        issue.body?.includes(AUDIT_MARKER) &&
        issue.user?.type === "Bot" &&
        // The Action writes as github-actions[bot], the app as its own bot: trust either, nobody else.
        [...bots, "github-actions[bot]"].some((bot) => bot.toLowerCase() === issue.user!.login.toLowerCase()),
    )
    .sort((a, b) => a.number - b.number);
  const issue = mine.find((item) => item.state === "open") ?? mine.at(-1);
  if (!issue) return undefined;
  const audited = /<!-- taskgate:audited ([0-9a-f]{40}) -->/.exec(issue.body ?? "")?.[1];
  return { number: issue.number, open: issue.state === "open", body: issue.body ?? "", audited };
}

/** ONE tracking issue: created when something is wrong, updated in place, closed when clean. */
async function trackIssue(
  api: GitHubApi,
  input: { branch: string; sha: string; report: Report; bots: readonly string[]; existing?: TrackedIssue | undefined },
): Promise<WriteResult | "closed"> {
  const existing = input.existing ?? (await findIssue(api, input.bots));
  const clean = input.report.violations.length === 0;
  const body = auditIssueBody(input.report, input.branch, input.sha);
  if (!existing) {
    if (clean) return "none";
    await api.octokit.rest.issues.create({
      ...api.repo,
      title: `taskgate audit: ${input.report.violations.length} problem(s) on ${input.branch}`,
      body,
      labels: [AUDIT_LABEL],
    });
    return "created";
  }
  if (clean && !existing.open) {
    // Keep the baseline in the closed issue for the next incremental scan.
    if (existing.audited === input.sha) return "unchanged";
    await api.octokit.rest.issues.update({ ...api.repo, issue_number: existing.number, body });
    return "updated";
  }
  if (existing.body === body && existing.open === !clean) return "unchanged";
  await api.octokit.rest.issues.update({
    ...api.repo,
    issue_number: existing.number,
    body,
    title: clean
      ? `taskgate audit: ${input.branch} is clean`
      : `taskgate audit: ${input.report.violations.length} problem(s) on ${input.branch}`,
    state: clean ? "closed" : "open",
  });
  return clean ? "closed" : "updated";
}
