/**
 * What the App checks before it serves anything, and how it registers. It never starts without a
 * webhook secret of its own (an App that accepts Probot's public default accepts anyone's
 * deliveries), and Probot's manifest flow registers it with the webhook URL it really serves: the
 * smee proxy in development, else the server's own address with the App's webhook path (Probot's
 * manifest would send deliveries to `/`), and with the pages' sign-in callback. Probot's setup writes
 * the App's OAuth credentials (`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`) to `.env` with the rest,
 * and `applyDotEnv` reads them back, so the pages' sign-in uses them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

/** Where the App receives deliveries (Probot's default, `WEBHOOK_PATH` to change it). */
export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";
/** Probot's default webhook secret: public, so it is no secret. */
const PROBOT_DEFAULT_SECRET = "development";

/** A setting the App cannot start without: the message names the variable to set. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

/** Reads `.env` from the working directory into `env`, as Probot does (values in `.env` win). */
export function applyDotEnv(env: NodeJS.ProcessEnv, dir = process.cwd()): void {
  let text: string;
  try {
    text = readFileSync(join(dir, ".env"), "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw error;
  }
  Object.assign(env, parseEnv(text));
}

/** Refuses to run without a webhook secret, or with Probot's public default. */
export function checkWebhookSecret(env: NodeJS.ProcessEnv): void {
  const secret = env.WEBHOOK_SECRET ?? "";
  if (secret.trim() === "" || secret === PROBOT_DEFAULT_SECRET) {
    throw new StartupError(
      `${secret === PROBOT_DEFAULT_SECRET ? `WEBHOOK_SECRET is Probot's public default ("${PROBOT_DEFAULT_SECRET}")` : "WEBHOOK_SECRET is not set"}: ` +
        "taskgate does not start, since anyone could sign deliveries to it. Set WEBHOOK_SECRET to the webhook secret of " +
        "your GitHub App (Probot's setup page writes it to .env; the App's settings page can set a new one).",
    );
  }
}

/**
 * The manifest Probot's setup flow posts to GitHub, with the webhook URL and the redirect the App
 * really serves: `generated` is what Probot made of app.yml for `baseUrl`.
 */
export function registeredManifest(generated: string, baseUrl: string, env: NodeJS.ProcessEnv): string {
  const manifest = JSON.parse(generated) as {
    hook_attributes?: Record<string, unknown>;
    redirect_url?: string;
    callback_urls?: string[];
  };
  const base = baseUrl.replace(/\/+$/, "");
  const path = env.WEBHOOK_PATH || DEFAULT_WEBHOOK_PATH;
  manifest.hook_attributes = {
    ...manifest.hook_attributes,
    url: env.WEBHOOK_PROXY_URL || `${base}${path.startsWith("/") ? path : `/${path}`}`,
  };
  manifest.redirect_url = `${base}/probot/setup`;
  // The pages' sign-in: GitHub sends visitors back here (TASKGATE_URL when set, else this server).
  manifest.callback_urls = [`${(env.TASKGATE_URL?.trim() || base).replace(/\/+$/, "")}/taskgate/callback`];
  return JSON.stringify(manifest);
}

interface ManifestCreationClass {
  prototype: { getManifest(options: { pkg: unknown; baseUrl: string }): string };
}

/** Probot's own `ManifestCreation` (the class its setup page uses; not among its package exports). */
export async function probotManifestCreation(): Promise<ManifestCreationClass> {
  const url = new URL("./manifest-creation.js", import.meta.resolve("probot"));
  return ((await import(url.href)) as { ManifestCreation: ManifestCreationClass }).ManifestCreation;
}

let installed = false;
let registering: NodeJS.ProcessEnv = process.env;

/** Makes Probot's setup page register the App with `registeredManifest` (the environment given last). */
export async function registerWithOwnWebhookPath(env: NodeJS.ProcessEnv): Promise<void> {
  registering = env;
  if (installed) return;
  installed = true;
  const ManifestCreation = await probotManifestCreation();
  const original = ManifestCreation.prototype.getManifest;
  ManifestCreation.prototype.getManifest = function (this: unknown, options) {
    return registeredManifest(original.call(this, options), options.baseUrl, registering);
  };
}
