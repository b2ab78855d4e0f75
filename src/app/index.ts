/**
 * The taskgate GitHub App (Probot). Thin: each webhook names a pull request; the flow in
 * `github/flow.ts` judges it, records what its reviews decided and reports. Nothing is kept between
 * deliveries, so any replica can take any delivery.
 */
import type { ApplicationFunction, Context } from "probot";
import { GitHubApi } from "../github/api.js";
import { auditDefaultBranch } from "../github/audit.js";
import { checkPullRequest, type Trigger } from "../github/flow.js";
import { followUp } from "../github/followups.js";

const PULL_REQUEST_EVENTS = [
  "pull_request.opened",
  "pull_request.synchronize",
  "pull_request.reopened",
  "pull_request.edited",
  "pull_request.ready_for_review",
] as const;

const REVIEW_EVENTS = [
  "pull_request_review.submitted",
  "pull_request_review.edited",
  "pull_request_review.dismissed",
] as const;

type AnyContext = Context<"pull_request" | "pull_request_review" | "check_run" | "check_suite">;

async function run(context: AnyContext, numbers: readonly number[], trigger: Trigger): Promise<void> {
  const api = new GitHubApi(context.octokit, context.repo());
  for (const number of [...new Set(numbers)]) {
    const outcome = await checkPullRequest(api, number, trigger, context.log);
    if (outcome.evaluated) {
      context.log.info(
        `#${number} at ${outcome.headSha?.slice(0, 7)}: ${outcome.report?.conclusion}` +
          `${outcome.recorded ? `, recorded ${outcome.recorded.slice(0, 7)}` : ""}; check ${outcome.check}, comment ${outcome.comment}`,
      );
    }
  }
}

export const app: ApplicationFunction = (probot) => {
  probot.on([...PULL_REQUEST_EVENTS], async (context) => {
    const { pull_request: pr, sender } = context.payload;
    // A push the bot made itself is judged, but never records again (no loop): the flow compares
    // the sender with the configured bot.
    await run(context, [pr.number], { record: true, ...(sender && { sender: sender.login }), headSha: pr.head.sha });
  });

  probot.on([...REVIEW_EVENTS], async (context) => {
    const { pull_request: pr, sender } = context.payload;
    await run(context, [pr.number], { record: true, ...(sender && { sender: sender.login }) });
  });

  probot.on("check_run.rerequested", async (context) => {
    const numbers = context.payload.check_run.pull_requests.map((pr) => pr.number);
    await run(context, numbers, { record: true, sender: context.payload.sender?.login });
  });

  // After a merge: unblocks and status files on the default branch. Idempotent, so the bot's own
  // push finds nothing left to do.
  probot.on("push", async (context) => {
    const { ref, repository, deleted } = context.payload;
    if (deleted || ref !== `refs/heads/${repository.default_branch}`) return;
    const api = new GitHubApi(context.octokit, context.repo());
    const outcome = await followUp(api, { log: context.log });
    context.log.info(
      `follow-ups on ${outcome.branch} at ${outcome.sha.slice(0, 7)}: ${outcome.files.length} file(s)` +
        (outcome.committed ? `, committed ${outcome.committed.slice(0, 7)}` : "") +
        (outcome.pullRequest ? `, sync pull request #${outcome.pullRequest}` : ""),
    );
  });

  // The audit of the default branch, on demand or on a schedule: a scheduled workflow (or anyone
  // with write access) sends a repository dispatch of type `taskgate-audit`.
  probot.on("repository_dispatch", async (context) => {
    if (context.payload.action !== "taskgate-audit") return;
    const api = new GitHubApi(context.octokit, context.repo());
    await auditDefaultBranch(api, { log: context.log });
  });

  probot.on("check_suite.rerequested", async (context) => {
    const numbers = context.payload.check_suite.pull_requests.map((pr) => pr.number);
    await run(context, numbers, { record: true, sender: context.payload.sender?.login });
  });
};

export default app;
