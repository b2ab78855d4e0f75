/**
 * The app when things go wrong or happen twice: forks, a branch that moves while the bot records,
 * re-deliveries, replicas racing, old heads, GitHub errors, missing pull requests, big reports.
 */
import nock from "nock";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/core/evaluate.js";
import { violation } from "../../src/core/kernel/violations.js";
import { COMMENT_MARKER, GITHUB_TEXT_LIMIT, checkOutput } from "../../src/github/summary.js";
import { FakeGitHub } from "../helpers/fake-github.js";

import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();
const APP = { id: 1, slug: "taskgate" };

function setUp(files: Record<string, string> = {}, options: { fork?: boolean } = {}) {
  const repo = sandbox.repo();
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "# Spec\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "research:awaiting_approval\n", ...files });
  const reviewed = repo.commit("ready", "carol");
  const fake = sandbox.github(repo, { head: "feature", ...(options.fork && { fork: true }) });
  fake.permissions.bob = "WRITE";
  return { repo, fake, reviewed };
}

const writes = (fake: FakeGitHub) =>
  fake.apiRequests.filter(
    (request) => ["POST", "PATCH", "DELETE"].includes(request.method) && request.path !== "/graphql",
  );
const opened = (fake: FakeGitHub) => ({
  id: "1",
  name: "pull_request" as const,
  payload: fake.payload(example("pull_request", "opened")) as never,
});
const reviewed = (fake: FakeGitHub) => ({
  id: "2",
  name: "pull_request_review" as const,
  payload: fake.payload(example("pull_request_review", "submitted")) as never,
});

