/**
 * The pages' access check asks GitHub through `GitHubApi.canRead` with the visitor's token: each
 * answer of GitHub's becomes allowed, denied, signed out or unknown, and only the first two are kept.
 */
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AccessCheck, AccessUnknownError } from "../../src/app/pages/access.js";

const API = "https://api.github.example";

beforeEach(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

function answer(status: number, headers: Record<string, string> = {}): nock.Scope {
  return nock(API, {
    reqheaders: { authorization: "Bearer ghu_dana", "x-github-api-version": "2022-11-28" },
  })
    .get("/repos/acme/web")
    .reply(status, status === 200 ? { full_name: "acme/web" } : { message: "no" }, headers);
}

describe("the visitor's access", () => {
  it("is allowed on 200 and kept for a minute", async () => {
    let now = 0;
    const check = new AccessCheck(API, () => now);
    const scope = answer(200);
    expect(await check.check("ghu_dana", "acme", "web")).toBe("allowed");
    expect(await check.check("ghu_dana", "acme", "web")).toBe("allowed");
    expect(scope.isDone()).toBe(true);
    now = 60_001;
    answer(404);
    expect(await check.check("ghu_dana", "acme", "web")).toBe("denied");
  });

  it("is denied on 404, 403 and a redirect to a moved repository", async () => {
    for (const [status, headers] of [
      [404, {}],
      [403, { "x-ratelimit-remaining": "12" }],
      [301, { location: `${API}/repositories/1` }],
    ] as const) {
      answer(status, headers);
      expect(await new AccessCheck(API).check("ghu_dana", "acme", "web"), String(status)).toBe("denied");
    }
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("signs out on 401, and is unknown on a rate limit, a 5xx or no answer, none of them kept", async () => {
    const check = new AccessCheck(API);
    answer(401);
    expect(await check.check("ghu_dana", "acme", "web")).toBe("signed-out");
    answer(403, { "x-ratelimit-remaining": "0" });
    await expect(check.check("ghu_dana", "acme", "web")).rejects.toThrow(AccessUnknownError);
    answer(503);
    await expect(check.check("ghu_dana", "acme", "web")).rejects.toThrow("GitHub answered 503");
    nock(API).get("/repos/acme/web").replyWithError({ code: "ECONNRESET", message: "reset" });
    await expect(check.check("ghu_dana", "acme", "web")).rejects.toThrow("GitHub did not answer");
    answer(200);
    expect(await check.check("ghu_dana", "acme", "web")).toBe("allowed");
    expect(nock.pendingMocks()).toEqual([]);
  });
});
