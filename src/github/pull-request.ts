/**
 * Judging a pull request on GitHub in a few requests, whatever the size of the repository: the pull
 * request with its reviews and the base branch's config (one GraphQL request), then the core's one
 * pipeline of a check (`judgePullRequest`) over `GitHubRepository`, which batches its reads: the
 * comparison (merge base, commits, changed files), the folders that differ between the merge base,
 * the head and each commit the approval rules look into (one GraphQL request for the roots and the
 * folders above the files the comparison lists, then one per level where more differ, for all
 * commits at once), and one GraphQL batch of the task files, permissions and team members. Lists
 * GitHub caps are never judged as if complete, nor a folder GitHub cuts short.
 */
import {
  CONFIG_PATH,
  ConfigError,
  buildReport,
  configReport,
  judgePullRequest,
  violation,
  type Config,
  type FileEntry,
  type Report,
  type Snapshot,
  type Violation,
  type WorkflowModel,
} from "../core/index.js";
import { MAX_COMMITS, type BlobData, type GitHubApi, type PullRequestFacts, type Tree } from "./api.js";
import { GitHubRepository, TruncatedTreeError } from "./repository.js";

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
  const path = options.configPath ?? CONFIG_PATH;
  // GitHub lists at most 250 commits: the pipeline judges those, and this guard fails closed.
  const repo = new GitHubRepository(api, { cappedCommits: "listed" });
  try {
    const judged = await judgePullRequest(repo, {
      base: facts.baseTip,
      head: headSha,
      baseName: facts.baseRefName,
      configPath: path,
      configFile: configFileOf(facts.config, path),
      pr: { author: facts.author, reviews: facts.reviews },
    });
    if (!judged.loaded) return { facts, headSha, report: judged.report, incomplete: false };
    const comparison = await repo.compare(facts.baseTip, headSha);
    const blind = unseen(comparison.totalCommits, comparison.commits.length);
    return {
      facts,
      headSha,
      report: blind.length === 0 ? judged.report : failClosed(judged.report, blind),
      ...judged.loaded,
      ...(judged.head && { head: judged.head }),
      headTree: await repo.tree(headSha),
      repo,
      incomplete: blind.length > 0,
    };
  } catch (error) {
    if (error instanceof ConfigError) {
      return { facts, headSha, report: configReport(error.issues, error.path), incomplete: false };
    }
    if (!(error instanceof TruncatedTreeError)) throw error;
    const report = buildReport(
      { violations: cutShort([error]), pending: [], transitions: [], records: [] },
      `pull request by ${facts.author}`,
    );
    return { facts, headSha, report, incomplete: true };
  }
}

/** The config at the tip of the base branch as the pull request's facts carry it; a pull request never judges itself by its own. */
function configFileOf(blob: BlobData | null, path: string): FileEntry | null {
  if (!blob) return null;
  const size = blob.byteSize ?? 0;
  if (blob.text === null || blob.isBinary) return { path, kind: "binary", size };
  if (blob.isTruncated) return { path, kind: "oversized", size };
  return { path, kind: "file", size, text: blob.text };
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