describe("forks", () => {
  it("never commits to a fork and says what a maintainer must do", async () => {
    const { fake, reviewed: head } = setUp({}, { fork: true });
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(reviewed(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(fake.sha("feature")).toBe(head);
    expect(fake.checkRuns).toEqual([expect.objectContaining({ conclusion: "action_required" })]);
    expect(fake.checkRuns[0]!.output.summary).toContain("comes from a fork");
    expect(fake.comments[0]!.body).toContain("A maintainer must push the branch to this repository");
  });
});

describe("a branch that moves while the bot records", () => {
  it("overwrites nothing and judges the new head instead", async () => {
    const { repo, fake, reviewed: head } = setUp();
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    let pushed: string | undefined;
    fake.onRequest = (request) => {
      if (request.operation !== "RecordDecisions" || pushed) return;
      // The author pushes just before the bot's commit reaches GitHub.
      repo.write({ "tasks/login/SPEC.md": "# Spec\nrewritten\n" });
      pushed = repo.commit("more work", "carol");
    };
    await testProbot().receive(reviewed(fake));
    expect(fake.sha("feature")).toBe(pushed);
    expect(fake.git("show", "feature:tasks/login/SPEC.md")).toBe("# Spec\nrewritten");
    // The new head changed the task under the review: nothing to record, the gate waits again.
    expect(fake.apiRequests.filter((request) => request.operation === "RecordDecisions")).toHaveLength(1);
    const check = fake.checkRuns.find((run) => run.head_sha === pushed);
    expect(check).toMatchObject({ conclusion: "action_required" });
    expect(check!.output.summary).toContain("changed after bob reviewed");
  });
});

describe("deliveries that come twice or at once", () => {
  it("writes nothing on a re-delivery of the same event", async () => {
    const { fake } = setUp({ ".github/workflows/ci.yml": "on: push\n" });
    const bot = testProbot();
    await bot.receive(opened(fake));
    const first = writes(fake).length;
    expect(first).toBeGreaterThan(0);
    fake.requests.length = 0;
    await bot.receive(opened(fake));
    expect(writes(fake)).toEqual([]);
    expect(fake.checkRuns).toHaveLength(1);
    expect(fake.comments).toHaveLength(1);
  });

  it("converges to one comment when two replicas handle two events at the same moment", async () => {
    const { fake } = setUp({ ".github/workflows/ci.yml": "on: push\n" });
    await Promise.all([testProbot().receive(opened(fake)), testProbot().receive({ ...opened(fake), id: "9" })]);
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body).toContain(COMMENT_MARKER);
  });

  it("removes extra copies left by earlier races, keeping the oldest", async () => {
    const { fake } = setUp({ ".github/workflows/ci.yml": "on: push\n" });
    fake.comments.push(
      {
        id: 1,
        body: `${COMMENT_MARKER}\nold`,
        user: { login: "taskgate[bot]", type: "Bot" },
        performed_via_github_app: APP,
      },
      {
        id: 2,
        body: `${COMMENT_MARKER}\nolder race`,
        user: { login: "taskgate[bot]", type: "Bot" },
        performed_via_github_app: APP,
      },
      {
        id: 3,
        body: `${COMMENT_MARKER}\nnot ours`,
        user: { login: "mallory", type: "User" },
        performed_via_github_app: null,
      },
    );
    await testProbot().receive(opened(fake));
    expect(fake.comments.map((comment) => comment.id)).toEqual([1, 3]);
    expect(fake.comments[0]!.body).toContain("out-of-scope");
    expect(fake.comments[1]!.body).toContain("not ours");
  });

  it("never lets a result computed from older facts overwrite the comment of newer ones", async () => {
    const { repo, fake } = setUp({ ".github/workflows/ci.yml": "on: push\n" });
    const bot = testProbot();
    let newer: string | undefined;
    fake.onRequest = (request) => {
      // While this delivery judges the old head, the author pushes and a replica comments on it.
      if (request.method !== "GET" || !request.path.endsWith("/check-runs") || newer) return;
      repo.write({ ".github/workflows/ci.yml": null });
      newer = repo.commit("revert the workflow", "carol");
      fake.comments.push({
        id: 50,
        // The replica read the pull request later than anything this delivery reads.
        body: `<!-- taskgate:facts 2026-12-01T23:00:00Z+0 -->\n${COMMENT_MARKER}\n<!-- taskgate:head ${newer} -->\nnewer result`,
        user: { login: "taskgate[bot]", type: "Bot" },
        performed_via_github_app: APP,
      });
    };
    await bot.receive(opened(fake));
    expect(fake.comments).toEqual([expect.objectContaining({ id: 50, body: expect.stringContaining("newer result") })]);
  });
});

describe("GitHub's errors", () => {
  it("retries a 5xx and still reports", async () => {
    const { fake } = setUp();
    fake.failures.push({ method: "GET", match: /\/compare\//, status: 502 });
    await testProbot({ retry: { enabled: true, retries: 2, retryAfterBaseValue: 1 } }).receive(opened(fake));
    expect(fake.apiRequests.filter((request) => request.path.includes("/compare/"))).toHaveLength(2);
    expect(fake.checkRuns).toHaveLength(1);
  });

  it("stays quiet when the pull request is gone or closed", async () => {
    const { fake } = setUp();
    fake.state = "CLOSED";
    await testProbot().receive(opened(fake));
    expect(writes(fake)).toEqual([]);
    nock.cleanAll();
    const gone = setUp();
    gone.fake.failures.push({ method: "GRAPHQL", match: /PullRequestFacts/, status: 404 });
    await testProbot().receive(opened(gone.fake));
    expect(gone.fake.apiRequests.map((request) => request.operation ?? request.path)).toEqual(["PullRequestFacts"]);
  });
});

describe("big reports", () => {
  it("sends annotations 50 per request", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 60; index++) files[`.github/extra/f${index}.yml`] = `${index}\n`;
    const { fake } = setUp(files);
    await testProbot().receive(opened(fake));
    const checkWrites = fake.apiRequests.filter(
      (request) => /check-runs/.test(request.path) && request.method !== "GET",
    );
    expect(checkWrites.map((request) => request.method)).toEqual(["POST", "PATCH"]);
    // 60 framework files, and the notice of the pending research approval.
    expect(fake.checkRuns[0]!.annotations).toHaveLength(61);
  });

  it("keeps the summary under GitHub's limit and says it was cut", () => {
    const violations = Array.from({ length: 3000 }, (_, index) =>
      violation("out-of-scope", {
        path: `src/file-${index}.ts`,
        message: `src/file-${index}.ts ${"is out of scope ".repeat(5)}`,
      }),
    );
    const output = checkOutput(buildReport({ violations, pending: [], transitions: [], records: [] }, "big"));
    expect(output.summary.length).toBeLessThanOrEqual(GITHUB_TEXT_LIMIT);
    expect(output.summary).toContain("Cut short");
    expect(output.annotations).toHaveLength(3000);
  });
});

describe("lists GitHub caps", () => {
  it("fails closed, saying what it could not see, and records nothing", async () => {
    const { repo, fake, reviewed: head } = setUp();
    repo.write({ "tasks/login/SPEC.md": "# Spec\nmore\n" });
    const last = repo.commit("more", "carol");
    fake.commitCap = 1;
    fake.review("bob", "APPROVED", last, "2026-11-30T10:00:00Z");
    await testProbot().receive(reviewed(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    const check = fake.checkRuns.find((run) => run.head_sha === last)!;
    expect(check.conclusion).toBe("failure");
    expect(check.output.summary).toContain("GitHub lists only 1");
    expect(head).not.toBe(last);
  });
});

describe("rate limits", () => {
  it("waits and retries when GitHub says the quota is used up", async () => {
    const { fake } = setUp();
    fake.failures.push({
      method: "GET",
      match: /\/compare\//,
      status: 403,
      message: "API rate limit exceeded",
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000)) },
    });
    await testProbot({ throttle: true }).receive(opened(fake));
    expect(fake.apiRequests.filter((request) => request.path.includes("/compare/"))).toHaveLength(2);
    expect(fake.checkRuns).toHaveLength(1);
  });
});
