/**
 * Adopting taskgate in a repository with work in flight, on GitHub: the pull request that brings in
 * tasks `taskgate upgrade` placed past their gates waits for one review; the App records it in each
 * task's log in one commit of its own, and the check turns green. A hand-written adoption line fails.
 */
import { describe, expect, it } from "vitest";

import { runCli } from "../helpers/git.js";
import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();

async function adoptionPullRequest() {
  const repo = sandbox.repo();
  repo.write({ ".github/taskgate.yml": "preset: phases\n", "README.md": "work in flight\n" });
  repo.commit("taskgate", "alice");
  repo.git("checkout", "-q", "-b", "adopt");
  repo.write({
    "tasks/login/SPEC.md": "# Spec\n",
    "tasks/login/DESIGN.md": "# Design\n",
    "tasks/search/SPEC.md": "# Spec\n",
    "tasks/export/SPEC.md": "# Spec\n",
    "tasks/export/BUG_REPORT.md": "bugs\n",
  });
  expect((await runCli(["upgrade", "--as", "carol"], repo.dir)).code).toBe(0);
  const head = repo.commit("adopt taskgate", "carol");
  const fake = sandbox.github(repo, { head: "adopt" });
  fake.permissions.bob = "WRITE";
  return { repo, fake, head };
}

describe("an adoption pull request on GitHub", () => {
  it("waits for one review, then the App records adopted:approved in each adopted task and turns green", async () => {
    const { fake, head } = await adoptionPullRequest();
    const bot = testProbot();
    await bot.receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    const waiting = fake.checkRuns.find((run) => run.head_sha === head)!;
    expect(waiting.conclusion).toBe("action_required");
    expect(waiting.output.summary).toContain("adoption of 2 task(s) already past a gate waits for 1 approving review");

    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await bot.receive({
      id: "2",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    expect(fake.schemaErrors).toEqual([]);
    expect(fake.restErrors).toEqual([]);
    const recorded = fake.sha("adopt");
    expect(recorded).not.toBe(head);
    expect(fake.git("log", "-1", "--format=%an", recorded)).toBe("taskgate[bot]");
    for (const task of ["login", "export"]) {
      expect(fake.git("show", `${recorded}:tasks/${task}/.state.approvals`)).toContain(
        "adopted:approved|2026-11-30T10:00:00Z|bob",
      );
    }
    expect(fake.requests.filter((request) => request.operation === "RecordDecisions")).toHaveLength(1);
    expect(fake.checkRuns.find((run) => run.head_sha === recorded)).toMatchObject({ conclusion: "success" });
  });

  it("a hand-written adoption line is forged", async () => {
    const { repo, fake } = await adoptionPullRequest();
    repo.write({ "tasks/login/.state.approvals": "adopted:approved|2026-11-30T10:00:00Z|bob\n" });
    const forged = repo.commit("adopt it myself", "carol");
    await testProbot().receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "synchronize")) as never,
    });
    const check = fake.checkRuns.find((run) => run.head_sha === forged)!;
    expect(check.conclusion).toBe("failure");
    expect(check.output.summary).toMatch(/approval-forged|history-rewritten/);
  });
});
