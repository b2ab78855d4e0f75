/**
 * This repository's own example workflow (`.github/workflows/taskgate-example.yml`): the Action,
 * configured by `.github/taskgate-example.yml`, on the example task tree `examples/phases/`. The trust
 * rules hold there as they do anywhere: a pull request is judged by the config of its base, an
 * approval is recorded only from an eligible review, a merged pull request is judged again by the
 * audit, and a change pushed around the check is reported.
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBundle } from "../helpers/action.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import { example } from "../helpers/probot.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = ".github/taskgate-example.yml";
const WORKFLOW = readFileSync(join(ROOT, ".github/workflows/taskgate-example.yml"), "utf8");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A repository holding what this one holds for the example: its config and its task tree. */
function exampleRepo(): TempRepo {
  const repo = tempRepo();
  cleanups.push(() => repo.remove());
  mkdirSync(join(repo.dir, ".github"), { recursive: true });
  cpSync(join(ROOT, CONFIG), join(repo.dir, CONFIG));
  cpSync(join(ROOT, "examples", "phases"), join(repo.dir, "examples", "phases"), { recursive: true });
  repo.commit("the example task tree", "alice");
  return repo;
}

function fakeOf(repo: TempRepo, head: string): FakeGitHub {
  const fake = new FakeGitHub(repo, { head, bot: "github-actions[bot]" });
  fake.actor = "github-actions[bot]";
  return fake;
}

const inputs = { config: CONFIG };
const schedule = { name: "schedule", payload: { schedule: "17 4 * * *" } };
const rateLimit = "examples/phases/tasks/rate-limit";
const reset = "examples/phases/tasks/password-reset";

