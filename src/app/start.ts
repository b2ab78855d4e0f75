/**
 * `npm start`: the App as one server (Probot's), after the checks of `setup.ts`. Without APP_ID it
 * serves Probot's setup page, which registers the App from app.yml with the webhook URL it serves.
 * The pages under /taskgate/ are served beside the webhooks when their settings are set.
 */
import { fileURLToPath } from "node:url";
import { run, type Server } from "probot";
import { describeFailure } from "../github/errors.js";
import { taskgateApp } from "./index.js";
import { createLog } from "./log.js";
import { TaskgateOctokit } from "./octokit.js";
import { StartupError, applyDotEnv, checkWebhookSecret, registerWithOwnWebhookPath } from "./setup.js";

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<Server> {
  applyDotEnv(env);
  // Before the App is registered there is no secret yet: the setup page gets one from GitHub.
  if (env.APP_ID) checkWebhookSecret(env);
  await registerWithOwnWebhookPath(env);
  const log = await createLog({ level: env.LOG_LEVEL, format: env.LOG_FORMAT });
  return run(taskgateApp({ env }), { log, Octokit: TaskgateOctokit } as never);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  start().catch((error: unknown) => {
    const message = error instanceof StartupError ? error.message : describeFailure(error);
    process.stderr.write(`taskgate: ${message}\n`);
    process.exit(1);
  });
}
