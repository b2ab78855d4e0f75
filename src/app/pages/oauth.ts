/**
 * GitHub's OAuth web flow with the App's own OAuth credentials: the authorize URL, and the exchange
 * of the code GitHub sends back for the visitor's token. Also where a visitor may be sent after
 * signing in: a path under /taskgate/ of this server, never anywhere else.
 */
import type { PagesConfig } from "./config.js";

/** Every request to GitHub is abandoned after this long. */
export const GITHUB_DEADLINE_MS = 10_000;

/** Where to go when `next` is missing or refused. */
export const NO_NEXT = "/taskgate/";

const NEXT_PATTERN = /^\/taskgate\/[A-Za-z0-9._~\-/?=&+%]*$/;

/**
 * `next` when it is a same-origin path under /taskgate/: no scheme, no `//`, no backslash, no dot
 * segments, nothing encoded as a slash, a backslash or a dot; else undefined.
 */
export function safeNext(next: string | null | undefined): string | undefined {
  if (!next || next.length > 512 || !NEXT_PATTERN.test(next)) return undefined;
  const path = next.split("?")[0]!;
  if (path.includes("//") || /(^|\/)\.\.?(\/|$)/.test(path)) return undefined;
  if (/%(2f|5c|2e|00)/i.test(next)) return undefined;
  return next;
}

export function redirectUri(config: PagesConfig): string {
  return `${config.url}/taskgate/callback`;
}

/** GitHub's authorize URL for this sign-in. */
export function authorizeUrl(config: PagesConfig, state: string): string {
  const url = new URL(`${config.webUrl}/login/oauth/authorize`);
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", redirectUri(config));
  url.searchParams.set("state", state);
  url.searchParams.set("allow_signup", "false");
  return url.href;
}

export interface VisitorToken {
  readonly token: string;
  /** Seconds until GitHub expires it, when it says. */
  readonly expiresIn?: number;
}

/**
 * Exchanges the code for the visitor's token; undefined when GitHub refuses the code. This is the
 * one call to GitHub made with `fetch` and not through `GitHubApi`: it goes to GitHub's web host
 * (`/login/oauth/access_token`), not its REST API, so neither Octokit nor `GitHubError` applies.
 */
export async function exchangeCode(config: PagesConfig, code: string): Promise<VisitorToken | undefined> {
  const response = await fetch(`${config.webUrl}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({
      client_id: config.clientId,
      client_secret: config.clientSecret,
      code,
      redirect_uri: redirectUri(config),
    }),
    redirect: "error",
    signal: AbortSignal.timeout(GITHUB_DEADLINE_MS),
  });
  if (!response.ok) return undefined;
  const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== "string" || body.access_token === "") return undefined;
  return {
    token: body.access_token,
    ...(typeof body.expires_in === "number" && body.expires_in > 0 && { expiresIn: body.expires_in }),
  };
}
