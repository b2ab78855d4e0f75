/**
 * One pull request, start to finish: evaluate it, commit the decisions its reviews call for (one
 * atomic commit of the app, on a branch of this repository, only if the branch did not move), judge
 * the new head, then report: the check run and the sticky comment. Shared by the app and the Action.
 */
import { botLogins, readLimits, recordChanges, statusIndexPath, type Report, type Snapshot } from "../core/index.js";
import type { GitHubApi } from "./api.js";
import { GitHubError } from "./errors.js";
import type { Self } from "./identity.js";
import { evaluatePullRequest, type Evaluation } from "./pull-request.js";
import { TruncatedTreeError } from "./repository.js";
import { checkName, checkOutput, commentBody, type CheckOutput, type Withheld } from "./summary.js";
import { blobsToRead, hasFile, snapshotOf } from "./trees.js";
import {
  CommitRefused,
  commitFiles,
  convergeComments,
  publishCheck,
  publishStatus,
  upsertComment,
  type WriteResult,
} from "./writes.js";

/** Above this many task files, the bot leaves rendering to the default branch instead of its commit. */
export const MAX_RENDER_BLOBS = 2000;
/** How many times one delivery judges again when the pull request moved while it judged. */
const ATTEMPTS = 3;

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface Trigger {
  /** May this delivery commit records? Never on a push the bot made itself. */
  readonly record: boolean;
  /** Who caused the event (its `sender.login`). */
  readonly sender?: string | undefined;
  /** The head the event was about, when it says. */
  readonly headSha?: string;
}

/** How one surface reports: the app as a check run, the Action as a commit status (see docs/action.md). */
export interface ReportOptions {
  readonly as: "check" | "status";
  /** Where the configuration lives on the base branch (default `.github/taskgate.yml`). */
  readonly configPath?: string;
  /** The status's link (the Action: its workflow run); a check run links to the pull request. */
  readonly targetUrl?: string;
  /** The pull request's page (the App with its pages on): the summary and the comment end with a link to it. */
  readonly pageUrl?: string;
  /** The token may not write (a fork's pull request in a workflow): judge and return, write nothing. */
  readonly readOnly?: boolean;
}

export interface Outcome {
  readonly evaluated: boolean;
  readonly headSha?: string;
  readonly report?: Report;
  /** What was (or would have been) shown on GitHub. */
  readonly output?: CheckOutput;
  /** The commit the bot made, when it recorded decisions. */
  readonly recorded?: string;
  readonly check?: WriteResult;
  readonly comment?: WriteResult;
}

export async function checkPullRequest(
  api: GitHubApi,
  number: number,
  trigger: Trigger,
  log: Logger,
  options: ReportOptions = { as: "check" },
): Promise<Outcome> {
  return run({ api, number, trigger, log, options }, ATTEMPTS);
}

/**
 * Has the App already judged this head (its own check run is on it)? One request. The App's own
 * push (the commit of its records) is judged by the delivery that made it, so the event the push
 * brings stops here.
 */
export async function judgedAlready(api: GitHubApi, baseRef: string, headSha: string): Promise<boolean> {
  return (await api.ownCheckRuns(headSha, checkName(baseRef))).length > 0;
}

interface Job {
  readonly api: GitHubApi;
  readonly number: number;
  readonly trigger: Trigger;
  readonly log: Logger;
  readonly options: ReportOptions;
}

async function run(job: Job, attempts: number): Promise<Outcome> {
  const { number, log } = job;
  try {
    return await judge(job, attempts);
  } catch (error) {
    // A pull request, branch or commit deleted while the delivery ran: nothing left to report on.
    if (!(error instanceof GitHubError && error.is(404, 410))) throw error;
    log.info(`pull request #${number}: GitHub answered ${error.status}; it is gone`);
    return { evaluated: false };
  }
}

async function judge(job: Job, attempts: number): Promise<Outcome> {
  const { api, number, trigger, log, options } = job;
  const evaluation = await evaluatePullRequest(
    api,
    number,
    options.configPath ? { configPath: options.configPath } : {},
  );
  if (!evaluation) {
    log.info(`pull request #${number} is gone; nothing to check`);
    return { evaluated: false };
  }
  if (evaluation.facts.state !== "OPEN") {
    log.info(`pull request #${number} is ${evaluation.facts.state.toLowerCase()}; nothing to check`);
    return { evaluated: false };
  }
  if (trigger.headSha && trigger.headSha !== evaluation.headSha) {
    log.info(
      `pull request #${number} moved on from ${trigger.headSha.slice(0, 7)}; judging ${evaluation.headSha.slice(0, 7)}`,
    );
  }
  if (evaluation.report.records.length === 0) return publish(job, { evaluation }, attempts);
  const recorded = await recordStep(job, evaluation);
  if ("moved" in recorded) {
    // Someone pushed meanwhile: nothing of theirs is overwritten; judge the new head instead.
    log.info(`pull request #${number} moved while recording; judging its new head`);
    if (attempts > 1) return run(job, attempts - 1);
    return { evaluated: true, headSha: evaluation.headSha, report: evaluation.report };
  }
  if ("gone" in recorded) return { evaluated: true, headSha: recorded.gone, recorded: recorded.gone };
  return publish(job, recorded, attempts);
}

