/**
 * The bundled Action (action/dist/index.js) run as a child process, as a runner runs it: an event
 * file, the runner's environment, and a local HTTP stand-in for GitHub's API (the stateful fake,
 * backed by a real git repository). One flow per mode.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { board, def, entry, step } from "../helpers/board.js";
import { actionPullRequest, runBundle } from "../helpers/action.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo } from "../helpers/git.js";
import { example } from "../helpers/probot.js";

// Each test runs the bundled Action in its own Node.js process against the fake, with Octokit's
// one second between GraphQL requests: on a loaded machine that takes longer than the default.
vi.setConfig({ testTimeout: 60_000 });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const runAction = async (
  fake: FakeGitHub,
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  workspace?: string,
) => {
  const run = await runBundle(cleanups, fake, event, inputs, workspace);
  // Whatever the flow, every REST request is one GitHub describes, and names the API version.
  expect(fake.restErrors).toEqual([]);
  expect(fake.missingApiVersion).toEqual([]);
  return run;
};

const ACTIONS_BOT = "preset: phases\nbot: github-actions[bot]\n";

const phasesRepo = () => actionPullRequest(cleanups);

describe("check mode", () => {
  it("reports as a commit status, records an approval as github-actions[bot], writes the step summary", async () => {
    const { fake, head } = phasesRepo();
    const waiting = await runAction(fake, {
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")),
    });
    expect(fake.schemaErrors).toEqual([]);
    expect(fake.restErrors).toEqual([]);
    expect(fake.missingApiVersion).toEqual([]);
    expect(waiting.code).toBe(0);
    expect(waiting.outputs).toMatchObject({ conclusion: "action_required", violations: "0" });
    expect(JSON.parse(readFileSync(waiting.outputs.report!, "utf8"))).toMatchObject({ conclusion: "action_required" });
    expect(fake.statuses).toEqual([
      expect.objectContaining({
        sha: head,
        context: "taskgate: main",
        state: "pending",
        target_url: "https://github.example/acme/web/actions/runs/42",
      }),
    ]);
    expect(fake.checkRuns).toEqual([]);
    expect(waiting.summary).toContain("```mermaid");
    expect(waiting.summary).toContain("| login | research | research:awaiting_approval |");

    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    fake.permissions.bob = "WRITE";
    const approved = await runAction(fake, {
      name: "pull_request_review",
      payload: fake.payload(example("pull_request_review", "submitted")),
    });
    expect(approved.code).toBe(0);
    const recorded = fake.sha("feature");
    expect(recorded).not.toBe(head);
    expect(fake.git("log", "-1", "--format=%an", recorded)).toBe("github-actions[bot]");
    expect(fake.statuses.at(-1)).toMatchObject({ sha: recorded, state: "success" });
    expect(approved.outputs.conclusion).toBe("success");
  });

  it("on a fork's pull request writes nothing, and fails the step with the problems", async () => {
    const { repo, fake } = phasesRepo();
    repo.write({ ".github/workflows/ci.yml": "on: push\n" });
    repo.commit("touch the workflow", "carol");
    fake.fork = true;
    const payload = fake.payload(example("pull_request", "opened"));
    const run = await runAction(fake, { name: "pull_request", payload });
    expect(run.code).toBe(1);
    expect(run.outputs.conclusion).toBe("failure");
    expect(fake.statuses).toEqual([]);
    expect(fake.comments).toEqual([]);
    expect(run.summary).toContain("out-of-scope");
    expect(run.stdout).toContain("::error title=out-of-scope,file=.github/workflows/ci.yml");
  });

  it("fails the step with a clear message on an error", async () => {
    const { fake } = phasesRepo();
    const unknown = await runAction(fake, { name: "issues", payload: {} });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('no mode for the event "issues"');
    fake.failures.push({
      method: "GET",
      match: /\/compare\//,
      status: 403,
      message: "Resource not accessible by integration",
    });
    const refused = await runAction(fake, {
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")),
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("the token lacks a permission");
    // The runner masks the token: the only place it appears is the mask command itself.
    expect(refused.stdout.replace("::add-mask::ghs_actiontoken", "")).not.toContain("ghs_actiontoken");
  });
});

describe("the first question", () => {
  const operations = (fake: FakeGitHub) => fake.requests.map((request) => request.operation ?? request.path);

  it("is asked before the rest loads, carries the token, and its answer is used, not asked for again", async () => {
    const { fake } = phasesRepo();
    const run = await runAction(fake, {
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")),
    });
    expect(run.code).toBe(0);
    expect(operations(fake)[0]).toBe("PullRequestFacts");
    expect(operations(fake).filter((name) => name === "PullRequestFacts")).toHaveLength(1);
    expect(fake.requests.some((request) => request.path.includes("refused"))).toBe(false);

    const audit = await runAction(fake, { name: "schedule", payload: {} });
    expect(audit.code).toBe(0);
    expect(operations(fake).filter((name) => name === "DefaultBranch")).toHaveLength(1);
  });

  it.each([
    ["an error status", 502],
    ["GraphQL errors", 200],
  ])("when its answer is %s, the flow asks again and goes on as usual", async (_what, status) => {
    const { fake, head } = phasesRepo();
    fake.failures.push({ method: "GRAPHQL", match: /^PullRequestFacts$/, status });
    const run = await runAction(fake, {
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")),
    });
    expect(run.code).toBe(0);
    expect(operations(fake).filter((name) => name === "PullRequestFacts")).toHaveLength(2);
    expect(fake.statuses).toEqual([expect.objectContaining({ sha: head, state: "pending" })]);
  });

  it("a token GitHub refuses fails the step with the refusal, once the flow asks again", async () => {
    const { fake } = phasesRepo();
    const run = await runAction(
      fake,
      { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) },
      { token: "ghs_wrong" },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("the token was refused");
    expect(fake.requests.filter((request) => request.path.includes("refused")).length).toBeGreaterThanOrEqual(2);
    expect(fake.statuses).toEqual([]);
  });
});

describe("audit mode", () => {
  it("reports a direct change to task files in one tracking issue, reading the checkout, and closes it once clean", async () => {
    const repo = tempRepo();
    cleanups.push(() => repo.remove());
    repo.write({
      ".github/taskgate.yml": ACTIONS_BOT,
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "s\n",
    });
    const first = repo.commit("base", "alice");
    const fake = new FakeGitHub(repo, { head: "main", bot: "github-actions[bot]" });
    fake.actor = "github-actions[bot]";
    const schedule = { name: "schedule", payload: { schedule: "0 3 * * *" } };

    const clean = await runAction(fake, schedule, {}, repo.dir);
    expect(clean.code).toBe(0);
    expect(fake.issues).toEqual([]);

    repo.write({
      "tasks/login/.state": "research:approved\n",
      "tasks/login/.state.approvals": "research:approved|2026-11-30T10:00:00Z|mallory\n",
    });
    const direct = repo.commit("approve it myself", "mallory");
    fake.logins.set(direct, { login: "mallory" });
    const dirty = await runAction(fake, schedule, {}, repo.dir);
    expect(dirty.code).toBe(1);
    expect(fake.issues).toHaveLength(1);
    const issue = fake.issues[0]!;
    expect(issue).toMatchObject({ state: "open", labels: [{ name: "taskgate-audit" }] });
    expect(issue.body).toContain(`<!-- taskgate:audited ${direct} -->`);
    expect(issue.body).toContain("unauthorized-change");
    expect(issue.body).toContain(`commit ${direct.slice(0, 7)} by mallory changed`);
    // Table cells escape the pipes of the approval line.
    expect(issue.body).toContain('added the recorded decision "research:approved\\|2026-11-30T10:00:00Z\\|mallory"');
    // Read from the checkout: no tree or blob requests for the task files.
    expect(fake.requests.some((request) => request.path.includes("/git/trees/"))).toBe(false);

    repo.write({ "tasks/login/.state": "research\n", "tasks/login/.state.approvals": null });
    // Undone by a revert: the change no longer stands, and undoing it went around nothing.
    const revert = repo.commit("revert", "alice");
    const again = await runAction(fake, schedule, {}, repo.dir);
    expect(again.code).toBe(0);
    expect(fake.issues).toHaveLength(1);
    expect(fake.issues[0]).toMatchObject({ state: "closed" });
    expect(fake.issues[0]!.body).toContain(`<!-- taskgate:audited ${revert} -->`);
    expect(first).not.toBe(revert);
  });
});

describe("render mode", () => {
  const CONFIG = "preset: board\nbot: github-actions[bot]\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n";
  function boardRepo() {
    const repo = tempRepo();
    cleanups.push(() => repo.remove());
    const escalated = entry("blocked", {
      blocked_by: ["r"],
      history: [step("claim", "todo", "in_progress", "dave/x"), step("escalate", "in_progress", "blocked", "dave/x")],
    });
    const done = entry("done", {
      history: [
        step("claim", "todo", "in_progress", "carol"),
        step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/r.md" }),
        step("approve", "review", "done", "quinn"),
      ],
    });
    repo.write({
      ".github/taskgate.yml": CONFIG,
      ...(board([def("p"), def("r")], { p: escalated, r: done }, 5, {
        "state/evidence/r.md": "ok\n",
        "state/handoffs/r.md": "ok\n",
        "state/issues/p-x.json": "{}\n",
        "state/handoffs/p.md": "blocked\n",
      }) as Record<string, string>),
    });
    repo.commit("resolver merged", "alice");
    const fake = new FakeGitHub(repo, { head: "main", bot: "github-actions[bot]" });
    fake.actor = "github-actions[bot]";
    return { repo, fake };
  }

  it("unblocks the parent of a done resolver in one commit on the default branch; nothing on the next push", async () => {
    const { repo, fake } = boardRepo();
    const before = fake.sha("main");
    const push = {
      name: "push",
      payload: { ref: "refs/heads/main", after: before, repository: { default_branch: "main" } },
    };
    const run = await runAction(fake, push, {}, repo.dir);
    expect(run.code).toBe(0);
    const after = fake.sha("main");
    expect(after).not.toBe(before);
    const ledger = JSON.parse(fake.git("show", `${after}:state/tasks.json`));
    expect(ledger.revision).toBe(6);
    expect(ledger.tasks.p).toMatchObject({ status: "todo", blocked_by: [] });
    expect(ledger.tasks.p.history.at(-1)).toMatchObject({ action: "unblock", by: "github-actions[bot]" });
    repo.git("reset", "-q", "--hard", "main");
    const idle = await runAction(fake, push, {}, repo.dir);
    expect(idle.code).toBe(0);
    expect(fake.sha("main")).toBe(after);
  });

  it("proposes the follow-ups in one sync pull request where the branch refuses the bot", async () => {
    const { repo, fake } = boardRepo();
    fake.protectedBranches.add("main");
    const push = { name: "push", payload: { ref: "refs/heads/main", repository: { default_branch: "main" } } };
    const first = await runAction(fake, push, {}, repo.dir);
    expect(first.code).toBe(0);
    expect(fake.pulls).toEqual([
      expect.objectContaining({ head: { ref: "taskgate/follow-ups" }, base: { ref: "main" } }),
    ]);
    const synced = JSON.parse(fake.git("show", "taskgate/follow-ups:state/tasks.json"));
    expect(synced.tasks.p.status).toBe("todo");
    await runAction(fake, push, {}, repo.dir);
    expect(fake.pulls).toHaveLength(1);
  });
});
