/**
 * The bundled Action (action/dist/index.js) run as a child process, as a runner runs it: an event
 * file, the runner's environment, and the stateful fake of GitHub served over HTTP.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeGitHub } from "./fake-github.js";

const BUNDLE = join(import.meta.dirname, "..", "..", "action", "dist", "index.js");

export interface ActionRun {
  code: number;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Runs the bundle like a runner: inputs as INPUT_*, outputs and summary in files. */
export async function runBundle(
  cleanups: (() => Promise<void> | void)[],
  fake: FakeGitHub,
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  workspace?: string,
): Promise<ActionRun> {
  const server = await fake.serve();
  cleanups.push(server.close);
  const dir = mkdtempSync(join(tmpdir(), "taskgate-action-"));
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
  const child = spawn(process.execPath, [BUNDLE], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const code = await new Promise<number>((resolve) => child.on("close", (status) => resolve(status ?? -1)));
  const outputs: Record<string, string> = {};
  const text = readFileSync(files.output, "utf8");
  for (const match of text.matchAll(/^(\w+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1]!] = match[3]!;
  return { code, stdout, outputs, summary: readFileSync(files.summary, "utf8") };
}
