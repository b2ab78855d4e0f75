/**
 * The taskgate GitHub App (Probot). Thin: each webhook names a pull request; the flow in
 * `github/flow.ts` judges it, records what its reviews decided and reports. Nothing is kept between
 * deliveries, so any replica can take any delivery.
 */
import type { ApplicationFunction, Context } from "probot";
import { GitHubApi } from "../github/api.js";
import { checkPullRequest, type Trigger } from "../github/flow.js";

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

  probot.on("check_suite.rerequested", async (context) => {
    const numbers = context.payload.check_suite.pull_requests.map((pr) => pr.number);
    await run(context, numbers, { record: true, sender: context.payload.sender?.login });
  });
};

export default app;
