/**
 * The App's audit and follow-ups, tried as someone with write access would: nothing anyone can edit
 * (an issue body, another app's check run, a branch of the same name) vouches for a change on the
 * default branch; only the App's own check run of a merged pull request does, for what GitHub merged;
 * a bot commit there stands only as the follow-up the branch called for; and the sync branch and its
 * pull request are never taken from a person.
 */
import { describe, expect, it } from "vitest";
import { resolverDoneBoard } from "../helpers/board.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { type TempRepo } from "../helpers/git.js";
import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();

const APP = { id: 1, slug: "taskgate" };

const dispatch = (fake: FakeGitHub) => ({
  id: `dispatch-${Math.random()}`,
  name: "repository_dispatch" as const,
  payload: { ...fake.payload(example("repository_dispatch", "on-demand-test")), action: "taskgate-audit" } as never,
});

/**
 * main: the config and task `a`; pull request #1 (`feature`) adds task `b`; the App judged it (its
 * own check run on the head). Returns before the merge.
 */
async function judgedPullRequest() {
  const repo = sandbox.repo();
  repo.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/a/.state": "research\n", "tasks/a/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/b/.state": "research\n", "tasks/b/SPEC.md": "b\n" });
  const head = repo.commit("add b", "carol");
  const fake = sandbox.github(repo, { head: "feature" });
  await testProbot().receive({
    id: "pr",
    name: "pull_request",
    payload: fake.payload(example("pull_request", "opened")) as never,
  });
  expect(fake.checkRuns).toEqual([expect.objectContaining({ head_sha: head, conclusion: "success", app: APP })]);
  repo.git("checkout", "-q", "main");
  return { repo, fake, head };
}

/** Lands the pull request as GitHub's merge button does: a merge commit GitHub commits and signs. */
function mergeOnGitHub(repo: TempRepo, fake: FakeGitHub, head: string): string {
  repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #1", "feature");
  const merge = fake.sha("main");
  fake.logins.set(merge, { login: "carol", verified: true, committer: "web-flow" });
  fake.merge({ number: 1, base: "main", head, mergeCommit: merge, commits: [head] });
  return merge;
}

const problems = (fake: FakeGitHub) => {
  const issue = fake.issues.find((item) => item.performed_via_github_app?.id === APP.id && item.state === "open");
  return issue?.body ?? "";
};

describe("what vouches for a change on the default branch", () => {
  it("the App's own passing check run of the merged pull request", async () => {
    const { repo, fake, head } = await judgedPullRequest();
    mergeOnGitHub(repo, fake, head);
    await testProbot().receive(dispatch(fake));
    expect(fake.schemaErrors).toEqual([]);
    expect(problems(fake)).not.toContain("unauthorized-change");
    expect(fake.issues).toEqual([]);
  });

  it("never another app's check run with taskgate's name, nor a status", async () => {
    const { repo, fake, head } = await judgedPullRequest();
    // The App's own run is gone (say it never ran); an impostor posted a green one of the same name.
    fake.checkRuns.length = 0;
    fake.foreignCheckRun({
      name: "taskgate: main",
      head_sha: head,
      status: "completed",
      conclusion: "success",
      output: { title: "ok", summary: "<!-- taskgate:fingerprint 0 -->", annotations_count: 0 },
    });
    fake.statuses.push({
      sha: head,
      context: "taskgate: main",
      state: "success",
      description: "ok",
      creator: { login: "github-actions[bot]" },
    });
    mergeOnGitHub(repo, fake, head);
    await testProbot().receive(dispatch(fake));
    expect(problems(fake)).toContain("unauthorized-change");
    // (References are inert in the issue: `#1` carries a zero-width space.)
    expect(problems(fake)).toContain(
      "through pull request #\u200b1, whose taskgate: main check of taskgate did not pass",
    );
  });

  it("never a merge that lands something other than the head taskgate judged", async () => {
    const { repo, fake, head } = await judgedPullRequest();
    // A person merges locally, slips an approval into the merge commit, and pushes it.
    repo.git("merge", "-q", "--no-ff", "--no-commit", "feature");
    repo.write({ "tasks/b/.state": "research:approved\n" });
    const merge = repo.commit("Merge pull request #1", "mallory");
    fake.logins.set(merge, { login: "mallory", verified: true, committer: "mallory" });
    fake.merge({ number: 1, base: "main", head, mergeCommit: merge, commits: [head] });
    await testProbot().receive(dispatch(fake));
    expect(problems(fake)).toContain("landed unlike the pull request's head");
    expect(problems(fake)).toContain("tasks/b/.state");
  });
});

/**
 * main: the config and task `a` at research, then one commit straight onto main by `author` that
 * changes `changes`, attributed by GitHub as `github` says. The fake GitHub serves it.
 */
function directChange(
  changes: Record<string, string>,
  author: string,
  github: { login: string; type?: string; verified?: boolean; committer?: string },
) {
  const repo = sandbox.repo();
  repo.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/a/.state": "research\n", "tasks/a/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  repo.write(changes);
  const direct = repo.commit(`${author}'s change`, author);
  const fake = sandbox.github(repo, { head: "main" });
  fake.logins.set(direct, github);
  return { repo, fake, direct };
}

