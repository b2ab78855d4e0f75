/**
 * taskgate as a Node request handler, for serverless platforms and existing HTTP servers: Probot's
 * `createNodeMiddleware` around the same app, configured from the environment (APP_ID, PRIVATE_KEY,
 * WEBHOOK_SECRET, ...). It refuses to be built without a webhook secret of its own, verifies webhook
 * signatures and answers at /api/github/webhooks; the pages answer under /taskgate/ (see
 * docs/deploy.md).
 */
import type { Logger } from "pino";
import { createNodeMiddleware, createProbot } from "probot";
import { taskgateApp } from "./index.js";
import { createLog } from "./log.js";
import { TaskgateOctokit } from "./octokit.js";
import { checkWebhookSecret } from "./setup.js";

export async function taskgateMiddleware(
  options: { env?: NodeJS.ProcessEnv; log?: Logger } = {},
): Promise<Awaited<ReturnType<typeof createNodeMiddleware>>> {
  const env = options.env ?? process.env;
  checkWebhookSecret(env);
  const log = options.log ?? (await createLog({ level: env.LOG_LEVEL, format: env.LOG_FORMAT }));
  return createNodeMiddleware(taskgateApp({ env }), {
    probot: createProbot({ env, overrides: { log, Octokit: TaskgateOctokit } as never }),
  });
}
