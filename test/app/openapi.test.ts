/**
 * Every REST request the App makes is one GitHub's published OpenAPI description has: a known
 * operation, declared query parameters, and a body with the required properties and allowed values.
 */
import { request as httpRequest } from "node:http";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { validateRequest } from "../helpers/openapi.js";
import { appSandbox, awaitingApproval, example, testProbot } from "../helpers/probot.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";

/** One request over HTTP on a connection of its own (closed after it, so the server can close). */
function ask(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = options.body === undefined ? undefined : JSON.stringify(options.body);
    const sent = httpRequest(url, {
      method: options.method ?? "GET",
      agent: false,
      headers: { ...options.headers, ...(text && { "content-type": "application/json" }) },
    });
    sent.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    sent.on("error", reject);
    sent.end(text);
  });
}
const REPO = "/repos/acme/web";

describe("validateRequest", () => {
  it("accepts the requests taskgate makes, as GitHub describes them", () => {
    expect(
      validateRequest({
        method: "GET",
        path: `${REPO}/commits/${SHA}/check-runs`,
        query: { check_name: "taskgate: main", app_id: "1", filter: "latest", per_page: "20" },
      }),
    ).toEqual([]);
    expect(
      validateRequest({
        method: "POST",
        path: `${REPO}/check-runs`,
        body: { name: "taskgate: main", head_sha: SHA, conclusion: "action_required", output: { title: "t" } },
      }),
    ).toEqual([]);
    expect(validateRequest({ method: "GET", path: `${REPO}/git/trees/${SHA}?recursive=1` })).toEqual([]);
    expect(validateRequest({ method: "GET", path: `${REPO}/issues/comments/5` })).toEqual([]);
    expect(validateRequest({ method: "DELETE", path: `${REPO}/issues/comments/5` })).toEqual([]);
    expect(validateRequest({ method: "GET", path: `${REPO}/compare/main...feature%2Fx` })).toEqual([]);
    expect(validateRequest({ method: "GET", path: `${REPO}/compare/main...feature/x` })).toEqual([]);
    expect(validateRequest({ method: "PATCH", path: `${REPO}/git/refs/heads/feature/x`, body: { sha: SHA } })).toEqual(
      [],
    );
    expect(validateRequest({ method: "PATCH", path: `${REPO}/git/refs/heads%2Ffeature`, body: { sha: SHA } })).toEqual(
      [],
    );
    expect(validateRequest({ method: "POST", path: "/app/installations/1/access_tokens" })).toEqual([]);
    expect(validateRequest({ method: "POST", path: "/graphql", body: { query: "{ viewer { login } }" } })).toEqual([]);
  });

  it("names an operation GitHub does not have", () => {
    expect(validateRequest({ method: "GET", path: `${REPO}/made-up/things` })).toEqual([
      `unknown operation: GitHub has no path ${REPO}/made-up/things`,
    ]);
    expect(validateRequest({ method: "PUT", path: `${REPO}/check-runs/5` })).toEqual([
      expect.stringMatching(
        /^unknown operation: GitHub has no PUT \/repos\/\{owner\}\/\{repo\}\/check-runs\/\{check_run_id\}/,
      ),
    ]);
    // Slashes only where GitHub allows them: a comment's id is one segment, and a number.
    expect(validateRequest({ method: "GET", path: `${REPO}/issues/comments/5/6` })).toHaveLength(1);
    expect(validateRequest({ method: "GET", path: "/graphql" })).toHaveLength(1);
  });

  it("names a query parameter the operation does not declare, or a value it does not allow", () => {
    expect(validateRequest({ method: "GET", path: `${REPO}/commits/${SHA}/check-runs`, query: { sort: "x" } })).toEqual(
      [
        "checks/list-for-ref (GET /repos/{owner}/{repo}/commits/{ref}/check-runs): query parameter sort is not declared",
      ],
    );
    expect(validateRequest({ method: "GET", path: `${REPO}/commits/${SHA}/check-runs?filter=newest` })).toEqual([
      expect.stringContaining('query parameter filter "newest" is not one of latest, all'),
    ]);
    expect(validateRequest({ method: "GET", path: `${REPO}/issues`, query: { state: "merged" } })).toEqual([
      expect.stringContaining('query parameter state "merged" is not one of open, closed, all'),
    ]);
    expect(validateRequest({ method: "GET", path: `${REPO}/issues`, query: { per_page: "many" } })).toEqual([
      expect.stringContaining('query parameter per_page "many" is not an integer'),
    ]);
  });

  it("names a missing required body property, an undeclared one, and a value outside an enum", () => {
    expect(validateRequest({ method: "POST", path: `${REPO}/check-runs`, body: { name: "taskgate: main" } })).toEqual([
      expect.stringContaining("body property head_sha is required"),
    ]);
    expect(
      validateRequest({
        method: "POST",
        path: `${REPO}/check-runs`,
        body: { name: "n", head_sha: SHA, colour: "red" },
      }),
    ).toEqual([expect.stringContaining("body property colour is not declared")]);
    expect(
      validateRequest({
        method: "PATCH",
        path: `${REPO}/check-runs/5`,
        body: { conclusion: "approved" },
      }),
    ).toEqual([expect.stringContaining('body property conclusion "approved" is not one of')]);
    expect(
      validateRequest({ method: "POST", path: `${REPO}/statuses/${SHA}`, body: { state: "green", context: "c" } }),
    ).toEqual([expect.stringContaining('body property state "green" is not one of "error", "failure"')]);
    expect(validateRequest({ method: "POST", path: `${REPO}/statuses/${SHA}`, body: { context: "c" } })).toEqual([
      expect.stringContaining("body property state is required"),
    ]);
    expect(validateRequest({ method: "POST", path: `${REPO}/issues/7/comments` })).toEqual([
      expect.stringContaining("a request body is required"),
    ]);
    expect(validateRequest({ method: "GET", path: `${REPO}/issues/comments/5`, body: { body: "x" } })).toEqual([
      expect.stringContaining("takes no request body"),
    ]);
  });

  it("knows how GitHub spells refs: heads/x in /git/refs/{ref}, refs/heads/x when creating one", () => {
    expect(
      validateRequest({ method: "PATCH", path: `${REPO}/git/refs/refs/heads/feature`, body: { sha: SHA } }),
    ).toEqual([expect.stringContaining('path parameter ref "refs/heads/feature" must not start with refs/')]);
    expect(
      validateRequest({ method: "POST", path: `${REPO}/git/refs`, body: { ref: "heads/feature", sha: SHA } }),
    ).toEqual([expect.stringContaining('body property ref "heads/feature" must be fully qualified')]);
    expect(
      validateRequest({ method: "POST", path: `${REPO}/git/refs`, body: { ref: "refs/heads/feature", sha: SHA } }),
    ).toEqual([]);
  });
});

