/**
 * The taskgate GitHub App (Probot). Thin: each webhook names a pull request; the flow in
 * `github/flow.ts` judges it, records what its reviews decided and reports. Nothing is kept between
 * deliveries, so any replica can take any delivery. An event that cannot change a result (a comment
 * review, an edited title, another app's check, the App's own push) stops before it costs more than
 * one request.
 */
import type { ApplicationFunction, Context, Probot } from "probot";
import { GitHubApi } from "../github/api.js";
import { auditDefaultBranch } from "../github/audit.js";
import { checkPullRequest, judgedAlready, type Trigger } from "../github/flow.js";
import { followUp } from "../github/followups.js";
import { guarded } from "./guard.js";
import { pagesSetup } from "./pages/config.js";
import type { PageRenderer } from "./pages/render.js";
import { servePages } from "./pages/serve.js";
import { viewsRenderer } from "./pages/views.js";

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

type AnyContext = Context<
  "pull_request" | "pull_request_review" | "check_run" | "check_suite" | "push" | "repository_dispatch"
>;

/** The App's id, as its own credentials say (no request: the app's JWT is made locally). */
async function appIdOf(context: AnyContext): Promise<number> {
  const auth = (await context.octokit.auth({ type: "app" })) as { appId?: number | string };
  return Number(auth.appId);
}

async function apiOf(context: AnyContext): Promise<GitHubApi> {
  return new GitHubApi(context.octokit, context.repo(), { appId: await appIdOf(context) });
}

/** The public base URL of the pages (`TASKGATE_URL`) when they are on: the check links to them. */
type PagesUrl = string | undefined;

async function run(
  context: AnyContext,
  numbers: readonly number[],
  trigger: Trigger,
  pagesUrl: PagesUrl,
): Promise<void> {
  const api = await apiOf(context);
  const { owner, repo } = context.repo();
  for (const number of [...new Set(numbers)]) {
    const page = pagesUrl && `${pagesUrl}/taskgate/${owner}/${repo}/pull/${number}`;
    const options = page && { as: "check" as const, targetUrl: page, pageUrl: page };
    const outcome = await checkPullRequest(api, number, trigger, context.log, options || undefined);
    if (outcome.evaluated) {
      context.log.info(
        `#${number} at ${outcome.headSha?.slice(0, 7)}: ${outcome.report?.conclusion}` +
          `${outcome.recorded ? `, recorded ${outcome.recorded.slice(0, 7)}` : ""}; check ${outcome.check}, comment ${outcome.comment}`,
      );
    }
  }
}

/** The pull requests a check event names that belong to this repository (a fork's share the commit). */
function ownPullRequests(
  pulls: readonly { number: number; base: { repo: { id: number } } }[],
  repository: { id: number },
): number[] {
  return pulls.filter((pull) => pull.base.repo.id === repository.id).map((pull) => pull.number);
}

/** The pull request's own events: a new head, a new base, a review. */
function onPullRequests(probot: Probot, pagesUrl: PagesUrl): void {
  probot.on(
    [...PULL_REQUEST_EVENTS],
    guarded("pull request", async (context: Context<"pull_request">) => {
      const { pull_request: pr, sender } = context.payload;
      // An edited title or body changes nothing taskgate judges; a new base does.
      if (context.payload.action === "edited" && !("changes" in context.payload && context.payload.changes.base))
        return;
      // The App's own push (its record commit) was judged by the delivery that made it.
      if (
        context.payload.action === "synchronize" &&
        sender?.type === "Bot" &&
        (await judgedAlready(await apiOf(context), pr.base.ref, pr.head.sha))
      ) {
        return;
      }
      const trigger = { record: true, ...(sender && { sender: sender.login }), headSha: pr.head.sha };
      await run(context, [pr.number], trigger, pagesUrl);
    }),
  );

  probot.on(
    [...REVIEW_EVENTS],
    guarded("review", async (context: Context<"pull_request_review">) => {
      const { pull_request: pr, sender, review } = context.payload;
      // A comment review decides nothing, and an edited review keeps its state: neither changes a result.
      if (context.payload.action === "edited") return;
      if (context.payload.action === "submitted" && review.state.toLowerCase() === "commented") return;
      await run(context, [pr.number], { record: true, ...(sender && { sender: sender.login }) }, pagesUrl);
    }),
  );
}

/** A check asked for again, a push to the default branch, an audit on demand. */
function onRepositoryEvents(probot: Probot, pagesUrl: PagesUrl): void {
  probot.on(
    "check_run.rerequested",
    guarded("check run", async (context: Context<"check_run.rerequested">) => {
      const { check_run: checkRun, repository, sender } = context.payload;
      if (checkRun.app?.id !== (await appIdOf(context))) return;
      await run(
        context,
        ownPullRequests(checkRun.pull_requests, repository),
        { record: true, sender: sender?.login },
        pagesUrl,
      );
    }),
  );

  probot.on(
    "check_suite.rerequested",
    guarded("check suite", async (context: Context<"check_suite.rerequested">) => {
      const { check_suite: suite, repository, sender } = context.payload;
      if (suite.app?.id !== (await appIdOf(context))) return;
      await run(
        context,
        ownPullRequests(suite.pull_requests, repository),
        { record: true, sender: sender?.login },
        pagesUrl,
      );
    }),
  );

  // After a merge: unblocks and status files on the default branch. Idempotent, so the bot's own
  // push finds nothing left to do.
  probot.on(
    "push",
    guarded("push", async (context: Context<"push">) => {
      const { ref, repository, deleted } = context.payload;
      if (deleted || ref !== `refs/heads/${repository.default_branch}`) return;
      const outcome = await followUp(await apiOf(context), { log: context.log });
      context.log.info(
        `follow-ups on ${outcome.branch} at ${outcome.sha.slice(0, 7)}: ${outcome.files.length} file(s)` +
          (outcome.committed ? `, committed ${outcome.committed.slice(0, 7)}` : "") +
          (outcome.pullRequest ? `, sync pull request #${outcome.pullRequest}` : "") +
          (outcome.refused ? `; ${outcome.refused}` : ""),
      );
    }),
  );

  // The audit of the default branch, on demand or on a schedule: a scheduled workflow (or anyone
  // with write access) sends a repository dispatch of type `taskgate-audit`.
  probot.on(
    "repository_dispatch",
    guarded("audit", async (context: Context<"repository_dispatch">) => {
      if (context.payload.action !== "taskgate-audit") return;
      await auditDefaultBranch(await apiOf(context), { log: context.log });
    }),
  );
}

/** The webhooks alone, as before the pages: a check links to the pull request on GitHub. */
export const app: ApplicationFunction = (probot) => {
  onPullRequests(probot, undefined);
  onRepositoryEvents(probot, undefined);
};

/**
 * The App as `npm start` and the middleware serve it: the webhooks, and the pages under /taskgate/
 * (on when the environment holds their settings; a check then links to its pull request's page).
 */
export function taskgateApp(options: { env?: NodeJS.ProcessEnv; renderer?: PageRenderer } = {}): ApplicationFunction {
  return (probot, appOptions) => {
    const setup = pagesSetup(options.env ?? process.env);
    const pagesUrl = setup.on ? setup.config.url : undefined;
    onPullRequests(probot, pagesUrl);
    onRepositoryEvents(probot, pagesUrl);
    servePages(probot, appOptions, setup, options.renderer ?? viewsRenderer);
  };
}

export default app;
