/**
 * The App on repositories GitHub cuts: a pull request gets the same check whether or not GitHub would
 * cut the repository's recursive tree (the App never asks for one), in the same requests; a folder
 * the rules need that GitHub cuts even alone fails the check, says so, and records nothing. The
 * fake's caps are set small, so that the real mechanism runs on small repositories.
 */
import nock from "nock";
import { describe, expect, it } from "vitest";
import { FakeGitHub } from "../helpers/fake-github.js";

import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();

/**
 * `tasks` tasks at `research` and 60 vendored files; `feature` asks for approval of the last task's
 * research and, with `vendor`, edits a vendored file (which no task may: a violation).
 */
function pullRequest(tasks: number, vendor = true): FakeGitHub {
  const repo = sandbox.repo();
  const files: Record<string, string> = { ".github/taskgate.yml": "preset: phases\n" };
  for (let index = 0; index < 60; index++) files[`vendor/lib${String(index).padStart(2, "0")}.js`] = `${index};\n`;
  for (let index = 0; index < tasks; index++) {
    files[`tasks/t${String(index).padStart(2, "0")}/.state`] = "research\n";
    files[`tasks/t${String(index).padStart(2, "0")}/SPEC.md`] = `spec ${index}\n`;
  }
  repo.write(files);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const last = `t${String(tasks - 1).padStart(2, "0")}`;
  repo.write({ [`tasks/${last}/.state`]: "research:awaiting_approval\n" });
  if (vendor) repo.write({ "vendor/lib07.js": "patched;\n" });
  repo.commit("ready for review", "carol");
  const fake = sandbox.github(repo, { head: "feature" });
  return fake;
}

async function opened(fake: FakeGitHub): Promise<{ conclusion: string; summary: string; requests: string[] }> {
  await testProbot().receive({
    id: "1",
    name: "pull_request",
    payload: fake.payload(example("pull_request", "opened")) as never,
  });
  expect(fake.schemaErrors).toEqual([]);
  const run = fake.checkRuns[0]!;
  const requests = fake.apiRequests.map(
    (request) => request.operation ?? `${request.method} ${request.path.replace(/[0-9a-f]{40}/g, "<sha>")}`,
  );
  return { conclusion: run.conclusion, summary: run.output.summary, requests };
}

describe("the App where GitHub cuts trees", () => {
  it("gives the same check, in the same requests, whether GitHub would cut the recursive tree or not", async () => {
    const plain = await opened(pullRequest(40));
    expect(plain.conclusion).toBe("failure");
    expect(plain.summary).toContain("vendor/lib07.js");
    nock.cleanAll();
    const fake = pullRequest(40);
    // 40 task folders, 60 vendored files: the recursive tree has 201 entries.
    fake.treeEntryCap = 50;
    fake.graphqlEntryCap = 70;
    const cut = await opened(fake);
    expect(cut.conclusion).toBe(plain.conclusion);
    expect(cut.summary).toBe(plain.summary);
    expect(cut.requests.filter((request) => !request.startsWith("POST /app"))).toEqual(
      plain.requests.filter((request) => !request.startsWith("POST /app")),
    );
    expect(cut.requests.some((request) => request.includes("/git/trees/"))).toBe(false);
  });

  it("fails the check, saying so, and records nothing, when GitHub cuts a folder the rules need even alone", async () => {
    const fake = pullRequest(60, false);
    fake.treeEntryCap = 50;
    fake.graphqlEntryCap = 50;
    fake.review("bob", "APPROVED", fake.sha("feature"), "2026-11-30T10:00:00Z");
    fake.permissions.bob = "WRITE";
    const { conclusion, summary, requests } = await opened(fake);
    expect(conclusion).toBe("failure");
    expect(summary).toMatch(
      /GitHub cut the file tree of [0-9a-f]{7} short \(over 100,000 entries or 7 MB\) in tasks\//,
    );
    expect(summary).toContain("split it into subfolders");
    expect(requests).not.toContain("RecordDecisions");
    expect(fake.comments[0]!.body).toContain("GitHub cut the file tree");
  });
});