describe("the App's REST requests", () => {
  const { repos } = appSandbox();

  it("validate against GitHub's OpenAPI description: waits for approval, records the review, turns green", async () => {
    const fake = awaitingApproval(repos);
    const reviewed = fake.sha("feature");
    const bot = testProbot();
    await bot.receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    expect(fake.checkRuns).toEqual([
      expect.objectContaining({ head_sha: reviewed, conclusion: "action_required", app: { id: 1, slug: "taskgate" } }),
    ]);
    fake.review("bob", "APPROVED", reviewed, "2026-11-30T10:00:00Z", "looks right");
    fake.permissions.bob = "WRITE";
    await bot.receive({
      id: "2",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    const recorded = fake.sha("feature");
    expect(recorded).not.toBe(reviewed);
    expect(fake.checkRuns.find((run) => run.head_sha === recorded)).toMatchObject({ conclusion: "success" });
    await bot.receive({
      id: "3",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "synchronize"), {
        sender: { login: "taskgate[bot]", type: "Bot", id: 2 },
      }) as never,
    });

    // What was asked is recorded with what it carried: query, body and headers.
    const rest = fake.requests.filter((request) => request.path !== "/graphql");
    expect(rest.map((request) => `${request.method} ${request.path.replace(/\/repos\/acme\/web/, "")}`)).toEqual(
      expect.arrayContaining(["POST /check-runs", "POST /issues/7/comments", `GET /commits/${reviewed}/check-runs`]),
    );
    expect(rest.find((request) => request.path.endsWith("/check-runs") && request.method === "GET")?.query).toEqual(
      expect.objectContaining({ app_id: "1" }),
    );
    expect(rest.find((request) => request.method === "POST" && request.path.endsWith("/check-runs"))?.body).toEqual(
      expect.objectContaining({ head_sha: reviewed, conclusion: "action_required" }),
    );
    expect(fake.requests.every((request) => typeof request.headers?.["user-agent"] === "string")).toBe(true);

    expect(fake.schemaErrors).toEqual([]);
    expect(fake.restErrors).toEqual([]);
    // Every REST request names the API version, the App's token request included.
    expect(fake.requests.some((request) => request.path.includes("/access_tokens"))).toBe(true);
    expect(fake.missingApiVersion).toEqual([]);
  });
});

