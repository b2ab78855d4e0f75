/**
 * The GitHub App end to end against a stateful fake of GitHub (backed by a real git repository):
 * open → review → the bot's commit → re-check → green, for both presets, with the exact requests.
 */
import { describe, expect, it } from "vitest";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { runCli, type TempRepo } from "../helpers/git.js";
import { appSandbox, example, testProbot as probot } from "../helpers/probot.js";

const sandbox = appSandbox();

/** main holds the config and one task at `research`; `feature` asks for approval of its research. */
function phasesRepo(): { repo: TempRepo; fake: FakeGitHub; reviewed: string } {
  const repo = sandbox.repo();
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "# Spec\nThe login form.\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
  const reviewed = repo.commit("ready for review", "carol");
  const fake = sandbox.github(repo, { head: "feature" });
  return { repo, fake, reviewed };
}

const operations = (fake: FakeGitHub) =>
  fake.apiRequests.map((request) =>
    request.operation
      ? `graphql ${request.operation}`
      : `${request.method} ${request.path.replace(/\/repos\/acme\/web/, "")}`,
  );

describe("the app on a phases repository", () => {
  it("waits for approval, records the review in one commit of its own, then turns green", async () => {
    const { fake, reviewed } = phasesRepo();
    const bot = probot();
    await bot.receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    expect(fake.schemaErrors).toEqual([]);
    expect(operations(fake)).toEqual([
      "graphql PullRequestFacts",
      `GET /compare/${fake.sha("main")}...${reviewed}`,
      // The roots, and the folders above the files the comparison lists (tasks, tasks/login).
      "graphql Folders",
      "graphql Batch",
      `GET /commits/${reviewed}/check-runs`,
      "POST /check-runs",
      "POST /issues/7/comments",
      // Written: was the result computed from the pull request as it is now? (And one comment only.)
      "graphql PullRequestVersion",
    ]);
    expect(fake.checkRuns).toEqual([
      expect.objectContaining({ name: "taskgate: main", head_sha: reviewed, conclusion: "action_required" }),
    ]);
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body).toContain("login waits for approval of research");

    fake.requests.length = 0;
    fake.review("bob", "APPROVED", reviewed, "2026-11-30T10:00:00Z", "looks right");
    fake.permissions.bob = "WRITE";
    await bot.receive({
      id: "2",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    expect(fake.schemaErrors).toEqual([]);
    const recorded = fake.sha("feature");
    expect(recorded).not.toBe(reviewed);
    expect(fake.git("show", `${recorded}:tasks/login/.state`)).toBe("research:approved");
    expect(fake.git("show", `${recorded}:tasks/login/.state.approvals`)).toBe(
      "research:approved|2026-11-30T10:00:00Z|bob",
    );
    expect(fake.git("log", "-1", "--format=%an", recorded)).toBe("taskgate[bot]");
    const ops = operations(fake);
    expect(ops.filter((op) => op === "graphql RecordDecisions")).toHaveLength(1);
    // Evaluation before and after the commit: 4 requests each, and one level of the reviewed commit's folders.
    expect(ops.filter((op) => op === "graphql PullRequestFacts")).toHaveLength(2);
    const green = fake.checkRuns.find((run) => run.head_sha === recorded);
    expect(green).toMatchObject({ name: "taskgate: main", conclusion: "success" });
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body).toContain("every problem found earlier is fixed");

    // The push the bot made comes back as a synchronize event: judged, nothing written, no loop.
    fake.requests.length = 0;
    await bot.receive({
      id: "3",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "synchronize"), {
        sender: { login: "taskgate[bot]", type: "Bot", id: 2 },
      }) as never,
    });
    const again = operations(fake);
    expect(again).not.toContain("graphql RecordDecisions");
    expect(again.filter((op) => op.startsWith("POST") || op.startsWith("PATCH") || op.startsWith("DELETE"))).toEqual(
      [],
    );
  });
});

