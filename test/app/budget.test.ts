/**
 * The request budget of docs/performance.md holds: an evaluation costs the same few requests for a
 * 300-file, 50-task pull request as for a small one, plus a level of folders where reviewed commits
 * differ from the head; teams are fetched only when a gate needs them. Also the events that only
 * name a pull request indirectly.
 */
import { readFileSync } from "node:fs";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { FakeGitHub, type RecordedRequest } from "../helpers/fake-github.js";

import { appSandbox, example, testProbot as probot } from "../helpers/probot.js";

const budget = (() => {
  const doc = readFileSync(new URL("../../docs/performance.md", import.meta.url), "utf8");
  const line = /<!-- budget: evaluation=(\d+) per-commit=(\d+) follow-up=(\d+) -->/.exec(doc);
  if (!line) throw new Error("docs/performance.md states no budget");
  return { evaluation: Number(line[1]), perCommit: Number(line[2]) };
})();

const sandbox = appSandbox();

/** Requests that judge the pull request (not the token, not the check run or comment, nor the check after writing). */
function evaluation(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (request) =>
      !request.path.includes("/access_tokens") &&
      !request.path.includes("/check-runs") &&
      !request.path.includes("/comments") &&
      request.operation !== "RecordDecisions" &&
      request.operation !== "PullRequestVersion",
  );
}

/** A phases pull request moving `tasks` tasks implement → bug_find and changing `extra` project files. */
function bigPullRequest(tasks: number, extra: number, config = "preset: phases\n"): { fake: FakeGitHub; head: string } {
  const repo = sandbox.repo();
  const base: Record<string, string> = { ".github/taskgate.yml": config };
  for (let index = 0; index < tasks; index++) {
    base[`tasks/t${index}/.state`] = "implement\n";
    base[`tasks/t${index}/SPEC.md`] = `spec ${index}\n`;
  }
  for (let index = 0; index < extra; index++) base[`src/file${index}.ts`] = `export const v = ${index};\n`;
  repo.write(base);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const head: Record<string, string> = {};
  for (let index = 0; index < tasks; index++) {
    head[`tasks/t${index}/.state`] = "bug_find\n";
    head[`tasks/t${index}/BUG_REPORT.md`] = `bugs of ${index}\n`;
  }
  for (let index = 0; index < extra; index++) head[`src/file${index}.ts`] = `export const v = ${index + 1};\n`;
  repo.write(head);
  const sha = repo.commit("fix", "carol");
  const fake = sandbox.github(repo, { head: "feature" });
  return { fake, head: sha };
}

describe("the request budget", () => {
  it(`judges a 300-file, 50-task pull request in ${budget.evaluation} requests, as a small one`, async () => {
    const small = bigPullRequest(1, 1);
    await probot().receive({
      id: "1",
      name: "pull_request",
      payload: small.fake.payload(example("pull_request", "opened")) as never,
    });
    const smallCount = evaluation(small.fake.requests).length;
    nock.cleanAll();
    const big = bigPullRequest(50, 200);
    await probot().receive({
      id: "2",
      name: "pull_request",
      payload: big.fake.payload(example("pull_request", "opened")) as never,
    });
    expect(big.fake.checkRuns[0]!.conclusion).toBe("success");
    const bigCount = evaluation(big.fake.requests).length;
    expect(bigCount).toBeLessThanOrEqual(budget.evaluation);
    expect(bigCount).toBe(smallCount);
  });

  it("adds a level of folders for reviewed commits, and fetches teams only when a gate needs them", async () => {
    const config = 'preset: phases\nroles:\n  leads: ["@acme/leads"]\napprovals:\n  approvers: ["role:leads"]\n';
    const { fake, head: first } = bigPullRequest(3, 2, config);
    fake.repo.write({ "src/file0.ts": "export const v = 42;\n" });
    const head = fake.repo.commit("more", "carol");
    await probot().receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    const plain = evaluation(fake.requests);
    expect(plain.length).toBeLessThanOrEqual(budget.evaluation);
    expect(fake.teamQueries).toBe(0);
    fake.requests.length = 0;
    fake.review("erin", "APPROVED", first, "2026-11-30T09:00:00Z");
    fake.review("fay", "APPROVED", head, "2026-11-30T10:00:00Z");
    fake.teams["@acme/leads"] = ["fay"];
    await probot().receive({
      id: "2",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    // The head (reviewed by fay) costs nothing more; erin's commit differs from it in one folder: one level.
    expect(evaluation(fake.requests)).toHaveLength(budget.evaluation + budget.perCommit);
    expect(fake.teamQueries).toBe(1);
  });
});

describe("events that name a pull request indirectly", () => {
  it("re-checks on check_run and check_suite rerequested, and names the check after a new base", async () => {
    const { fake } = bigPullRequest(1, 0);
    const pr = fake.pullRef();
    const app = { id: 1, slug: "taskgate" };
    const run = example("check_run", "rerequested");
    await probot().receive({
      id: "1",
      name: "check_run",
      payload: fake.payload(run, {
        check_run: { ...(run.check_run as object), app, pull_requests: [pr] },
      }) as never,
    });
    expect(fake.checkRuns).toHaveLength(1);
    const suite = example("check_suite", "rerequested");
    fake.requests.length = 0;
    await probot().receive({
      id: "2",
      name: "check_suite",
      payload: fake.payload(suite, {
        check_suite: { ...(suite.check_suite as object), app, pull_requests: [pr] },
      }) as never,
    });
    expect(fake.requests.some((request) => request.operation === "PullRequestFacts")).toBe(true);
    fake.git("branch", "release", "main");
    fake.base = "release";
    const edited = fake.payload(example("pull_request", "opened"), {
      action: "edited",
      changes: { base: { ref: { from: "main" }, sha: { from: fake.sha("main") } } },
    });
    await probot().receive({ id: "3", name: "pull_request", payload: edited as never });
    expect(fake.checkRuns.map((run) => run.name)).toEqual(["taskgate: main", "taskgate: release"]);
  });
});