describe("the fake's checks", () => {
  // The fake serves over HTTP on this machine here: connections stay allowed.
  const { repos } = appSandbox({ offline: false });

  it("records the query, body and headers of a request over HTTP, and checks it and its API version", async () => {
    const fake = awaitingApproval(repos);
    const server = await fake.serve();
    const token = { authorization: "token ghs_actiontoken" };
    try {
      await ask(`${server.url}/repos/acme/web/issues?state=merged&per_page=5`, {
        headers: { ...token, "X-GitHub-Api-Version": "2022-11-28" },
      });
      await ask(`${server.url}/repos/acme/web/issues/7/comments`, {
        method: "POST",
        headers: { ...token, "X-GitHub-Api-Version": "2026-01-01" },
        body: { body: "hi", colour: "red" },
      });
      await ask(`${server.url}/repos/acme/web/issues/comments/5`, { headers: token });
      await ask(`${server.url}/graphql`, {
        method: "POST",
        headers: token,
        body: { query: "query Q { viewer { login } }" },
      });
    } finally {
      await server.close();
    }
    expect(fake.requests).toEqual([
      expect.objectContaining({
        method: "GET",
        path: "/repos/acme/web/issues",
        query: { state: "merged", per_page: "5" },
        headers: expect.objectContaining({ "x-github-api-version": "2022-11-28" }),
      }),
      expect.objectContaining({ method: "POST", body: { body: "hi", colour: "red" } }),
      expect.objectContaining({ method: "GET", path: "/repos/acme/web/issues/comments/5" }),
      expect.objectContaining({ method: "POST", path: "/graphql", operation: "Q" }),
    ]);
    expect(fake.restErrors).toEqual([
      expect.stringMatching(/^GET \/repos\/acme\/web\/issues: .*query parameter state "merged" is not one of/),
      expect.stringMatching(/^POST \/repos\/acme\/web\/issues\/7\/comments: .*body property colour is not declared/),
    ]);
    // GraphQL has no API version; REST requests name 2022-11-28.
    expect(fake.missingApiVersion).toEqual([
      "POST /repos/acme/web/issues/7/comments (sent 2026-01-01)",
      "GET /repos/acme/web/issues/comments/5",
    ]);
  });

  it("records and checks a request through nock", async () => {
    const fake = awaitingApproval(repos);
    nock.disableNetConnect();
    const answer = await fetch("https://api.github.com/repos/acme/web/commits/abc/check-runs?filter=newest", {
      headers: { "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "test" },
    });
    expect(answer.status).toBe(200);
    expect(fake.requests).toEqual([
      {
        method: "GET",
        path: "/repos/acme/web/commits/abc/check-runs",
        query: { filter: "newest" },
        headers: expect.objectContaining({ "x-github-api-version": "2022-11-28", "user-agent": "test" }),
        bytes: Buffer.byteLength(await answer.text()),
      },
    ]);
    expect(fake.restErrors).toEqual([expect.stringContaining('query parameter filter "newest" is not one of')]);
    expect(fake.missingApiVersion).toEqual([]);
  });
});
