/**
 * Trust under the Action, whose token is `github-actions[bot]` in every workflow of the repository:
 * nothing that identity wrote is taken as proof. A pull request whose head repository is gone is
 * judged read-only; a merged pull request vouches for a change on the default branch only when
 * taskgate judges it again itself (base at the merge, head, reviews), whatever statuses say.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBundle } from "../helpers/action.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import { example } from "../helpers/probot.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const CONFIG = "preset: phases\nbot: github-actions[bot]\n";
const schedule = { name: "schedule", payload: { schedule: "17 4 * * *" } };

function mainWithTask(): TempRepo {
  const repo = tempRepo();
  cleanups.push(() => repo.remove());
  repo.write({ ".github/taskgate.yml": CONFIG, "tasks/a/.state": "research\n", "tasks/a/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  return repo;
}

function actionFake(repo: TempRepo, head = "main"): FakeGitHub {
  const fake = new FakeGitHub(repo, { head, bot: "github-actions[bot]" });
  fake.actor = "github-actions[bot]";
  return fake;
}

/** Merges `feature` into main with a merge commit GitHub made, as pull request #1. */
function merged(repo: TempRepo, fake: FakeGitHub): { head: string; merge: string } {
  const head = fake.sha("feature");
  repo.git("checkout", "-q", "main");
  repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #1", "feature");
  const merge = fake.sha("main");
  fake.logins.set(merge, { login: "carol", verified: true, committer: "web-flow" });
  fake.merge({ number: 1, base: "main", head, mergeCommit: merge, commits: [head] });
  return { head, merge };
}

describe("check mode", () => {
  it("judges a pull request whose head repository was deleted read-only (pull_request_target)", async () => {
    const repo = mainWithTask();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/a/.state": "research:awaiting_approval\n" });
    const head = repo.commit("ready", "carol");
    const fake = actionFake(repo, "feature");
    fake.headRepository = () => null;
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    fake.permissions.bob = "WRITE";
    const payload = fake.payload(example("pull_request", "opened")) as { pull_request: { head: { repo: unknown } } };
    payload.pull_request.head.repo = null;
    const run = await runBundle(cleanups, fake, { name: "pull_request_target", payload });
    expect(fake.requests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(fake.sha("feature")).toBe(head);
    expect(fake.statuses).toEqual([]);
    expect(fake.comments).toEqual([]);
    expect(run.outputs.conclusion).toBe("action_required");
  });

  it("compares only with its own statuses: one another account posted never stops it writing", async () => {
    const repo = mainWithTask();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ ".github/workflows/x.yml": "on: push\n" });
    const head = repo.commit("sneak a workflow in", "carol");
    const fake = actionFake(repo, "feature");
    fake.statuses.push({
      sha: head,
      context: "taskgate: main",
      state: "success",
      description: "every move is legal (taskgate:facts 2099-01-01T00:00:00Z+9)",
      creator: { login: "mallory" },
    });
    await runBundle(cleanups, fake, { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) });
    expect(fake.statuses.at(-1)).toMatchObject({ state: "failure", creator: { login: "github-actions[bot]" } });
  });
});

describe("audit mode: a merged pull request is judged again", () => {
  it("vouches for what it landed when it passes again", async () => {
    const repo = mainWithTask();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/b/.state": "research\n", "tasks/b/SPEC.md": "b\n" });
    repo.commit("add b", "carol");
    const fake = actionFake(repo);
    merged(repo, fake);
    const run = await runBundle(cleanups, fake, schedule, {}, repo.dir);
    expect(fake.schemaErrors).toEqual([]);
    expect(run.code).toBe(0);
    expect(fake.issues).toEqual([]);
  });

  it("never takes a status for proof: a pull request that fails when judged again went around the check", async () => {
    const repo = mainWithTask();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/a/.state": "research:approved\n" });
    const head = repo.commit("approve it myself", "mallory");
    const fake = actionFake(repo);
    // Any workflow of the repository can post this, as github-actions[bot].
    fake.statuses.push({
      sha: head,
      context: "taskgate: main",
      state: "success",
      description: "every move is legal",
      creator: { login: "github-actions[bot]" },
    });
    merged(repo, fake);
    const run = await runBundle(cleanups, fake, schedule, {}, repo.dir);
    expect(run.code).toBe(1);
    expect(fake.issues).toHaveLength(1);
    expect(fake.issues[0]!.body).toContain("unauthorized-change");
    expect(fake.issues[0]!.body).toContain('which taskgate judges "failure"');
  });

  it("reads a head the checkout lacks (a squash of a deleted branch) through the API", async () => {
    const repo = mainWithTask();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/b/.state": "research\n", "tasks/b/SPEC.md": "b\n" });
    const head = repo.commit("add b", "carol");
    repo.git("checkout", "-q", "main");
    repo.write({ "tasks/b/.state": "research\n", "tasks/b/SPEC.md": "b\n" });
    const squash = repo.commit("add b (#1)", "carol");
    const fake = actionFake(repo);
    fake.logins.set(squash, { login: "carol", verified: true, committer: "web-flow" });
    fake.merge({ number: 1, base: "main", head, mergeCommit: squash, commits: [head] });
    const workspace = mkdtempSync(join(tmpdir(), "taskgate-checkout-"));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    execFileSync("git", ["clone", "-q", "--no-local", "--single-branch", "--branch", "main", repo.dir, workspace]);
    const run = await runBundle(cleanups, fake, schedule, {}, workspace);
    expect(run.code).toBe(0);
    expect(fake.issues).toEqual([]);
    expect(
      fake.requests.some((request) => request.operation === "Folders" && JSON.stringify(request.body).includes(head)),
    ).toBe(true);
  });
});
