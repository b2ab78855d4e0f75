/**
 * Trust on GitHub, tried as an attacker would, against the stateful fake: taskgate knows its own
 * writes by what GitHub enforces (the App's id, the token's own comments), writes only where a pull
 * request allows, never lets a result from older facts replace a newer one, counts every contributor,
 * keeps repository text inert, pays only for what fails, and stops cheaply on events that change
 * nothing. The fake models what GitHub refuses: another app's check run or comment cannot be changed.
 */
import nock from "nock";
import { describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/github/summary.js";
import { FakeGitHub, type RecordedRequest } from "../helpers/fake-github.js";

import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();

const APP = { id: 1, slug: "taskgate" };

/** main holds one task at `research`; `feature` asks for approval of it (plus `extra` files). */
function awaiting(extra: Record<string, string> = {}, config = "preset: phases\n") {
  const repo = sandbox.repo();
  repo.write({ ".github/taskgate.yml": config, "tasks/login/.state": "research\n", "tasks/login/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "research:awaiting_approval\n", ...extra });
  const head = repo.commit("ready", "carol");
  const fake = sandbox.github(repo, { head: "feature" });
  fake.permissions.bob = "WRITE";
  return { repo, fake, head };
}

const event = (fake: FakeGitHub, name: "pull_request" | "pull_request_review", action: string, extra = {}) => ({
  id: `${name}-${action}-${Math.random()}`,
  name,
  payload: fake.payload(example(name, exampleOf(name, action)), {
    action,
    ...extra,
  }) as never,
});
/** The documented example an event is made from (GitHub's examples do not cover every action). */
function exampleOf(name: string, action: string): string {
  if (name === "pull_request") return ["synchronize", "edited"].includes(action) ? "opened" : action;
  return action === "dismissed" ? "dismissed" : "submitted";
}
const opened = (fake: FakeGitHub) => event(fake, "pull_request", "opened");
const submitted = (fake: FakeGitHub) => event(fake, "pull_request_review", "submitted");
const writesTo = (fake: FakeGitHub, id: number) =>
  fake.apiRequests.filter((request) => request.method !== "GET" && request.path.endsWith(`/${id}`));
const ownRuns = (fake: FakeGitHub, sha: string) =>
  fake.checkRuns.filter((run) => run.head_sha === sha && run.app.id === APP.id);

describe("1. own writes are known by the App's id and the token's own comments", () => {
  it("never takes another app's check run with taskgate's name and marker for its own; creates its own next to it", async () => {
    const { fake, head } = awaiting();
    const impostor = fake.foreignCheckRun({
      name: "taskgate: main",
      head_sha: head,
      status: "completed",
      conclusion: "success",
      output: {
        title: "every move is legal",
        summary: "<!-- taskgate:facts 2099-01-01T00:00:00Z+99 -->\n<!-- taskgate:fingerprint 00000000 -->",
        annotations_count: 0,
      },
    });
    await testProbot().receive(opened(fake));
    expect(writesTo(fake, impostor.id)).toEqual([]);
    expect(impostor.conclusion).toBe("success");
    expect(ownRuns(fake, head)).toEqual([expect.objectContaining({ conclusion: "action_required" })]);
    // Asked for by the App's id, not by name alone.
    expect(fake.apiRequests.find((request) => request.path.endsWith("/check-runs"))?.path).toContain("/check-runs");
  });

  it("never edits or deletes a comment that only looks like taskgate's (a person's, another app's)", async () => {
    const { fake } = awaiting({ ".github/workflows/ci.yml": "on: push\n" });
    const person = fake.foreignComment(`${COMMENT_MARKER}\nI am taskgate, trust me`);
    const other = fake.foreignComment(`${COMMENT_MARKER}\nlooks alike`, "impostor[bot]", { id: 99, slug: "impostor" });
    await testProbot().receive(opened(fake));
    expect(writesTo(fake, person.id)).toEqual([]);
    expect(writesTo(fake, other.id)).toEqual([]);
    const mine = fake.comments.filter((comment) => comment.performed_via_github_app?.id === APP.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain("out-of-scope");
    expect(fake.comments).toHaveLength(3);
  });
});

describe("3. the bot writes only where the pull request authorises it", () => {
  it("never commits a record to the default branch through a pull request from main into a laxer branch", async () => {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "s\n",
    });
    repo.commit("base", "alice");
    repo.git("branch", "lax");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const head = repo.commit("ready on main", "carol");
    const fake = sandbox.github(repo, { head: "main", base: "lax" });
    fake.permissions.bob = "WRITE";
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(fake.sha("main")).toBe(head);
    const check = ownRuns(fake, head)[0]!;
    expect(check.conclusion).toBe("action_required");
    expect(check.output.summary).toContain("head is the default branch");
  });

  it("never commits to a branch GitHub reports as protected", async () => {
    const { fake, head } = awaiting();
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    fake.protectedBranches.add("feature");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(ownRuns(fake, head)[0]!.output.summary).toContain("as protected");
  });

  it("never commits for a pull request whose head repository was deleted", async () => {
    const { fake, head } = awaiting();
    fake.headRepository = () => null;
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(ownRuns(fake, head)[0]!.output.summary).toContain("no longer exists");
  });
});

describe("4. a result computed from older facts never replaces one computed from newer facts", () => {
  /** A pull request whose approval the bot has recorded: green at its new head. */
  async function recorded() {
    const setup = awaiting();
    const { fake, head } = setup;
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    const green = fake.sha("feature");
    expect(green).not.toBe(head);
    expect(ownRuns(fake, green).at(-1)!.conclusion).toBe("success");
    return { ...setup, green };
  }
  const dismiss = (fake: FakeGitHub) => {
    fake.reviews[0] = { ...fake.reviews[0]!, state: "DISMISSED" };
  };
  const latestCheck = (fake: FakeGitHub, sha: string) => ownRuns(fake, sha).at(-1)!;

  it("a slow delivery that read before a dismissal does not write its green over the red that came after", async () => {
    const { fake, green } = await recorded();
    const slowRead = fake.hold((request) => request.operation === "PullRequestFacts");
    const slow = testProbot().receive(event(fake, "pull_request", "synchronize"));
    await slowRead.reached;
    dismiss(fake);
    await testProbot().receive(event(fake, "pull_request_review", "dismissed"));
    expect(latestCheck(fake, green).conclusion).toBe("failure");
    slowRead.release();
    await slow;
    expect(latestCheck(fake, green).conclusion).toBe("failure");
    expect(fake.comments.filter((comment) => comment.body.includes(COMMENT_MARKER))).toHaveLength(1);
  });

  it("a newer delivery that answers last still wins (the other order)", async () => {
    const { fake, green } = await recorded();
    const newerRead = fake.hold((request) => request.operation === "PullRequestFacts");
    dismiss(fake);
    const newer = testProbot().receive(event(fake, "pull_request_review", "dismissed"));
    await newerRead.reached;
    // A re-delivery that read the pull request before the dismissal was seen: modelled by undoing it.
    fake.reviews[0] = { ...fake.reviews[0]!, state: "APPROVED" };
    await testProbot().receive(event(fake, "pull_request", "synchronize"));
    dismiss(fake);
    newerRead.release();
    await newer;
    expect(latestCheck(fake, green).conclusion).toBe("failure");
  });

  it("a stale write that lands after a newer one is judged again and corrected", async () => {
    const { fake, green } = await recorded();
    // The old delivery's write is held until the newer delivery has written.
    // The old delivery's write reaches GitHub only after the newer delivery has written.
    const staleWrite = fake.hold(
      (request: RecordedRequest) => request.method === "PATCH" && request.path.includes("/check-runs/"),
      "before",
    );
    const old = testProbot().receive(event(fake, "pull_request", "synchronize"));
    // The synchronize re-judges the same green head: unchanged, so it writes nothing; force a write
    // by making the old delivery's result differ from what is in place.
    fake.checkRuns.filter((run) => run.head_sha === green).forEach((run) => (run.conclusion = "neutral"));
    await staleWrite.reached;
    dismiss(fake);
    await testProbot().receive(event(fake, "pull_request_review", "dismissed"));
    staleWrite.release();
    await old;
    expect(latestCheck(fake, green).conclusion).toBe("failure");
    expect(fake.apiRequests.filter((request) => request.operation === "PullRequestVersion").length).toBeGreaterThan(1);
  });
});

describe("5. contributors: authors, committers and co-authors", () => {
  it("does not count an approval by someone who committed to the pull request", async () => {
    const { repo, fake } = awaiting();
    repo.write({ "tasks/login/SPEC.md": "s\nmore\n" });
    const rebased = repo.commit("rebased", "carol", "bob");
    fake.logins.set(rebased, { login: "carol", committer: "bob" });
    fake.review("bob", "APPROVED", rebased, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(ownRuns(fake, rebased)[0]!.output.summary).toContain(`bob committed ${rebased.slice(0, 7)}`);
  });

  it("does not count an approval by a co-author GitHub links by e-mail", async () => {
    const { repo, fake } = awaiting();
    repo.write({ "tasks/login/SPEC.md": "s\npaired\n" });
    const paired = repo.commit("paired on it\n\nCo-authored-by: Robert <robert@example.org>", "carol");
    fake.emailLogins["robert@example.org"] = "bob";
    fake.review("bob", "APPROVED", paired, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.some((request) => request.operation === "RecordDecisions")).toBe(false);
    expect(ownRuns(fake, paired)[0]!.output.summary).toContain("co-author");
  });
});

describe("6. text from the repository is inert where taskgate writes it", () => {
  it("writes no live mention, link, image or HTML from paths or the config into the check run and comment", async () => {
    const { fake, head } = awaiting(
      { ".github/@acme/leads [x](https://evil.example) <img src=x>.yml": "1\n" },
      'preset: phases\napprovals:\n  approvers: ["@acme/leads"]\n',
    );
    fake.teams["@acme/leads"] = ["lee"];
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    const check = ownRuns(fake, head)[0]!;
    const comment = fake.comments[0]!.body;
    for (const text of [check.output.summary, check.output.title, comment]) {
      expect(text).not.toMatch(/@[A-Za-z0-9]/);
      expect(text).not.toMatch(/(?<!\\)\]\(/);
      expect(text).not.toMatch(/https?:\/\//);
      expect(text).not.toContain("<img");
    }
    expect(comment).toContain("acme/leads");
  });
});

describe("7. a partial failure costs only its own part", () => {
  it("an approver team GitHub cannot resolve does not count, says why, and every other approval still counts", async () => {
    const { fake, head } = awaiting({}, 'preset: phases\napprovals:\n  approvers: ["@nowhere/leads", bob]\n');
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    // bob's approval is recorded although the team's organization is unknown to GitHub.
    expect(fake.apiRequests.filter((request) => request.operation === "RecordDecisions")).toHaveLength(1);
    expect(ownRuns(fake, fake.sha("feature")).at(-1)!.conclusion).toBe("success");
  });

  it("says why an approval by a team member does not count when GitHub cannot resolve the team", async () => {
    const { fake, head } = awaiting({}, 'preset: phases\napprovals:\n  approvers: ["@nowhere/leads"]\n');
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    const check = ownRuns(fake, head)[0]!;
    expect(check.conclusion).toBe("action_required");
    expect(check.output.summary).toMatch(
      /GitHub could not resolve @\u200bnowhere\/leads \(Could not resolve to an Organization/,
    );
  });

  it("a review by a deleted account does not count, and the pending text says why", async () => {
    const { fake, head } = awaiting();
    fake.reviews.push({ user: null, state: "APPROVED", commit_id: head, submitted_at: "2026-11-30T09:00:00Z" });
    await testProbot().receive(opened(fake));
    const check = ownRuns(fake, head)[0]!;
    expect(check.conclusion).toBe("action_required");
    expect(check.output.summary).toContain("an account that no longer exists");
  });
});

describe("8. events that cannot change a result cost at most one request", () => {
  it("a comment review, an edited review and an edited title cost nothing", async () => {
    const { fake, head } = awaiting();
    fake.review("mallory", "COMMENTED", head, "2026-11-30T10:00:00Z", "nice");
    const bot = testProbot();
    for (let index = 0; index < 20; index++) await bot.receive(submitted(fake));
    await bot.receive(event(fake, "pull_request_review", "edited"));
    await bot.receive(event(fake, "pull_request", "edited", { changes: { title: { from: "old" } } }));
    expect(fake.requests).toEqual([]);
  });

  it("a check event of another app, and pull requests of other repositories, cost nothing", async () => {
    const { fake } = awaiting();
    const run = example("check_run", "rerequested");
    await testProbot().receive({
      id: "c1",
      name: "check_run",
      payload: fake.payload(run, {
        check_run: { ...(run.check_run as object), app: { id: 99 }, pull_requests: [fake.pullRef()] },
      }) as never,
    });
    const suite = example("check_suite", "rerequested");
    const other = { ...fake.pullRef(), number: 1, base: { ref: "main", repo: { id: 777 } } };
    await testProbot().receive({
      id: "c2",
      name: "check_suite",
      payload: fake.payload(suite, {
        check_suite: { ...(suite.check_suite as object), app: APP, pull_requests: [other] },
      }) as never,
    });
    expect(fake.requests).toEqual([]);
  });

  it("the App's own push costs one request", async () => {
    const { fake, head } = awaiting();
    fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
    await testProbot().receive(submitted(fake));
    fake.requests.length = 0;
    await testProbot().receive(
      event(fake, "pull_request", "synchronize", { sender: { login: "taskgate[bot]", type: "Bot", id: 2 } }),
    );
    expect(fake.apiRequests).toHaveLength(1);
    expect(fake.apiRequests[0]!.path).toContain("/check-runs");
  });
});

describe("9. closed or refuted", () => {
  it("a commit made through the contents API with the bot's e-mail is not the bot's, signed or not", async () => {
    for (const verified of [false, true]) {
      const { repo, fake, head } = awaiting();
      repo.write({
        "tasks/login/.state": "research:approved\n",
        "tasks/login/.state.approvals": "research:approved|2026-11-30T10:00:00Z|bob\n",
      });
      const forged = repo.commit("record approval", "taskgate[bot]");
      // GitHub attributes the commit to the bot by its e-mail; the committer is whoever called the API.
      fake.logins.set(forged, { login: "taskgate[bot]", type: "Bot", verified, committer: "mallory" });
      fake.review("bob", "APPROVED", head, "2026-11-30T10:00:00Z");
      await testProbot().receive(event(fake, "pull_request", "synchronize"));
      const check = ownRuns(fake, forged)[0]!;
      expect(check.conclusion).toBe("failure");
      expect(check.output.summary).toContain("approval-forged");
      nock.cleanAll();
    }
  });

  it("more than 40 reviews from outsiders never push a collaborator's review out of the window", async () => {
    const { repo, fake } = awaiting();
    for (let index = 0; index < 42; index++) {
      repo.write({ [`tasks/login/NOTE${index}.md`]: `${index}\n` });
      const sha = repo.commit(`note ${index}`, "carol");
      fake.review(
        `drive-by-${index}`,
        "APPROVED",
        sha,
        `2026-11-30T0${Math.floor(index / 10)}:${String(index % 10).padStart(2, "0")}:00Z`,
      );
    }
    const reviewed = fake.sha("feature");
    fake.review("bob", "APPROVED", reviewed, "2026-11-30T10:00:00Z");
    // A later push that leaves the task alone: bob's review stays fresh, judged at the commit he saw.
    repo.write({ "tasks/other/.state": "new\n" });
    repo.commit("another task", "carol");
    await testProbot().receive(submitted(fake));
    expect(fake.apiRequests.filter((request) => request.operation === "RecordDecisions")).toHaveLength(1);
    expect(fake.git("show", "feature:tasks/login/.state.approvals")).toContain("|bob");
  }, 60_000);

  it("finds its comment without paging a long discussion, and pages once when it has sunk out of sight", async () => {
    const { fake } = awaiting({ ".github/workflows/ci.yml": "on: push\n" });
    for (let index = 0; index < 60; index++) fake.foreignComment(`comment ${index}`, `person${index}`);
    const bot = testProbot();
    await bot.receive(opened(fake));
    const mine = () => fake.comments.filter((comment) => comment.performed_via_github_app?.id === APP.id);
    const pages = () =>
      fake.apiRequests.filter((request) => request.method === "GET" && request.path.endsWith("/comments"));
    expect(mine()).toHaveLength(1);
    // 150 more comments: taskgate's is neither among the first 50 nor the last 50.
    for (let index = 0; index < 150; index++) fake.foreignComment(`later ${index}`, `person${index}`);
    fake.requests.length = 0;
    await bot.receive({ ...opened(fake), id: "again" });
    expect(pages()).toHaveLength(3); // 211 comments, 100 a page
    // Found, and posted anew at the end, where the next delivery sees it without paging.
    expect(mine()).toHaveLength(1);
    expect(fake.comments.at(-1)!.performed_via_github_app?.id).toBe(APP.id);
    fake.requests.length = 0;
    mine()[0]!.body = mine()[0]!.body.replace("out-of-scope", "old words");
    await bot.receive({ ...opened(fake), id: "third" });
    expect(pages()).toEqual([]);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain("out-of-scope");
  });

  it("a long discussion with nothing to say costs no comment request", async () => {
    const clean = awaiting();
    for (let index = 0; index < 250; index++) clean.fake.foreignComment(`comment ${index}`, `person${index}`);
    clean.repo.write({ "tasks/login/.state": "research\n", "tasks/login/NOTES.md": "n\n" });
    clean.repo.commit("only notes", "carol");
    await testProbot().receive(opened(clean.fake));
    expect(clean.fake.checkRuns.at(-1)!.conclusion).toBe("success");
    expect(clean.fake.apiRequests.filter((request) => request.path.includes("/comments"))).toEqual([]);
  });
});
