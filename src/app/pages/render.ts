/**
 * What a page renderer implements: the routes check who may see a page, then hand it the page's
 * repository and an Octokit of the App's installation there. The App's renderer is `views.ts`;
 * `htmlPage` here is the minimal page of the routes' own answers.
 */
import type { Octokit } from "../../github/api.js";

/** The two pages: a repository's default branch, and one pull request. */
export type PageKind = "repository" | "pull";

export interface PageInput {
  readonly owner: string;
  readonly repo: string;
  /** The pull request's number (`pull` pages only). */
  readonly number?: number;
  /** The query string (filters such as `?state=`), as the visitor sent it. */
  readonly query: URLSearchParams;
  /** The App's installation on the repository: every read the page needs goes through it. */
  readonly octokit: Octokit;
  /** The App's id (for `GitHubApi`'s identity). */
  readonly appId: number;
  /** The public base URL (`TASKGATE_URL`), for absolute links. */
  readonly baseUrl: string;
}

/** A file the pages serve beside them (a stylesheet, a script): at `/taskgate/-/<name>`, without sign-in. */
export interface PageAsset {
  readonly type: string;
  readonly body: string | Buffer;
}

export interface PageRenderer {
  /** The page's HTML, or undefined for a 404 (no such pull request). Every repository text escaped. */
  render(kind: PageKind, input: PageInput): Promise<string | undefined>;
  /** A static file the pages link to, by name; undefined when there is none. */
  asset?(name: string): PageAsset | undefined;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/** A minimal page around `body` (already escaped HTML). */
export function htmlPage(title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head>\n<body>\n${body}\n</body></html>\n`
  );
}