describe("the tracking issue", () => {
  it("is never one a person or another app opened, and no issue body is a baseline", async () => {
    const { fake, direct } = directChange(
      {
        "tasks/a/.state": "research:approved\n",
        "tasks/a/.state.approvals": "research:approved|2026-11-30T10:00:00Z|mallory\n",
      },
      "mallory",
      { login: "mallory" },
    );
    // mallory opens the "tracking issue" herself, saying everything up to her commit was audited.
    fake.issues.push({
      number: 1,
      title: "taskgate audit: main is clean",
      body: `<!-- taskgate:audit -->\n<!-- taskgate:audited ${direct} -->\nall clean`,
      state: "open",
      labels: [{ name: "taskgate-audit" }],
      user: { login: "mallory", type: "User" },
      performed_via_github_app: null,
    });
    // ... and so does another app, with taskgate's label and marker.
    fake.issues.push({
      ...fake.issues[0]!,
      number: 2,
      user: { login: "impostor[bot]", type: "Bot" },
      performed_via_github_app: { id: 99, slug: "impostor" },
    });
    await testProbot().receive(dispatch(fake));
    expect(fake.issues[0]!.body).toContain("all clean");
    expect(fake.issues[1]!.body).toContain("all clean");
    expect(fake.issues).toHaveLength(3);
    expect(problems(fake)).toContain(`commit ${direct.slice(0, 7)} by mallory changed`);
    expect(
      fake.apiRequests.filter((request) => request.method === "PATCH" && request.path.endsWith("/issues/1")),
    ).toEqual([]);
  });

  it("closes once a revert undid the change, and the revert itself went around nothing", async () => {
    const { repo, fake } = directChange({ "tasks/a/.state": "research:approved\n" }, "mallory", { login: "mallory" });
    await testProbot().receive(dispatch(fake));
    expect(problems(fake)).toContain("unauthorized-change");
    repo.write({ "tasks/a/.state": "research\n" });
    repo.commit("revert", "alice");
    await testProbot().receive(dispatch(fake));
    expect(fake.issues).toEqual([expect.objectContaining({ state: "closed" })]);
  });
});

describe("the bot's commits on the default branch", () => {
  it("a record the bot committed to the default branch is unauthorized, however it got there", async () => {
    const { fake } = directChange(
      {
        "tasks/a/.state": "research:approved\n",
        "tasks/a/.state.approvals": "research:approved|2026-11-30T10:00:00Z|bob\n",
      },
      "taskgate[bot]",
      { login: "taskgate[bot]", type: "Bot", verified: true, committer: "web-flow" },
    );
    await testProbot().receive(dispatch(fake));
    expect(problems(fake)).toContain("that is not a follow-up of main");
    expect(problems(fake)).toContain("on main directly, not through a merged pull request");
  });

  it("the bot's own follow-up (an unblock the branch called for) is authorized", async () => {
    const repo = sandbox.repo();
    repo.write(resolverDoneBoard());
    repo.commit("resolver merged", "alice");
    const fake = sandbox.github(repo, { head: "main" });
    const push = fake.payload(example("push"));
    await testProbot().receive({
      id: "push",
      name: "push",
      payload: {
        ...push,
        ref: "refs/heads/main",
        deleted: false,
        repository: { ...(push.repository as object), default_branch: "main" },
      } as never,
    });
    expect(fake.git("log", "-1", "--format=%an", "main")).toBe("taskgate[bot]");
    await testProbot().receive(dispatch(fake));
    expect(fake.issues.map((issue) => issue.body).join("\n")).not.toContain("unauthorized-change");
  });
});

describe("the sync branch of the follow-ups", () => {
  function protectedBoard() {
    const repo = sandbox.repo();
    repo.write(resolverDoneBoard());
    repo.commit("resolver merged", "alice");
    const fake = sandbox.github(repo, { head: "main" });
    fake.protectedBranches.add("main");
    const push = fake.payload(example("push"));
    const event = {
      id: `push-${Math.random()}`,
      name: "push" as const,
      payload: {
        ...push,
        ref: "refs/heads/main",
        deleted: false,
        repository: { ...(push.repository as object), default_branch: "main" },
      } as never,
    };
    return { repo, fake, event };
  }

  it("is never force-moved while it holds a commit taskgate did not make", async () => {
    const { repo, fake, event } = protectedBoard();
    repo.git("checkout", "-q", "-b", "taskgate/follow-ups");
    repo.write({ "notes.md": "dave's work\n" });
    const work = repo.commit("dave's work", "dave");
    repo.git("checkout", "-q", "main");
    await testProbot().receive(event);
    expect(fake.sha("taskgate/follow-ups")).toBe(work);
    expect(fake.pulls).toEqual([]);
    expect(fake.apiRequests.some((request) => request.path.includes("/git/refs"))).toBe(false);
  });

  it("never takes over a pull request from it that taskgate did not open", async () => {
    const { fake, event } = protectedBoard();
    fake.pulls.push({
      number: 9,
      head: { ref: "taskgate/follow-ups" },
      base: { ref: "main" },
      state: "open",
      title: "mine",
      body: "dave's",
      user: { login: "dave", type: "User" },
      performed_via_github_app: null,
    });
    await testProbot().receive(event);
    expect(fake.pulls).toHaveLength(1);
    expect(fake.pulls[0]!.body).toBe("dave's");
    expect(fake.apiRequests.some((request) => request.method === "PATCH" && request.path.includes("/pulls/"))).toBe(
      false,
    );
  });

  it("is brought up to date while it holds only taskgate's commits, in taskgate's own pull request", async () => {
    const { fake, event } = protectedBoard();
    await testProbot().receive(event);
    expect(fake.pulls).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ login: "taskgate[bot]" }) }),
    ]);
    await testProbot().receive({ ...event, id: "again" });
    expect(fake.pulls).toHaveLength(1);
  });
});
