/**
 * Who may see a repository's pages: exactly those to whom GitHub answers 200 for
 * `GET /repos/<owner>/<repo>` with their own token. The answer is kept for a minute per (token's
 * hash, repository), so a visitor who browses costs GitHub one request a minute per repository.
 */
import { createHash } from "node:crypto";
import { API_VERSION, GITHUB_DEADLINE_MS } from "./oauth.js";

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
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl}/repos/${owner}/${repo}`, {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${token}`,
          "x-github-api-version": API_VERSION,
          "user-agent": "taskgate",
        },
        redirect: "manual",
        signal: AbortSignal.timeout(GITHUB_DEADLINE_MS),
      });
    } catch (error) {
      throw new AccessUnknownError(`GitHub did not answer: ${(error as Error).message}`);
    }
    await response.body?.cancel();
    if (response.status === 200) return "allowed";
    if (response.status === 401) return "signed-out";
    if (response.headers.get("x-ratelimit-remaining") === "0") throw new AccessUnknownError("GitHub's rate limit");
    // A renamed or moved repository (301) is not this page's: the same 404 as any other.
    if (response.status === 404 || response.status === 403 || response.status === 301) return "denied";
    throw new AccessUnknownError(`GitHub answered ${response.status}`);
  }
}