/** Where recording left a pull request: judged again after the commit, or why nothing was recorded. */
interface Recorded {
  readonly evaluation: Evaluation;
  readonly withheld?: Withheld;
  readonly recorded?: string;
}

/**
 * Commits the records an evaluation calls for, when they may be, and judges the new head; or says why
 * they were withheld. `moved`: the branch moved meanwhile; `gone`: the pull request went away after
 * the commit (its id).
 */
async function recordStep(job: Job, evaluation: Evaluation): Promise<Recorded | { moved: true } | { gone: string }> {
  const { api, number, trigger, log, options } = job;
  const refusal = options.readOnly
    ? "This run's token may not write to the repository (a fork's pull request), so the approvals below are not recorded."
    : await whyNotRecord(api, evaluation, trigger);
  if (refusal) return { evaluation, withheld: { reason: refusal } };
  let recorded: string | undefined;
  try {
    recorded = await record(api, evaluation, log);
  } catch (error) {
    if (!(error instanceof CommitRefused)) throw error;
    return {
      evaluation,
      withheld: {
        reason: `The branch does not accept taskgate's commits (${error.message}), so the approvals below are not recorded. Allow taskgate to push to it, or record them from a branch it may write to.`,
      },
    };
  }
  if (!recorded) return { moved: true };
  const next = await evaluatePullRequest(api, number, {
    headSha: recorded,
    ...(options.configPath && { configPath: options.configPath }),
  });
  if (!next) return { gone: recorded };
  if (next.report.records.length === 0) return { evaluation: next, recorded };
  const reason =
    "taskgate has just recorded decisions here and does not record twice in a row; re-run the check to continue.";
  return { evaluation: next, recorded, withheld: { reason } };
}

/**
 * Writes the result: the check run (or the Action's status) and the sticky comment. Then asks whether
 * the pull request moved while this delivery judged, and judges again if it did.
 */
async function publish(job: Job, recorded: Recorded, attempts: number): Promise<Outcome> {
  const { api, number, log, options } = job;
  const { evaluation, withheld } = recorded;
  const { facts, headSha, report } = evaluation;
  const output = checkOutput(report, withheld, options.pageUrl);
  if (options.readOnly) return { evaluated: true, headSha, report, output };
  const self: Self = { ...api.identity, login: facts.viewer };
  const target = {
    baseRef: facts.baseRefName,
    headSha,
    detailsUrl: options.targetUrl ?? facts.url,
    stamp: facts.stamp,
  };
  const check =
    options.as === "status" ? await publishStatus(api, target, output, self) : await publishCheck(api, target, output);
  const comment = await publishComment(api, number, recorded, self, options.pageUrl);
  const outcome: Outcome = {
    evaluated: true,
    headSha,
    report,
    output,
    ...(recorded.recorded && { recorded: recorded.recorded }),
    check,
    comment,
  };
  if (!wrote(check) && !wrote(comment)) return outcome;
  // The result is written; was it computed from the pull request as it is now? A review dismissed or
  // a push made while this delivery judged means another delivery may have written the newer result
  // before this one: judge again, so the newest facts have the last word.
  const now = await api.version(number);
  if (!now) return outcome;
  await convergeComments(api, now.ownComments);
  if (now.version === facts.version) return outcome;
  if (attempts <= 1) {
    log.warn(`pull request #${number} kept changing while taskgate judged it; the next event judges it again`);
    return outcome;
  }
  log.info(`pull request #${number} changed while taskgate judged it; judging it again`);
  return run(job, attempts - 1);
}

