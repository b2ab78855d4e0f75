/**
 * Who may see a repository's pages: exactly those to whom GitHub answers 200 for
 * `GET /repos/<owner>/<repo>` with their own token. The answer is kept for a minute per (token's
 * hash, repository), so a visitor who browses costs GitHub one request a minute per repository.
 */
import { createHash } from "node:crypto";
import { Octokit } from "@octokit/rest";
import { GitHubApi } from "../../github/api.js";
import { GitHubError } from "../../github/errors.js";
import { taskgateRequests } from "../../github/octokit.js";
import { GITHUB_DEADLINE_MS } from "./oauth.js";

/**
 * An Octokit signed in as the visitor: the API version header and the 10 s deadline of every
 * taskgate Octokit, and no retries (a failure shows the visitor a 502 at once; the next view asks
 * again).
 */
const VisitorOctokit = Octokit.plugin(taskgateRequests as never);

/** A `GitHubApi` for one repository, asking with the visitor's token. */
export function visitorApi(apiUrl: string, token: string, owner: string, repo: string): GitHubApi {
  const octokit = new VisitorOctokit({
    baseUrl: apiUrl,
    userAgent: "taskgate",
    taskgate: { deadlineMs: GITHUB_DEADLINE_MS },
  } as never);
  // An OAuth token, sent as GitHub documents it for one (Octokit's `auth` would say `token`).
  octokit.hook.before("request", (options) => {
    options.headers.authorization = `Bearer ${token}`;
  });
  return new GitHubApi(octokit, { owner, repo });
}

/** How long an answer is kept. */
export const ACCESS_CACHE_MS = 60_000;
/** At most this many answers are kept (the oldest go first). */
const CACHE_LIMIT = 10_000;

/** `allowed`: GitHub answered 200; `denied`: 404 or 403; `signed-out`: the token is no longer good. */
export type Access = "allowed" | "denied" | "signed-out";

/** GitHub did not answer whether the visitor may read the repository (a 5xx, a timeout). */
export class AccessUnknownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AccessUnknownError";
  }
}

export class AccessCheck {
  private readonly answers = new Map<string, { access: Access; until: number }>();

  constructor(
    private readonly apiUrl: string,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async check(token: string, owner: string, repo: string): Promise<Access> {
    const key = `${createHash("sha256").update(token).digest("hex")} ${owner}/${repo}`.toLowerCase();
    const kept = this.answers.get(key);
    if (kept && kept.until > this.now()) return kept.access;
    const access = await this.ask(token, owner, repo);
    this.answers.delete(key);
    if (access === "signed-out") return access;
    if (this.answers.size >= CACHE_LIMIT) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, { access, until: this.now() + ACCESS_CACHE_MS });
    return access;
  }

  private async ask(token: string, owner: string, repo: string): Promise<Access> {
    try {
      // A renamed or moved repository (a redirect) is not this page's: the same 404 as any other.
      return (await visitorApi(this.apiUrl, token, owner, repo).canRead()) ? "allowed" : "denied";
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      if (error.is(401)) return "signed-out";
      if (error.rateLimited) throw new AccessUnknownError("GitHub's rate limit");
      if (error.is(404, 403)) return "denied";
      throw new AccessUnknownError(
        error.status === undefined ? `GitHub did not answer: ${error.message}` : `GitHub answered ${error.status}`,
      );
    }
  }
}