describe("the example workflow of this repository", () => {
  it("is what the test runs: the Action in audit mode, configured by the example config", () => {
    expect(WORKFLOW).toContain("uses: ./action");
    expect(WORKFLOW).toContain("mode: audit");
    expect(WORKFLOW).toContain(`config: ${CONFIG}`);
  });

  it("audits clean as committed, then reports an approval pushed around the check, and nothing else", async () => {
    const repo = exampleRepo();
    const fake = fakeOf(repo, "main");
    const clean = await runBundle(cleanups, fake, schedule, inputs, repo.dir);
    expect(clean.code).toBe(0);
    expect(fake.issues).toEqual([]);

    repo.write({
      [`${reset}/.state`]: "design:approved\n",
      [`${reset}/.state.approvals`]: `${readFileSync(join(ROOT, reset, ".state.approvals"), "utf8")}design:approved|2026-11-30T10:00:00Z|mallory\n`,
    });
    const forged = repo.commit("approve the design myself", "mallory");
    fake.logins.set(forged, { login: "mallory" });
    const dirty = await runBundle(cleanups, fake, schedule, inputs, repo.dir);
    expect(dirty.code).toBe(1);
    expect(fake.issues).toHaveLength(1);
    expect(fake.issues[0]!.body).toContain(`commit ${forged.slice(0, 7)} by mallory changed 2 task file(s)`);
  });

  it("records an eligible approval on the pull request's branch, and the audit vouches for the merge", async () => {
    const repo = exampleRepo();
    repo.git("checkout", "-q", "-b", "rate-limit-spec");
    repo.write({ [`${rateLimit}/.state`]: "research:awaiting_approval\n" });
    const ready = repo.commit("rate-limit: research ready", "carol");
    const fake = fakeOf(repo, "rate-limit-spec");
    fake.permissions.bob = "WRITE";
    fake.review("bob", "APPROVED", ready, "2026-11-30T10:00:00Z");
    const checked = await runBundle(
      cleanups,
      fake,
      { name: "pull_request_review", payload: fake.payload(example("pull_request_review", "submitted")) },
      inputs,
    );
    expect(fake.schemaErrors).toEqual([]);
    expect(checked.outputs.conclusion).toBe("success");
    const recorded = fake.sha("rate-limit-spec");
    expect(fake.git("show", `${recorded}:${rateLimit}/.state`)).toBe("research:approved");
    expect(fake.statuses.at(-1)).toMatchObject({ sha: recorded, state: "success", context: "taskgate: main" });

    repo.git("checkout", "-q", "-f", "main");
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7", "rate-limit-spec");
    const merge = fake.sha("main");
    fake.logins.set(merge, { login: "carol", verified: true, committer: "web-flow" });
    fake.merge({
      number: 7,
      base: "main",
      head: recorded,
      mergeCommit: merge,
      commits: [ready, recorded],
      reviews: [...fake.reviews],
    });
    const audit = await runBundle(cleanups, fake, schedule, inputs, repo.dir);
    expect(audit.code).toBe(0);
    expect(fake.issues).toEqual([]);
  });

  it("refuses a pull request that approves an example task itself", async () => {
    const repo = exampleRepo();
    repo.git("checkout", "-q", "-b", "shortcut");
    repo.write({ [`${reset}/.state`]: "design:approved\n" });
    repo.commit("approve it", "mallory");
    const fake = fakeOf(repo, "shortcut");
    const run = await runBundle(
      cleanups,
      fake,
      { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) },
      inputs,
    );
    expect(run.code).toBe(1);
    expect(run.outputs.conclusion).toBe("failure");
    expect(fake.statuses.at(-1)).toMatchObject({ state: "failure", context: "taskgate: main" });
  });

  it("never counts an approval by someone who committed to the pull request", async () => {
    const repo = exampleRepo();
    repo.git("checkout", "-q", "-b", "rate-limit-spec");
    repo.write({ [`${rateLimit}/.state`]: "research:awaiting_approval\n" });
    const ready = repo.commit("rate-limit: research ready", "carol", "bob");
    const fake = fakeOf(repo, "rate-limit-spec");
    fake.logins.set(ready, { login: "carol", committer: "bob" });
    fake.permissions.bob = "WRITE";
    fake.review("bob", "APPROVED", ready, "2026-11-30T10:00:00Z");
    const run = await runBundle(
      cleanups,
      fake,
      { name: "pull_request_review", payload: fake.payload(example("pull_request_review", "submitted")) },
      inputs,
    );
    expect(run.outputs.conclusion).toBe("action_required");
    expect(fake.sha("rate-limit-spec")).toBe(ready);
    expect(run.summary).toContain(`bob committed ${ready.slice(0, 7)}`);
  });

  it("judges a pull request whose head repository is gone read-only, and keeps its text inert", async () => {
    const repo = exampleRepo();
    repo.git("checkout", "-q", "-b", "from-a-fork");
    repo.write({ "examples/phases/tasks/rate-limit/@acme leads [x](https://evil.example).md": "hi\n" });
    repo.commit("a note", "carol");
    const fake = fakeOf(repo, "from-a-fork");
    fake.headRepository = () => null;
    const payload = fake.payload(example("pull_request", "opened")) as { pull_request: { head: { repo: unknown } } };
    payload.pull_request.head.repo = null;
    const run = await runBundle(cleanups, fake, { name: "pull_request_target", payload }, inputs);
    expect(fake.statuses).toEqual([]);
    expect(fake.comments).toEqual([]);
    expect(run.summary).not.toMatch(/@[A-Za-z0-9]/);
    expect(run.summary).not.toMatch(/https?:\/\//);
  });

  it("reports a record the bot committed to the default branch directly", async () => {
    const repo = exampleRepo();
    repo.write({
      [`${reset}/.state`]: "design:approved\n",
      [`${reset}/.state.approvals`]: `${readFileSync(join(ROOT, reset, ".state.approvals"), "utf8")}design:approved|2026-11-30T10:00:00Z|bob\n`,
    });
    const record = repo.commit("taskgate: record 1 decision(s)", "github-actions[bot]");
    const fake = fakeOf(repo, "main");
    fake.logins.set(record, { login: "github-actions[bot]", type: "Bot", verified: true, committer: "web-flow" });
    const run = await runBundle(cleanups, fake, schedule, inputs, repo.dir);
    expect(run.code).toBe(1);
    expect(fake.issues[0]!.body).toContain("not a follow-up of main");
  });
});
