/**
 * One pipeline for every surface: the same pull request judged through the port in memory, the git
 * adapter (with GitHub's facts as `PR.json`) and the GitHub adapter against the fake gives the same
 * report; and the GitHub port answers the reads of one tick with one request of each kind.
 */
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPullRequest, type PrInput } from "../../src/core/service.js";
import type { Report } from "../../src/core/kernel/types.js";
import { GitRepository } from "../../src/git/repository.js";
import { evaluatePullRequest } from "../../src/github/pull-request.js";
import { GitHubRepository } from "../../src/github/repository.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import { MemoryRepository } from "../helpers/memory-port.js";
import { apiFor, kinds } from "./helpers.js";

const repos: TempRepo[] = [];
beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

/**
 * A task asked for approval (`ready`), then a project file edited (`later`, the head), or with
 * `stale`, the task's spec rewritten after the request. bob (write) approves `ready`, mallory
 * (read) approves the head.
 */
function reviewed(stale: boolean): { fake: FakeGitHub; ready: string; head: string } {
  const repo = tempRepo();
  repos.push(repo);
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "s\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
  const ready = repo.commit("ready", "carol");
  repo.write(stale ? { "tasks/login/SPEC.md": "rewritten after the review\n" } : { "src/app.ts": "2\n" });
  const head = repo.commit("later", "carol");
  const fake = new FakeGitHub(repo, { head: "feature" });
  fake.install();
  fake.permissions.bob = "WRITE";
  fake.permissions.mallory = "READ";
  fake.review("bob", "APPROVED", ready, "2026-11-30T09:00:00Z");
  fake.review("mallory", "APPROVED", head, "2026-11-30T10:00:00Z");
  return { fake, ready, head };
}

/** What GitHub says of the pull request, as `PR.json` carries it to the command line. */
async function prJson(fake: FakeGitHub): Promise<PrInput> {
  const api = apiFor(fake);
  const facts = (await api.pullRequest(fake.number))!;
  const comparison = await api.compare(fake.sha("main"), fake.sha("feature"));
  const known = await api.batch({ blobs: [], people: ["bob", "mallory"], teams: [] });
  return { author: facts.author, reviews: facts.reviews, commits: comparison.commits, permissions: known.permissions };
}

describe("one pipeline for every surface", () => {
  it("gives the same report through the port in memory, the git adapter and GitHub, for a trust case", async () => {
    const reports: { stale: boolean; reports: Report[] }[] = [];
    for (const stale of [false, true]) {
      nock.cleanAll();
      const { fake } = reviewed(stale);
      const pr = await prJson(fake);
      const request = { base: "main", head: "feature", pr };
      const memory = await checkPullRequest(MemoryRepository.fromGit(fake.repo.dir), request);
      const git = await checkPullRequest(await GitRepository.open(fake.repo.dir), request);
      const github = (await evaluatePullRequest(apiFor(fake), fake.number))!.report;
      reports.push({ stale, reports: [memory, git, github] });
    }
    for (const {
      reports: [memory, git, github],
    } of reports) {
      expect(git).toEqual(memory);
      expect(github).toEqual(memory);
    }
    // bob's approval of the request stands while the task is unchanged since; mallory's never counts.
    const [fresh, stale] = reports.map((item) => item.reports[0]!);
    expect(fresh!.pending).toEqual([]);
    expect(fresh!.records.length).toBeGreaterThan(0);
    expect(stale!.pending.length).toBeGreaterThan(0);
    expect(stale!.records).toEqual([]);
  });
});

describe("the GitHub port's batching", () => {
  it("answers reads started in the same tick with one request of folders per level and one Batch", async () => {
    const { fake } = reviewed(false);
    const [base, head] = [fake.sha("main"), fake.sha("feature")];
    const scope = { paths: [".github/taskgate.yml", "tasks/login/.state"], prefixes: [] };
    const together = new GitHubRepository(apiFor(fake));
    const [before, after, people] = await Promise.all([
      together.readSnapshot(base, scope),
      together.readSnapshot(head, scope),
      together.people({ logins: ["bob"], teams: [], commits: [] }),
    ]);
    expect(before.files.get("tasks/login/.state")?.text).toBe("research\n");
    expect(after.files.get("tasks/login/.state")?.text).toBe("research:awaiting_approval\n");
    expect(people.permissions).toEqual({ bob: "write" });
    // The roots; `.github` (the same folder in both) and `tasks` of each; `tasks/login` of each; the blobs and bob.
    expect(kinds(fake.apiRequests)).toEqual(["Folders", "Folders", "Folders", "Batch"]);
    const batch = fake.apiRequests.find((request) => request.operation === "Batch")!;
    expect(Object.values((batch.body as { variables: Record<string, string> }).variables)).toEqual(
      expect.arrayContaining(["bob"]),
    );
    fake.requests.length = 0;
    // The same reads one after the other: a request for each.
    const apart = new GitHubRepository(apiFor(fake));
    await apart.readSnapshot(base, scope);
    await apart.readSnapshot(head, scope);
    await apart.people({ logins: ["bob"], teams: [], commits: [] });
    expect(kinds(fake.apiRequests).filter((kind) => kind === "Batch")).toHaveLength(3);
    expect(fake.schemaErrors).toEqual([]);
  });
});