/** The sticky comment: written when there is something to say, kept up to date, never for a neutral result. */
async function publishComment(
  api: GitHubApi,
  number: number,
  recorded: Recorded,
  self: Self,
  pageUrl: string | undefined,
): Promise<WriteResult> {
  const { evaluation, withheld } = recorded;
  const { facts, headSha, report } = evaluation;
  if (report.conclusion === "neutral") return "none";
  const needed =
    report.violations.length > 0 || report.pending.length > 0 || Boolean(withheld && report.records.length > 0);
  const plan = {
    body: commentBody(report, headSha, withheld, pageUrl),
    needed,
    stamp: facts.stamp,
    seen: facts.ownComments,
    count: facts.commentCount,
  };
  return upsertComment(api, number, plan, self);
}

function wrote(result: WriteResult): boolean {
  return result === "created" || result === "updated";
}

/** Why the records of an evaluation must not be committed, or `undefined` when they may be. */
async function whyNotRecord(api: GitHubApi, evaluation: Evaluation, trigger: Trigger): Promise<string | undefined> {
  const { facts } = evaluation;
  const bots = evaluation.config ? botLogins(evaluation.config) : ["taskgate[bot]"];
  const own = facts.headRepository !== null && facts.headRepository.toLowerCase() === facts.repository.toLowerCase();
  if (facts.isCrossRepository || !own) {
    return "This pull request comes from a fork (or from a repository that no longer exists), where taskgate cannot commit; the approvals it would record (below) cannot be recorded here. A maintainer must push the branch to this repository and open the pull request from there.";
  }
  if (!trigger.record || (trigger.sender && bots.some((bot) => bot.toLowerCase() === trigger.sender!.toLowerCase()))) {
    return "taskgate does not record decisions on a push of its own; re-run the check to record them.";
  }
  if (evaluation.incomplete) return "GitHub did not show this pull request in full, so taskgate records nothing.";
  if (facts.defaultBranch !== null && facts.headRefName === facts.defaultBranch) {
    return `This pull request's head is the default branch (${facts.headRefName}); taskgate never commits there: a decision reaches the default branch only through a pull request merged into it. Open the pull request from a branch of its own.`;
  }
  let protectedBranch: boolean;
  try {
    protectedBranch = await api.isProtected(facts.headRefName);
  } catch (error) {
    if (!(error instanceof GitHubError && error.is(404))) throw error;
    return `The branch ${facts.headRefName} is gone, so nothing is recorded.`;
  }
  if (protectedBranch) {
    return `GitHub reports the branch ${facts.headRefName} as protected; taskgate commits only to a pull request's own unprotected branch. Open the pull request from a branch of its own.`;
  }
  return undefined;
}

/** Commits the records (and, when the repository renders in pull requests, the re-rendered files). */
async function record(api: GitHubApi, evaluation: Evaluation, log: Logger): Promise<string | undefined> {
  const { config, model, head, report, facts, headSha } = evaluation;
  if (!config || !model || !head) return undefined;
  const now = new Date().toISOString();
  const rendering = await renderingSnapshot(api, evaluation, log);
  const { changes } = recordChanges(config, model, rendering ?? head, report.records, {
    render: Boolean(rendering),
    now,
  });
  const lines = report.records.map((item) => `${item.task}: ${item.from} → ${item.to} (${item.kind} by ${item.by})`);
  return commitFiles(
    api,
    {
      branch: facts.headRefName,
      expectedHead: headSha,
      headline: `taskgate: record ${report.records.length} decision(s)`,
      body: lines.join("\n"),
    },
    changes,
  );
}

/**
 * The head as rendering reads it (the audit scope), when the config renders in pull requests and the
 * repository already has its status files; nothing when rendering would read more task files than a
 * webhook has time for (the default branch catches up).
 */
async function renderingSnapshot(api: GitHubApi, evaluation: Evaluation, log: Logger): Promise<Snapshot | undefined> {
  const { config, model, headTree, repo } = evaluation;
  if (!config || !model || !headTree || !repo || config.render.commit !== "pr") return undefined;
  const index = statusIndexPath(config);
  const scope = model.auditScope();
  const limits = readLimits(config);
  try {
    await repo.cover([{ tree: headTree, scope: { paths: [index], prefixes: [] } }]);
    if (!hasFile(headTree, index)) return undefined;
    await repo.cover([{ tree: headTree, scope }]);
  } catch (error) {
    if (!(error instanceof TruncatedTreeError)) throw error;
    log.warn(`${error.message}; leaving the status files to the default branch`);
    return undefined;
  }
  const needed = blobsToRead(headTree, scope, limits);
  if (needed.length > MAX_RENDER_BLOBS) {
    log.warn(`rendering needs ${needed.length} files; leaving the status files to the default branch`);
    return undefined;
  }
  const { blobs } = await api.batch({ blobs: needed, people: [], teams: [] });
  return snapshotOf(headTree, scope, limits, blobs);
}
