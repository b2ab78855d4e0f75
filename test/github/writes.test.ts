/**
 * The writes policy against GitHub's REST and GraphQL answers (nock): the App's check run found or
 * created, the sticky comment created, updated and deleted, and what each refusal (403, 404, 409,
 * 422) does. Each test asserts the requests made and their number.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import { stampMarker } from "../../src/github/stamp.js";
import { COMMENT_MARKER, type CheckOutput } from "../../src/github/summary.js";
import { CommitRefused, commitFiles, publishCheck, upsertComment } from "../../src/github/writes.js";
import { isolate, nockedApi } from "../helpers/nock-api.js";

const net = isolate();
beforeEach(net.before);
afterEach(net.after);

const HEAD = "a".repeat(40);
const STAMP = { at: "2026-12-01T10:00:00Z", seen: 1 };
const SELF = { appId: 7, login: "taskgate[bot]" };
const TARGET = { baseRef: "main", headSha: HEAD, detailsUrl: "https://github.com/acme/widgets/pull/3", stamp: STAMP };
const RUNS = `/repos/acme/widgets/commits/${HEAD}/check-runs`;
const annotation = { path: "tasks/a/.state", start_line: 1, end_line: 1, annotation_level: "failure", message: "m" };

function output(annotations = 0): CheckOutput {
  return {
    conclusion: "failure",
    title: "1 problem",
    summary: "summary <!-- taskgate:fingerprint f1 -->",
    annotations: Array.from({ length: annotations }, () => annotation) as never,
    fingerprint: "f1",
  };
}

describe("publishCheck", () => {
  it("creates the App's check run when it has none on the head: one read, one write", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", RUNS, 200, { total_count: 0, check_runs: [] });
    github.answer("POST", "/repos/acme/widgets/check-runs", 201, { id: 11 });
    expect(await publishCheck(github.api, TARGET, output())).toBe("created");
    expect(github.requests).toEqual([`GET ${RUNS}`, "POST /repos/acme/widgets/check-runs"]);
    expect(github.bodies[1]).toMatchObject({ name: "taskgate: main", head_sha: HEAD, conclusion: "failure" });
  });

  it("updates its own run in place, leaves an unchanged one alone, and never takes another app's run", async () => {
    const github = nockedApi({ appId: 7 });
    const ours = { id: 5, conclusion: "success", app: { id: 7 }, output: { summary: "old" } };
    const other = { id: 6, conclusion: "failure", app: { id: 99 }, output: { summary: "x" } };
    github.answer("GET", RUNS, 200, { total_count: 2, check_runs: [other, ours] });
    github.answer("PATCH", "/repos/acme/widgets/check-runs/5", 200, { id: 5 });
    expect(await publishCheck(github.api, TARGET, output())).toBe("updated");
    const same = { ...ours, conclusion: "failure", output: { summary: output().summary } };
    github.answer("GET", RUNS, 200, { total_count: 1, check_runs: [same] });
    expect(await publishCheck(github.api, TARGET, output())).toBe("unchanged");
    expect(github.requests).toEqual([`GET ${RUNS}`, "PATCH /repos/acme/widgets/check-runs/5", `GET ${RUNS}`]);
  });

  it("writes the run without annotations when GitHub refuses them (422)", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", RUNS, 200, { total_count: 0, check_runs: [] });
    github.answer("POST", "/repos/acme/widgets/check-runs", 422, { message: "Invalid path" });
    github.answer("POST", "/repos/acme/widgets/check-runs", 201, { id: 12 });
    expect(await publishCheck(github.api, TARGET, output(2))).toBe("created");
    expect(github.requests).toHaveLength(3);
    expect((github.bodies[1] as { output: { annotations: unknown[] } }).output.annotations).toHaveLength(2);
    expect((github.bodies[2] as { output: { annotations: unknown[] } }).output.annotations).toEqual([]);
  });

  it("lets a 403 through as a GitHubError", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", RUNS, 200, { total_count: 0, check_runs: [] });
    github.answer("POST", "/repos/acme/widgets/check-runs", 403, { message: "Resource not accessible by integration" });
    const error = await publishCheck(github.api, TARGET, output()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBe(403);
    expect(github.requests).toHaveLength(2);
  });
});

describe("upsertComment", () => {
  const plan = (seen: { id: number; body: string }[], needed = true) => ({
    body: "1 problem",
    needed,
    stamp: STAMP,
    seen,
    count: seen.length,
  });
  const marked = (id: number, text: string) => ({ id, body: `${stampMarker(STAMP)}\n${COMMENT_MARKER}\n${text}` });

  it("creates the comment only when there is something to say", async () => {
    const github = nockedApi({ appId: 7 });
    expect(await upsertComment(github.api, 3, plan([], false), SELF)).toBe("none");
    github.answer("POST", "/repos/acme/widgets/issues/3/comments", 201, { id: 21 });
    expect(await upsertComment(github.api, 3, plan([]), SELF)).toBe("created");
    expect(github.requests).toEqual(["POST /repos/acme/widgets/issues/3/comments"]);
  });

  it("updates its own comment in place and deletes the duplicates, a 404 on a delete included", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("DELETE", "/repos/acme/widgets/issues/comments/22", 404, { message: "Not Found" });
    github.answer("PATCH", "/repos/acme/widgets/issues/comments/21", 200, { id: 21 });
    const seen = [marked(21, "old"), marked(22, "old"), { id: 23, body: "a person's comment" }];
    expect(await upsertComment(github.api, 3, plan(seen), SELF)).toBe("updated");
    expect(github.requests).toEqual([
      "DELETE /repos/acme/widgets/issues/comments/22",
      "PATCH /repos/acme/widgets/issues/comments/21",
    ]);
  });

  it("lets any other failure of a delete through", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("DELETE", "/repos/acme/widgets/issues/comments/22", 403, { message: "Forbidden" });
    const seen = [marked(21, "old"), marked(22, "old")];
    await expect(upsertComment(github.api, 3, plan(seen), SELF)).rejects.toBeInstanceOf(GitHubError);
    expect(github.requests).toEqual(["DELETE /repos/acme/widgets/issues/comments/22"]);
  });
});

describe("commitFiles", () => {
  const target = { branch: "feature", expectedHead: HEAD, headline: "taskgate: record", body: "a: x → y" };
  const files = new Map([["tasks/a/.state", "done\n"]]);

  it("commits through createCommitOnBranch, with the expected head", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("POST", "/graphql", 200, { data: { createCommitOnBranch: { commit: { oid: "b".repeat(40) } } } });
    expect(await commitFiles(github.api, target, files)).toBe("b".repeat(40));
    expect(github.requests).toEqual(["POST /graphql"]);
    expect(github.bodies[0]).toMatchObject({ variables: { input: { expectedHeadOid: HEAD } } });
  });

  it.each([
    ["a 409", 409, { message: "Conflict" }],
    ["a 404", 404, { message: "Not Found" }],
    ["a 422", 422, { message: "Unprocessable" }],
    ["STALE_DATA", 200, { data: null, errors: [{ type: "STALE_DATA", message: "Expected branch to point to x" }] }],
  ])("returns nothing when the branch moved or went away (%s), after one request", async (_name, status, body) => {
    const github = nockedApi({ appId: 7 });
    github.answer("POST", "/graphql", status, body);
    expect(await commitFiles(github.api, target, files)).toBeUndefined();
    expect(github.requests).toEqual(["POST /graphql"]);
  });

  it.each([
    ["a 403", 403, { message: "Forbidden" }, "permission denied"],
    [
      "FORBIDDEN",
      200,
      { data: null, errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }] },
      "Resource not accessible by integration",
    ],
    [
      "a protected branch",
      200,
      { data: null, errors: [{ message: "Repository rule violations found" }] },
      "Repository rule violations found",
    ],
  ])("throws CommitRefused when the branch refuses the bot (%s)", async (_name, status, body, why) => {
    const github = nockedApi({ appId: 7 });
    github.answer("POST", "/graphql", status, body);
    const error = await commitFiles(github.api, target, files).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CommitRefused);
    expect((error as Error).message).toBe(why);
    expect(github.requests).toEqual(["POST /graphql"]);
  });

  it("lets GitHub's other failures through as a GitHubError", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("POST", "/graphql", 502, { message: "Bad Gateway" });
    const error = await commitFiles(github.api, target, files).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBe(502);
  });
});
