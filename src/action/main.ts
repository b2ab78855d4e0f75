/**
 * The taskgate GitHub Action: the same handlers as the app, run from a workflow. Thin: it reads the
 * event, builds an Octokit from the job's token, calls the flow for the mode, writes the step summary
 * and outputs, and fails the step with a clear message on any error.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { redactSecrets } from "../core/index.js";
import type { Report } from "../core/index.js";
import { GitRepository } from "../git/repository.js";
import { GitHubApi } from "../github/api.js";
import { auditDefaultBranch } from "../github/audit.js";
import { checkPullRequest, type Logger } from "../github/flow.js";
import { GitHubError, describeFailure } from "../github/errors.js";
import { followUp } from "../github/followups.js";
import { taskgateRequests } from "../github/octokit.js";
import { inertPlain } from "../github/inert.js";
import { checkOutput } from "../github/summary.js";
import type { EarlyAnswer } from "./early.js";
import { ActionError, readInputs, type Inputs } from "./inputs.js";
import { runner, type Runner } from "./runner.js";

export { modeFor, type Mode } from "./inputs.js";

const ActionOctokit = Octokit.plugin(retry, throttling, taskgateRequests as never);

/**
 * Runs the Action, with the inputs the entry already read and the answer to its first question when
 * it asked one; the step fails through `core.fail` on any error.
 */
export async function main(
  env: NodeJS.ProcessEnv = process.env,
  core: Runner = runner(env),
  start?: { inputs: Inputs; early: EarlyAnswer | undefined },
): Promise<void> {
  try {
    const inputs = start?.inputs ?? readInputs(env, core);
    const api = new GitHubApi(octokitFor(inputs.token, env), { owner: inputs.owner, repo: inputs.repo });
    if (start?.early) api.offer(start.early.question, start.early.answer);
    await run(env, core, inputs, api);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const status = error instanceof GitHubError ? error.status : undefined;
    const hint =
      status === 403
        ? " (the token lacks a permission: give the workflow `permissions:` as docs/action.md shows)"
        : status === 401
          ? " (the token was refused)"
          : "";
    // GitHub out of reach (a wrong GITHUB_API_URL, a network that does not answer): say where and what to check.
    const failure = describeFailure(error, "GITHUB_API_URL");
    const unreachable = /^could not reach|did not answer in time/.test(failure);
    core.fail(redactSecrets(`taskgate: ${unreachable ? failure : `${message}${hint}`}`));
  }
}

