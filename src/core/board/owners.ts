/**
 * Owner strings of a board: a GitHub login, or `login/agent-id` for one of the short-lived agents a
 * login runs. Compared case-insensitively, as GitHub compares logins: for ownership, the one-task
 * limit and retirement.
 */

/** A GitHub login (letters, digits, single hyphens inside), optionally a bot's `[bot]` suffix. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}(?:\[bot\])?$/;
/** An agent id: letters, digits, `.`, `_`, `-`; never `..`. */
const AGENT = /^[A-Za-z0-9._-]{1,100}$/;

export interface Owner {
  readonly login: string;
  readonly agent: string | undefined;
}

/** Parses an owner string; `undefined` when it is not `login` or `login/agent-id`. */
export function parseOwner(text: string): Owner | undefined {
  const slash = text.indexOf("/");
  const login = slash < 0 ? text : text.slice(0, slash);
  const agent = slash < 0 ? undefined : text.slice(slash + 1);
  if (!LOGIN.test(login)) return undefined;
  if (agent !== undefined && (!AGENT.test(agent) || agent.includes(".."))) return undefined;
  return { login, agent };
}

export function isLogin(text: string): boolean {
  return LOGIN.test(text);
}

/** The key owners are compared by. */
export function ownerKey(owner: string): string {
  return owner.toLowerCase();
}

export function sameOwner(a: string | null | undefined, b: string | null | undefined): boolean {
  return a != null && b != null && ownerKey(a) === ownerKey(b);
}

/** Does an owner string belong to a login (the login itself or one of its agents)? */
export function ownedBy(owner: string, login: string): boolean {
  const parsed = parseOwner(owner);
  return parsed !== undefined && parsed.login.toLowerCase() === login.toLowerCase();
}

export const OWNER_HINT =
  "An owner is a GitHub login or login/agent-id (agent-id: letters, digits, . _ -; no spaces, no `..`).";
