/**
 * GitHub's cuts: a recursive tree cut at 100,000 entries (or 7 MB), a folder GraphQL might list
 * short. A pull request on a repository GitHub cuts is judged as on one it does not; only a folder
 * the rules need that GitHub cuts even alone fails closed, with a message that says so. The fake's
 * caps are set small here, so that the real mechanism runs on small repositories.
 */
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditRevision, checkPullRequest } from "../../src/core/service.js";
import type { Report } from "../../src/core/kernel/types.js";
import { GitHubRepository, TruncatedTreeError } from "../../src/github/repository.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import { apiFor, kinds } from "./helpers.js";

const repos: TempRepo[] = [];
beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

/**
 * `tasks` tasks at `implement` (the `tasks` folder holds that many entries) and 60 vendored files
 * nobody changes; `feature` moves the last but two to `bug_find` with its report, jumps the last but
 * one to `complete` (its artifacts missing) and edits a project file.
 */
function repository(tasks = 60): FakeGitHub {
  const repo = tempRepo();
  repos.push(repo);
  const files: Record<string, string> = { ".github/taskgate.yml": "preset: phases\n", "src/app.ts": "1\n" };
  for (let index = 0; index < 60; index++) files[`vendor/lib${String(index).padStart(2, "0")}.js`] = `${index};\n`;
  for (let index = 0; index < tasks; index++) {
    const id = `t${String(index).padStart(2, "0")}`;
    files[`tasks/${id}/.state`] = "implement\n";
    files[`tasks/${id}/SPEC.md`] = `spec of ${id}\n`;
  }
  repo.write(files);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const [moved, jumped] = [tasks - 3, tasks - 2].map((index) => `t${String(index).padStart(2, "0")}`);
  repo.write({
    [`tasks/${moved}/.state`]: "bug_find\n",
    [`tasks/${moved}/BUG_REPORT.md`]: "found two\n",
    [`tasks/${jumped}/.state`]: "complete\n",
    "src/app.ts": "2\n",
  });
  repo.commit("work", "carol");
  const fake = new FakeGitHub(repo, { head: "feature" });
  fake.install();
  return fake;
}

/** A pull request's report and the audit of its head, through the GitHub port. */
async function judge(fake: FakeGitHub): Promise<{ check: Report; audit: Report }> {
  const github = new GitHubRepository(apiFor(fake));
  const check = await checkPullRequest(github, { base: "main", head: "feature", pr: { author: "carol" } });
  const audit = await auditRevision(new GitHubRepository(apiFor(fake)), "feature");
  return { check, audit };
}

describe("GitHub's cuts", () => {
  it("judges a pull request the same when GitHub cuts the recursive tree short", async () => {
    const plain = await judge(repository());
    expect(plain.check.conclusion).toBe("failure");
    expect(plain.check.violations.map((item) => `${item.code} ${item.task}`)).toContain("artifact-missing t58");
    expect(plain.audit.violations.length).toBeGreaterThan(0);
    nock.cleanAll();
    const fake = repository();
    fake.treeEntryCap = 50;
    const cut = await judge(fake);
    expect(cut).toEqual(plain);
    // The audit asked for the task store in one request, was cut short, and walked the rest.
    const asked = kinds(fake.apiRequests);
    expect(asked).toContain("GET /git/trees/<sha> recursive");
    expect(asked.filter((kind) => kind === "Folders").length).toBeGreaterThan(3);
    expect(fake.schemaErrors).toEqual([]);
    expect(fake.restErrors).toEqual([]);
  });

  it("judges by the same cut even when its limit is bytes, not entries", async () => {
    const plain = await judge(repository());
    nock.cleanAll();
    const fake = repository();
    fake.treeByteCap = 4000;
    expect(await judge(fake)).toEqual(plain);
  });

  it("never trusts a folder GraphQL lists short: it asks REST again, and judges the same", async () => {
    const plain = await judge(repository());
    nock.cleanAll();
    const fake = repository();
    fake.graphqlEntryCap = 50;
    expect(await judge(fake)).toEqual(plain);
    expect(kinds(fake.apiRequests)).toContain("GET /git/trees/<sha>");
  });

  it("fails closed, saying so, when GitHub cuts a folder the rules need even alone", async () => {
    const fake = repository();
    fake.treeEntryCap = 50;
    fake.graphqlEntryCap = 50;
    const github = new GitHubRepository(apiFor(fake));
    const check = checkPullRequest(github, { base: "main", head: "feature", pr: { author: "carol" } });
    await expect(check).rejects.toThrow(TruncatedTreeError);
    await expect(check).rejects.toThrow(
      /^GitHub cut the file tree of [0-9a-f]{7} short \(over 100,000 entries or 7 MB\) in tasks\/$/,
    );
    await expect(check).rejects.toMatchObject({ hint: expect.stringContaining("split it into subfolders") });
  });

  it("lets a folder the rules never enter be as large as it likes", async () => {
    const plain = await judge(repository(20));
    nock.cleanAll();
    const fake = repository(20);
    // `vendor` (60 files) is cut either way, and never read: nothing in it changed.
    fake.graphqlEntryCap = 50;
    fake.treeEntryCap = 50;
    expect(await judge(fake)).toEqual(plain);
    expect(plain.check.violations.map((item) => `${item.code} ${item.task}`)).toContain("artifact-missing t18");
  });
});
