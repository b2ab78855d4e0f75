/**
 * The App asks for exactly what it uses: docs/security.md lists every call it makes with the
 * permission it needs, app.yml grants those and nothing more, and the App's flows against the fake
 * GitHub make no call the page does not list.
 */
import { readFileSync } from "node:fs";
import nock from "nock";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/github/summary.js";
import { resolverDoneBoard } from "../helpers/board.js";
import { type RecordedRequest } from "../helpers/fake-github.js";
import { tempRepo } from "../helpers/git.js";
import { appSandbox, example, testProbot } from "../helpers/probot.js";

const ROOT = new URL("../../", import.meta.url);
const manifest = parse(readFileSync(new URL("app.yml", ROOT), "utf8")) as {
  default_events: string[];
  default_permissions: Record<string, string>;
};
const security = readFileSync(new URL("docs/security.md", ROOT), "utf8");

/** The rows of the table of calls: a matcher for each, and the permission it needs. */
const calls = security
  .slice(security.indexOf("<!-- calls -->"), security.indexOf("<!-- /calls -->"))
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| call") && !line.startsWith("| ---"))
  .map((line) => {
    const [call, permission] = line
      .split("|")
      .slice(1, 3)
      .map((cell) => cell.trim());
    return { call: call!, permission: permission! };
  });

function documented(request: RecordedRequest): { call: string; permission: string } | undefined {
  if (request.operation)
    return calls.find((row) => row.call.startsWith("GraphQL") && row.call.includes(`\`${request.operation}\``));
  return calls.find((row) => {
    const match = /^`(\w+) ([^`]+)`$/.exec(row.call);
    if (!match || match[1] !== request.method) return false;
    const pattern = match[2]!
      .replace(/\{basehead\}/g, ".+")
      .replace(/\{ref\}/g, ".+")
      .replace(/\{[a-z_]+\}/g, "[^/]+");
    return new RegExp(`^${pattern}$`).test(request.path);
  });
}

const LEVEL: Record<string, number> = { read: 1, write: 2 };

const sandbox = appSandbox();
const { repos } = sandbox;

/** Runs the App's flows: a check with problems, an approval recorded, follow-ups through a sync pull request, audits. */
async function everyFlow(): Promise<RecordedRequest[]> {
  const recorded: RecordedRequest[] = [];
  const repo = sandbox.repo();
  repo.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/a/.state": "research\n", "tasks/a/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/a/.state": "research:awaiting_approval\n", ".github/workflows/x.yml": "on: push\n" });
  repo.commit("ready, and a workflow", "carol");
  const pr = sandbox.github(repo, { head: "feature" });
  pr.permissions.bob = "WRITE";
  // Two copies of the comment left by an earlier race: one is deleted.
  const app = { id: 1, slug: "taskgate" };
  for (const id of [1, 2]) {
    pr.comments.push({
      id,
      body: `${COMMENT_MARKER}\nold`,
      user: { login: "taskgate[bot]", type: "Bot" },
      performed_via_github_app: app,
    });
  }
  for (let index = 0; index < 120; index++) pr.foreignComment(`comment ${index}`, `person${index}`);
  pr.comments.splice(0, 2);
  pr.comments.splice(60, 0, {
    id: 3,
    body: `${COMMENT_MARKER}\nsunk`,
    user: { login: "taskgate[bot]", type: "Bot" },
    performed_via_github_app: app,
  });
  const bot = testProbot();
  await bot.receive({ id: "1", name: "pull_request", payload: pr.payload(example("pull_request", "opened")) as never });
  repo.write({ ".github/workflows/x.yml": null });
  const clean = repo.commit("drop the workflow", "carol");
  pr.review("bob", "APPROVED", clean, "2026-11-30T10:00:00Z");
  pr.teams["@acme/leads"] = ["lee"];
  await bot.receive({
    id: "2",
    name: "pull_request_review",
    payload: pr.payload(example("pull_request_review", "submitted")) as never,
  });
  recorded.push(...pr.requests);
  nock.cleanAll();

  const main = tempRepo();
  repos.push(main);
  main.write(resolverDoneBoard('  qa: [quinn, "@acme/qa"]\n  backend: [carol, dave]\n'));
  main.commit("plan", "alice");
  main.write({ "state/handoffs/r.md": "edited directly\n" });
  main.commit("edit directly", "mallory");
  const fake = sandbox.github(main, { head: "main" });
  fake.protectedBranches.add("main");
  const push = fake.payload(example("push"));
  const pushed = {
    ...push,
    ref: "refs/heads/main",
    deleted: false,
    repository: { ...(push.repository as object), default_branch: "main" },
  };
  await bot.receive({ id: "3", name: "push", payload: pushed as never });
  await bot.receive({ id: "4", name: "push", payload: pushed as never });
  const dispatch = { ...fake.payload(example("repository_dispatch", "on-demand-test")), action: "taskgate-audit" };
  await bot.receive({ id: "5", name: "repository_dispatch", payload: dispatch as never });
  main.write({ "state/handoffs/r.md": "ok\n" });
  main.commit("revert", "alice");
  await bot.receive({ id: "6", name: "repository_dispatch", payload: dispatch as never });
  recorded.push(...fake.requests);
  return recorded;
}

describe("permissions", () => {
  it("app.yml grants what the table of docs/security.md says, permission by permission, event by event", () => {
    const table = Object.fromEntries(
      [...security.matchAll(/^\| (\w+) +\| (read|write) +\|/gm)].map((match) => [match[1], match[2]]),
    );
    expect(table).toEqual(manifest.default_permissions);
    const events = security.slice(
      security.indexOf(":", security.indexOf("Events (`default_events`)")),
      security.indexOf("Every call the App makes"),
    );
    expect([...events.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).sort()).toEqual(
      [...manifest.default_events].sort(),
    );
  });

  it("every call the App makes is listed with a permission app.yml grants, and every grant is used", async () => {
    const requests = await everyFlow();
    const unlisted = requests
      .filter((request) => !documented(request))
      .map((request) => `${request.method} ${request.path} ${request.operation ?? ""}`);
    expect(unlisted).toEqual([]);
    const used = new Set<string>();
    for (const request of requests) {
      const row = documented(request)!;
      if (!row.permission.includes(":")) continue;
      const [name, level] = row.permission.split(":").map((part) => part.trim());
      expect(
        LEVEL[manifest.default_permissions[name!]!] ?? 0,
        `${row.call} needs ${row.permission}`,
      ).toBeGreaterThanOrEqual(LEVEL[level!]!);
      used.add(name!);
    }
    for (const row of calls) {
      const name = row.permission.split(":")[0]!.trim();
      if (row.permission.includes(":")) used.add(name);
    }
    expect([...used].sort()).toEqual(Object.keys(manifest.default_permissions).sort());
    // The flows did reach the calls that need each write permission.
    const reached = (method: string, path: string) =>
      requests.some((request) => request.method === method && request.path.endsWith(path));
    const writes = [
      ["POST", "/check-runs"],
      ["POST", "/issues/7/comments"],
      ["DELETE", "/issues/comments/3"],
      ["POST", "/git/refs"],
      ["POST", "/pulls"],
      ["POST", "/issues"],
    ];
    expect(writes.filter(([method, path]) => !reached(method!, path!))).toEqual([]);
  });
});
