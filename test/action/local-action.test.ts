/**
 * The committed bundle under GitHub's own local runner, `@github/local-action`
 * (`local-action run action dist/index.js <dotenv>`), offline against the stateful fake of GitHub.
 * local-action loads the dotenv into the environment, replaces `@actions/core` with its stand-in
 * (quibble, at the path `npm ls @actions/core` gives), imports the entrypoint and awaits its exported
 * `run()`, then prints the outputs set through that stand-in. It keeps outputs in memory (it never
 * reads GITHUB_OUTPUT), so the Action must set them through `@actions/core`: the bundle's `run()`
 * imports the host's `@actions/core`, here local-action's stand-in.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ACTION_NODE, prepareStep, spawnStep, actionPullRequest } from "../helpers/action.js";
import { example } from "../helpers/probot.js";

const ROOT = join(import.meta.dirname, "..", "..");
const LOCAL_ACTION = join(ROOT, "node_modules", "@github", "local-action", "bin", "local-action.js");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const phasesRepo = () => actionPullRequest(cleanups);

/** The rows of local-action's "Action Outputs" table. */
function reportedOutputs(stdout: string): Record<string, string> {
  const table = stdout.slice(stdout.lastIndexOf("Action Outputs"));
  const outputs: Record<string, string> = {};
  for (const match of table.matchAll(/^│\s*\d+\s*│\s*'?(\w+)'?\s*│\s*'?(.*?)'?\s*│$/gm)) outputs[match[1]!] = match[2]!;
  return outputs;
}

describe("@github/local-action", () => {
  it("runs the committed bundle's run() in check mode and reports its outputs", { timeout: 180_000 }, async () => {
    const { fake, head } = phasesRepo();
    const event = { name: "pull_request", payload: fake.payload(example("pull_request", "opened")) };
    const { dir, files, env } = await prepareStep(cleanups, fake, event);
    // The step's environment, as local-action reads it: a dotenv file (GITHUB_OUTPUT included, to show
    // that nothing goes around local-action's @actions/core into it).
    const dotenv = join(dir, ".env");
    writeDotenv(dotenv, Object.fromEntries(Object.entries(env).filter(([key]) => key !== "PATH" && key !== "HOME")));

    const { code, stdout } = await spawnStep(
      ACTION_NODE,
      [LOCAL_ACTION, "run", join(ROOT, "action"), "dist/index.js", dotenv],
      {
        cwd: ROOT,
        env: {
          // npm, tsx and the Action itself on the same Node.js 24.
          PATH: [dirname(ACTION_NODE), env.PATH].join(delimiter),
          HOME: dir,
          NO_COLOR: "1",
          npm_config_update_notifier: "false",
          npm_config_offline: "true",
          npm_config_cache: join(dir, ".npm"),
        },
      },
    );

    expect(code, stdout).toBe(0);
    expect(stdout).toContain("Running Action");
    // The Action ran, once: the early question first, then the rest, and the status written.
    const operations = fake.requests.map((request) => request.operation ?? request.path);
    expect(operations[0]).toBe("PullRequestFacts");
    expect(operations.filter((name) => name === "PullRequestFacts")).toHaveLength(1);
    expect(fake.statuses).toEqual([
      expect.objectContaining({
        sha: head,
        context: "taskgate: main",
        state: "pending",
        target_url: "https://github.example/acme/web/actions/runs/42",
      }),
    ]);
    // The outputs local-action reports, set through its @actions/core; none went to GITHUB_OUTPUT.
    const outputs = reportedOutputs(stdout);
    expect(outputs).toMatchObject({ conclusion: "action_required", violations: "0" });
    expect(JSON.parse(readFileSync(outputs.report!, "utf8"))).toMatchObject({ conclusion: "action_required" });
    expect(stdout).toContain("::set-output name=conclusion::action_required");
    expect(readFileSync(files.output, "utf8")).toBe("");
    // The summary, through local-action's summary.
    expect(readFileSync(files.summary, "utf8")).toContain("| login | research | research:awaiting_approval |");
    // The token was registered as a secret with its @actions/core, and never printed.
    expect(stdout).not.toContain("ghs_actiontoken");
  });
});

function writeDotenv(path: string, env: Record<string, string>): void {
  const lines = Object.entries(env).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  writeFileSync(path, `${lines.join("\n")}\n`);
}