async function run(env: NodeJS.ProcessEnv, core: Runner, inputs: Inputs, api: GitHubApi): Promise<void> {
  const { mode, event, payload, owner, repo, configPath } = inputs;
  const log: Logger = { info: (message) => core.info(message), warn: (message) => core.warning(message) };

  let report: Report;
  if (mode === "check") {
    const pr = payload.pull_request as
      | { number: number; head: { sha: string; repo?: { full_name?: string } | null } }
      | undefined;
    if (!pr) throw new ActionError(`check mode needs a pull_request or pull_request_review event, not "${event}"`);
    // A fork's pull request, or one whose head repository was deleted (`head.repo: null`): the head
    // branch is not this repository's, so nothing may be written for it.
    const fork = pr.head.repo?.full_name?.toLowerCase() !== `${owner}/${repo}`.toLowerCase();
    const sender = (payload.sender as { login?: string } | undefined)?.login;
    const runUrl = `${env.GITHUB_SERVER_URL ?? "https://github.com"}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID ?? ""}`;
    const outcome = await checkPullRequest(api, pr.number, { record: true, sender, headSha: pr.head.sha }, log, {
      as: "status",
      configPath,
      targetUrl: runUrl,
      readOnly: fork,
    });
    if (!outcome.report) {
      core.info(`pull request #${pr.number} is closed or gone; nothing to check`);
      return setOutputs(core, env, "neutral", 0, undefined);
    }
    report = outcome.report;
    await core.summary(outcome.output?.summary ?? checkOutput(report).summary);
    annotate(core, report);
    // What GitHub was (or would have been) shown: approvals that cannot be recorded still wait.
    const conclusion = outcome.output?.conclusion ?? report.conclusion;
    setOutputs(core, env, conclusion, report.violations.length, report);
    if (conclusion === "failure") core.fail(`taskgate: ${outcome.output?.title ?? "problems found"}`);
    else if (conclusion === "action_required") {
      if (fork) core.fail(`taskgate: ${outcome.output?.title}; approvals cannot be recorded on a fork's pull request`);
      else core.warning(`taskgate: ${outcome.output?.title}`);
    }
    return;
  }

  const local = await checkoutOf(env);
  if (mode === "audit") {
    const outcome = await auditDefaultBranch(api, { configPath, ...(local && { local }), log });
    report = outcome.report;
    await core.summary(checkOutput(report).summary);
    annotate(core, report);
    setOutputs(core, env, report.conclusion, report.violations.length, report);
    core.info(`tracking issue: ${outcome.issue}`);
    if (report.conclusion === "failure")
      core.fail(`taskgate: the audit of ${outcome.branch} found ${report.violations.length} problem(s)`);
    return;
  }
  const outcome = await followUp(api, { configPath, ...(local && { local }), log });
  core.info(
    outcome.files.length === 0
      ? `nothing to follow up on ${outcome.branch}`
      : `${outcome.files.length} file(s) followed up on ${outcome.branch}` +
          (outcome.committed ? ` in ${outcome.committed.slice(0, 7)}` : "") +
          (outcome.pullRequest ? ` through pull request #${outcome.pullRequest}` : ""),
  );
  setOutputs(core, env, "success", 0, undefined);
}

/** An Octokit for the job's token that honours GitHub Enterprise Server's API and GraphQL URLs. */
function octokitFor(token: string, env: NodeJS.ProcessEnv): InstanceType<typeof ActionOctokit> {
  const octokit = new ActionOctokit({
    auth: token,
    baseUrl: env.GITHUB_API_URL ?? "https://api.github.com",
    userAgent: "taskgate-action",
    throttle: {
      onRateLimit: (_after: number, _options: object, _octokit: unknown, retryCount: number) => retryCount < 2,
      onSecondaryRateLimit: () => false,
    },
  });
  if (env.GITHUB_GRAPHQL_URL) {
    const url = new URL(env.GITHUB_GRAPHQL_URL);
    octokit.graphql = octokit.graphql.defaults({
      baseUrl: url.origin + url.pathname.replace(/\/graphql\/?$/, ""),
      url: "/graphql",
    });
  }
  return octokit;
}

/** The workspace's checkout, when there is one: audits and follow-ups read task files from it. */
async function checkoutOf(env: NodeJS.ProcessEnv): Promise<GitRepository | undefined> {
  const workspace = env.GITHUB_WORKSPACE;
  if (!workspace || !existsSync(join(workspace, ".git"))) return undefined;
  try {
    return await GitRepository.open(workspace);
  } catch {
    return undefined;
  }
}

/** Workflow annotations on the files and lines of the problems (the run's page shows them). */
function annotate(core: Runner, report: Report): void {
  for (const item of report.violations.slice(0, 50)) {
    core.error(inertPlain(`${item.message} (how to fix: ${item.hint})`), {
      title: item.code,
      ...(item.path && { file: item.path }),
      ...(item.line !== undefined && { line: item.line }),
    });
  }
}

function setOutputs(
  core: Runner,
  env: NodeJS.ProcessEnv,
  conclusion: string,
  violations: number,
  report: Report | undefined,
): void {
  core.output("conclusion", conclusion);
  core.output("violations", String(violations));
  if (report) {
    const path = join(env.RUNNER_TEMP ?? env.TMPDIR ?? "/tmp", "taskgate-report.json");
    const { violations: v, pending, transitions, records } = report;
    writeFileSync(path, `${JSON.stringify({ conclusion, violations: v, pending, transitions, records }, null, 2)}\n`);
    core.output("report", path);
  }
}
