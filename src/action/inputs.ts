/**
 * What the Action reads from the runner before it does anything: the mode, the token, the repository,
 * the config path and the event. Light on purpose (no Octokit, no rules): the entry reads it to ask
 * GitHub its first question while the rest of the Action loads.
 */
import { existsSync, readFileSync } from "node:fs";
import { CONFIG_PATH } from "../core/index.js";
import type { Runner } from "./runner.js";

export type Mode = "check" | "audit" | "render";

/** A problem with the workflow's setup: reported as the step's failure, with what to change. */
export class ActionError extends Error {}

export interface Inputs {
  readonly mode: Mode;
  readonly event: string | undefined;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  readonly configPath: string;
  readonly payload: Record<string, unknown>;
}

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

/** Reads the runner's environment and masks the token; throws `ActionError` with what is missing. */
export function readInputs(env: NodeJS.ProcessEnv, core: Runner): Inputs {
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
  return { mode, event, token, owner, repo, configPath, payload: readEvent(env) };
}

function readEvent(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path || !existsSync(path)) return {};
  try {
    const event: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (event && typeof event === "object" && !Array.isArray(event)) return event as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ActionError(`cannot read the event at ${path}: it is not a JSON object`);
}
