/**
 * The app's work on the default branch: follow-ups after a push (unblocks, status files) and the
 * audit asked for by a repository dispatch, against the stateful fake of GitHub through nock.
 */
import { describe, expect, it } from "vitest";
import { resolverDoneBoard } from "../helpers/board.js";
import { FakeGitHub } from "../helpers/fake-github.js";

import { appSandbox, example, testProbot } from "../helpers/probot.js";

const sandbox = appSandbox();

function pushTo(fake: FakeGitHub, branch: string, extra: Record<string, unknown> = {}) {
  const payload = fake.payload(example("push"));
  return {
    id: "push-1",
    name: "push" as const,
    payload: {
      ...payload,
      ref: `refs/heads/${branch}`,
      after: fake.sha("main"),
      deleted: false,
      repository: { ...(payload.repository as object), default_branch: "main" },
      ...extra,
    } as never,
  };
}

/** A board whose resolver `r` is done while its parent `p` still waits for it. */
function resolverMerged(): FakeGitHub {
  const repo = sandbox.repo();
  repo.write(resolverDoneBoard());
  repo.commit("resolver merged", "alice");
  const fake = sandbox.github(repo, { head: "main" });
  return fake;
}

describe("push to the default branch", () => {
  it("unblocks the parent of a done resolver in one commit by the bot; the bot's own push then finds nothing to do", async () => {
    const fake = resolverMerged();
    const before = fake.sha("main");
    await testProbot().receive(pushTo(fake, "main"));
    const after = fake.sha("main");
    expect(after).not.toBe(before);
    expect(fake.git("rev-parse", `${after}^`)).toBe(before);
    expect(fake.git("log", "-1", "--format=%an", after)).toBe("taskgate[bot]");
    const ledger = JSON.parse(fake.git("show", `${after}:state/tasks.json`));
    expect(ledger.tasks.p).toMatchObject({ status: "todo", blocked_by: [] });
    expect(ledger.tasks.p.history.at(-1)).toMatchObject({ action: "unblock", by: "taskgate[bot]" });

    const writes = () => fake.requests.filter((request) => request.operation === "RecordDecisions").length;
    expect(writes()).toBe(1);
    await testProbot().receive({ ...pushTo(fake, "main"), id: "push-2" });
    expect(fake.sha("main")).toBe(after);
    expect(writes()).toBe(1);
  });

  it("ignores a push to another branch and a deleted branch without a request", async () => {
    const fake = resolverMerged();
    await testProbot().receive(pushTo(fake, "feature"));
    await testProbot().receive(pushTo(fake, "main", { deleted: true }));
    expect(fake.apiRequests).toEqual([]);
  });
});

describe("repository dispatch taskgate-audit", () => {
  function directlyApproved(): FakeGitHub {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/a/.state": "research\n",
      "tasks/a/SPEC.md": "s\n",
    });
    repo.commit("base", "alice");
    repo.write({
      "tasks/a/.state": "research:approved\n",
      "tasks/a/.state.approvals": "research:approved|2026-11-30T10:00:00Z|mallory\n",
    });
    const direct = repo.commit("approve it myself", "mallory");
    const fake = new FakeGitHub(repo, { head: "main" });
    fake.logins.set(direct, { login: "mallory" });
    fake.install();
    return fake;
  }
  const dispatch = (fake: FakeGitHub, action: string) => ({
    id: "dispatch-1",
    name: "repository_dispatch" as const,
    payload: { ...fake.payload(example("repository_dispatch", "on-demand-test")), action } as never,
  });

  it("audits the default branch and opens one tracking issue naming the unauthorized change", async () => {
    const fake = directlyApproved();
    await testProbot().receive(dispatch(fake, "taskgate-audit"));
    expect(fake.schemaErrors).toEqual([]);
    expect(fake.issues).toHaveLength(1);
    expect(fake.issues[0]).toMatchObject({ state: "open", labels: [{ name: "taskgate-audit" }] });
    expect(fake.issues[0]!.body).toContain("unauthorized-change");
    expect(fake.issues[0]!.body).toContain("by mallory");
    // The audit's folders are listed with the config's read (plan), not in rounds after it: 14
    // requests, the issue's lookup and its creation included (16 when the config came first).
    expect(fake.apiRequests).toHaveLength(14);
    await testProbot().receive({ ...dispatch(fake, "taskgate-audit"), id: "dispatch-2" });
    expect(fake.issues).toHaveLength(1);
  });

  it("ignores other dispatches without a request", async () => {
    const fake = directlyApproved();
    await testProbot().receive(dispatch(fake, "deploy"));
    expect(fake.apiRequests).toEqual([]);
  });
});
