/**
 * taskgate as a Node request handler, for serverless platforms and existing HTTP servers: Probot's
 * `createNodeMiddleware` around the same app, configured from the environment (APP_ID, PRIVATE_KEY,
 * WEBHOOK_SECRET, ...). It verifies webhook signatures and answers at /api/github/webhooks.
 */
import { createNodeMiddleware, createProbot } from "probot";
import { app } from "./index.js";

export function taskgateMiddleware(): ReturnType<typeof createNodeMiddleware> {
  return createNodeMiddleware(app, { probot: createProbot() });
}
