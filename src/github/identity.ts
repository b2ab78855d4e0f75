/**
 * Which writes on GitHub are taskgate's own, by what GitHub enforces: the App's id on what the App
 * wrote (`performed_via_github_app`, a check suite's app), else the token's login. A name, a label
 * or a hidden marker only finds a candidate; it never makes a comment, issue or run taskgate's.
 */
import type { Identity } from "./api.js";

export interface Self extends Identity {
  /** The token's login (GitHub's `viewer`): the App's bot, or `github-actions[bot]` under the Action. */
  readonly login: string;
}

/** Is `login` (as REST writes it, `slug[bot]` for a bot) the token's account? */
export function isSelf(
  user: { readonly login: string; readonly type?: string } | null | undefined,
  self: Self,
): boolean {
  if (!user) return false;
  const login = user.login.toLowerCase();
  const mine = self.login.toLowerCase();
  if (login === mine) return true;
  // A viewer login without the suffix names a bot only when GitHub says the account is one.
  return user.type === "Bot" && !mine.endsWith("[bot]") && login === `${mine}[bot]`;
}

/** Did taskgate write this comment, issue or pull request? */
export function writtenBy(
  item: {
    readonly user?: { readonly login: string; readonly type?: string } | null;
    readonly performed_via_github_app?: { readonly id: number } | null;
  },
  self: Self,
): boolean {
  // An App's bot login (`slug[bot]`) is its own; GitHub also names the App that acted, when it does.
  if (self.appId !== undefined && item.performed_via_github_app) return item.performed_via_github_app.id === self.appId;
  return isSelf(item.user, self);
}
