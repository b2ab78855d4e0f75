/**
 * The taskgate GitHub Action: the same handlers as the app, run from a workflow. Thin: it reads the
 * event, builds an Octokit from the job's token, calls the flow for the mode, writes the step summary
 * and outputs, and fails the step with a clear message on any error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { CONFIG_PATH } from "../core/config.js";
import { redactSecrets } from "../core/secrets.js";
import type { Report } from "../core/types.js";
import { GitRepository } from "../git/repository.js";
import { GitHubApi } from "../github/api.js";
import { auditDefaultBranch } from "../github/audit.js";
import { checkPullRequest, type Logger } from "../github/flow.js";
import { followUp } from "../github/followups.js";
import { checkOutput } from "../github/summary.js";
import { runner, type Runner } from "./runner.js";

export type Mode = "check" | "audit" | "render";

const ActionOctokit = Octokit.plugin(retry, throttling);

/** The mode an event asks for when the workflow does not say. */
export function modeFor(event: string | undefined): Mode | undefined {
  switch (event) {
    case "pull_request":
    case "pull_request_target":
    case "pull_request_review":
      return "check";
    case "schedule":
    case "workflow_dispatch":
      return "audit";
    case "push":
      return "render";
    default:
      return undefined;
  }
}

class ActionError extends Error {}

/** Runs the Action; the exit code is set through `core.setFailed` on failure. */
export async function main(env: NodeJS.ProcessEnv = process.env, core: Runner = runner(env)): Promise<void> {
  try {
    await run(env, core);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const status = (error as { status?: number }).status;
    const hint =
      status === 403
        ? " (the token lacks a permission: give the workflow `permissions:` as docs/action.md shows)"
        : status === 401
          ? " (the token was refused)"
          : "";
    core.fail(redactSecrets(`taskgate: ${message}${hint}`));
  }
}

async function run(env: NodeJS.ProcessEnv, core: Runner): Promise<void> {
  const event = env.GITHUB_EVENT_NAME;
  const mode = (core.input("mode") || modeFor(event)) as Mode | undefined;
  if (!mode || !["check", "audit", "render"].includes(mode)) {
    throw new ActionError(
      `no mode for the event "${event ?? "(none)"}"; set the input \`mode\` to check, audit or render`,
    );
  }
  const token = core.input("token") || env.GITHUB_TOKEN;
  if (!token) throw new ActionError("no token: pass `token: ${{ github.token }}` (the default) or a token of your own");
  core.mask(token);
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo) throw new ActionError("GITHUB_REPOSITORY is not set; run the Action inside a workflow");
  const configPath = core.input("config") || CONFIG_PATH;
  const api = new GitHubApi(octokitFor(token, env), { owner, repo });
  const log: Logger = { info: (message) => core.info(message), warn: (message) => core.warning(message) };
  const payload = readEvent(env);

  let report: Report;
  if (mode === "check") {
    const pr = payload.pull_request as
      | { number: number; head: { sha: string; repo?: { full_name?: string } | null } }
      | undefined;
    if (!pr) throw new ActionError(`check mode needs a pull_request or pull_request_review event, not "${event}"`);
    const fork = Boolean(pr.head.repo?.full_name && pr.head.repo.full_name !== `${owner}/${repo}`);
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
    core.summary(outcome.output?.summary ?? checkOutput(report).summary);
    annotate(core, report);
    setOutputs(core, env, report.conclusion, report.violations.length, report);
    if (report.conclusion === "failure") core.fail(`taskgate: ${outcome.output?.title ?? "problems found"}`);
    else if (report.conclusion === "action_required") {
      if (fork) core.fail(`taskgate: ${outcome.output?.title}; approvals cannot be recorded on a fork's pull request`);
      else core.warning(`taskgate: ${outcome.output?.title}`);
    }
    return;
  }

  const local = await checkoutOf(env);
  if (mode === "audit") {
    const outcome = await auditDefaultBranch(api, { configPath, ...(local && { local }), log });
    report = outcome.report;
    core.summary(checkOutput(report).summary);
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

function readEvent(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path || !existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    throw new ActionError(`cannot read the event at ${path}`);
  }
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
    core.error(`${item.message} (how to fix: ${item.hint})`, {
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
    const { conclusion: c, violations: v, pending, transitions, records } = report;
    writeFileSync(
      path,
      `${JSON.stringify({ conclusion: c, violations: v, pending, transitions, records }, null, 2)}\n`,
    );
    core.output("report", path);
  }
}
