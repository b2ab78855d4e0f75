/**
 * The bundle's two ways in: the runner executes it (`node dist/index.js`) and it runs; a host imports
 * it (as GitHub's local-action does) and nothing runs until it calls the exported `run()`, which runs
 * the Action once, early request included, through the host's `@actions/core` (here the real one,
 * resolved from node_modules).
 */
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { BUNDLE, runBundle, actionPullRequest } from "../helpers/action.js";
import type { FakeGitHub } from "../helpers/fake-github.js";
import { example } from "../helpers/probot.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const phasesRepo = () => actionPullRequest(cleanups);

/** Node.js arguments that import the bundle as a module, then run `then`. */
const imported = (then: string) => [
  "--input-type=module",
  "-e",
  `const action = await import(${JSON.stringify(pathToFileURL(BUNDLE).href)});\n${then}`,
];
const operations = (fake: FakeGitHub) => fake.requests.map((request) => request.operation ?? request.path);

describe("the bundle's entry", () => {
  it("imported, runs nothing and exports run()", async () => {
    const { fake } = phasesRepo();
    const event = { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) };
    const run = await runBundle(cleanups, fake, event, {}, undefined, imported("console.log(typeof action.run);"));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("function\n");
    expect(fake.requests).toEqual([]);
    expect(run.outputs).toEqual({});
    expect(run.summary).toBe("");
  });

  it("imported and run(), runs the Action once: the early question first, one status, the outputs", async () => {
    const { fake, head } = phasesRepo();
    const event = { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) };
    const run = await runBundle(cleanups, fake, event, {}, undefined, imported("await action.run();"));
    expect(run.code).toBe(0);
    expect(operations(fake)[0]).toBe("PullRequestFacts");
    expect(operations(fake).filter((name) => name === "PullRequestFacts")).toHaveLength(1);
    expect(fake.statuses).toEqual([expect.objectContaining({ sha: head, state: "pending" })]);
    expect(run.outputs).toMatchObject({ conclusion: "action_required", violations: "0" });
    expect(run.summary).toContain("| login | research | research:awaiting_approval |");
  });

  it("run() fails the step through the exit code, as when executed", async () => {
    const { fake } = phasesRepo();
    const run = await runBundle(
      cleanups,
      fake,
      { name: "issues", payload: {} },
      {},
      undefined,
      imported("await action.run();"),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::taskgate: no mode for the event "issues"');
  });
});