describe("the app on a board", () => {
  const DEFS = [def("api", { paths: ["src/api/**"] })];
  function boardRepo(): { fake: FakeGitHub; submitted: string } {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n",
      ...(board(DEFS, { api: claimed("carol/a1") }, 1) as Record<string, string>),
      "src/api/x.ts": "1\n",
    });
    repo.commit("plan", "alice");
    repo.git("checkout", "-q", "-b", "feature");
    const inReview = entry("review", {
      owner: "carol/a1",
      history: [
        ...claimed("carol/a1").history,
        step("submit", "in_progress", "review", "carol/a1", { evidence: "state/evidence/api.md" }),
      ],
    });
    repo.write({
      ...(board(DEFS, { api: inReview }, 2) as Record<string, string>),
      "state/evidence/api.md": "npm test: 12 passed\n",
      "state/handoffs/api.md": "ready\n",
      "src/api/x.ts": "2\n",
    });
    const submitted = repo.commit("submit api", "carol");
    const fake = sandbox.github(repo, { head: "feature" });
    fake.permissions.quinn = "WRITE";
    return { fake, submitted };
  }

  it("records an approving review as review → done and turns green", async () => {
    const { fake, submitted } = boardRepo();
    const bot = probot();
    await bot.receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    expect(fake.checkRuns.at(-1)).toMatchObject({ head_sha: submitted, conclusion: "action_required" });
    fake.review("quinn", "APPROVED", submitted, "2026-11-30T11:00:00Z");
    await bot.receive({
      id: "2",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    expect(fake.schemaErrors).toEqual([]);
    const head = fake.sha("feature");
    const ledger = JSON.parse(fake.git("show", `${head}:state/tasks.json`));
    expect(ledger.revision).toBe(3);
    expect(ledger.tasks.api).toMatchObject({ status: "done", owner: null });
    expect(ledger.tasks.api.history.at(-1)).toMatchObject({
      action: "approve",
      by: "quinn",
      at: "2026-11-30T11:00:00Z",
    });
    expect(fake.checkRuns.find((run) => run.head_sha === head)).toMatchObject({ conclusion: "success" });
  });

  it("records a change request as a reject and fails until a new executor resubmits", async () => {
    const { fake, submitted } = boardRepo();
    const bot = probot();
    fake.review("quinn", "CHANGES_REQUESTED", submitted, "2026-11-30T11:00:00Z", "cover the error path");
    await bot.receive({
      id: "1",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    expect(fake.schemaErrors).toEqual([]);
    const head = fake.sha("feature");
    expect(head).not.toBe(submitted);
    const ledger = JSON.parse(fake.git("show", `${head}:state/tasks.json`));
    expect(ledger.tasks.api).toMatchObject({ status: "todo", owner: null });
    expect(ledger.tasks.api.history.at(-1)).toMatchObject({
      action: "reject",
      by: "quinn",
      note: "cover the error path",
    });
    const check = fake.checkRuns.find((run) => run.head_sha === head);
    expect(check).toMatchObject({ conclusion: "failure" });
    expect(check!.output.summary).toContain("review-rejected");
    expect(fake.comments[0]!.body).toContain("quinn rejected api: cover the error path");
  });
});

describe("what the app never trusts", () => {
  it("counts neither the author's review, a bot's, nor one below min_permission; repeats no secret", async () => {
    const { fake, reviewed } = phasesRepo();
    const token = `ghp_${"Qw3".repeat(12)}`;
    fake.permissions = { carol: "ADMIN", "other[bot]": "ADMIN", dave: "READ" };
    fake.review("carol", "APPROVED", reviewed, "2026-11-30T10:00:00Z", token);
    fake.review("other[bot]", "APPROVED", reviewed, "2026-11-30T10:01:00Z");
    fake.review("dave", "APPROVED", reviewed, "2026-11-30T10:02:00Z", `leaked ${token}`);
    await probot().receive({
      id: "1",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(fake.sha("feature")).toBe(reviewed);
    const check = fake.checkRuns[0]!;
    expect(check.conclusion).toBe("action_required");
    expect(check.output.summary).toContain("carol is the author");
    expect(check.output.summary).toContain("bots never approve");
    expect(check.output.summary).toContain("dave has read permission; write is needed");
    const everything = JSON.stringify({ checks: fake.checkRuns, comments: fake.comments });
    expect(everything).not.toContain(token);
  });

  it("refuses a commit that claims to be the bot without GitHub's verified signature", async () => {
    const { repo, fake, reviewed } = phasesRepo();
    repo.write({
      "tasks/login/.state": "research:approved\n",
      "tasks/login/.state.approvals": "research:approved|2026-11-30T10:00:00Z|bob\n",
    });
    const forged = repo.commit("record approval", "taskgate[bot]");
    fake.logins.set(forged, { login: "taskgate[bot]", type: "Bot", verified: false });
    fake.review("bob", "APPROVED", reviewed, "2026-11-30T10:00:00Z");
    fake.permissions.bob = "WRITE";
    await probot().receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "synchronize")) as never,
    });
    const check = fake.checkRuns.find((run) => run.head_sha === forged)!;
    expect(check.conclusion).toBe("failure");
    expect(check.output.summary).toContain("approval-forged");
  });
});

describe("status files in the record commit", () => {
  it("re-renders them with the records when render.commit is pr, so render --check stays clean", async () => {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "# Spec\n",
    });
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    repo.commit("base with rendered status", "alice");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    const reviewed = repo.commit("ready", "carol");
    const fake = sandbox.github(repo, { head: "feature" });
    fake.permissions.bob = "WRITE";
    fake.review("bob", "APPROVED", reviewed, "2026-11-30T10:00:00Z");
    await probot().receive({
      id: "1",
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")) as never,
    });
    const head = fake.sha("feature");
    const changed = fake.git("diff", "--name-only", reviewed, head).split("\n").sort();
    expect(changed).toEqual([
      "docs/status/cards/login.md",
      "docs/status/matrix.md",
      "docs/status/stages.md",
      "tasks/login/.state",
      "tasks/login/.state.approvals",
    ]);
    fake.syncWorkTree();
    expect((await runCli(["render", "--check"], repo.dir)).code).toBe(0);
    expect(fake.checkRuns.find((run) => run.head_sha === head)).toMatchObject({ conclusion: "success" });
  });

  it("writes no comment on a pull request with nothing to say", async () => {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "s\n",
    });
    repo.commit("base", "alice");
    repo.git("checkout", "-q", "-b", "clean", "main");
    repo.write({ "tasks/login/NOTES.md": "notes\n" });
    repo.commit("notes", "carol");
    const fake = sandbox.github(repo, { head: "clean" });
    await probot().receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
    expect(fake.checkRuns).toEqual([expect.objectContaining({ conclusion: "success" })]);
    expect(fake.comments).toEqual([]);
    // taskgate's comments come with the facts: nothing to say costs no comment request at all.
    expect(fake.apiRequests.filter((request) => request.path.includes("/comments"))).toHaveLength(0);
  });
});
