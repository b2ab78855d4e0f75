/**
 * `taskgate agent`: the guard wired into coding agents.
 *
 * - `agent hook <harness>` is what the harness runs before a tool that writes files: Claude Code's
 *   `PreToolUse` command, or the command opencode's plugin falls back to. It reads the harness's JSON
 *   on stdin and answers in the harness's format (agent-hook.ts). It asks the repository's helper
 *   first (agent-helper.ts: no product code is loaded on that path), and when none answers, judges
 *   itself and starts one for the next edit.
 * - `agent serve` is the helper; `agent stop` stops it.
 * - `agent install <harness>` / `agent uninstall <harness>` write and remove the wiring
 *   (agent-install.ts).
 */
import { parseArgs } from "node:util";
import { HOOK_ENV, askHelper, serve, socketPath, startHelper, stopHelper, type HookRequest } from "./agent-helper.js";
import type { CommandRun } from "./commands.js";
import { EXIT, UsageError, type CliIo } from "./io.js";

const HARNESSES = ["claude-code", "opencode"];

/** `agent install|uninstall|hook <harness>`, `agent serve`, `agent stop`. */
export async function agentCommand(run: CommandRun): Promise<number> {
  const { values, positionals } = parse(run);
  const [action, harness, ...extra] = positionals;
  if (values.help) {
    run.io.stdout(
      "taskgate agent install <harness> [--command CMD] | uninstall <harness> | hook <harness> | serve | stop\n" +
        "  harness: claude-code or opencode\n",
    );
    return EXIT.ok;
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const repoDir = typeof values.repo === "string" ? values.repo : run.repoDir;
  if (action === "serve" || action === "stop") {
    if (harness !== undefined) throw new UsageError(`unexpected argument "${harness}"`);
    return action === "serve" ? serveCommand(run.io, repoDir) : stopCommand(run.io, repoDir);
  }
  if (!harness || !HARNESSES.includes(harness)) {
    throw new UsageError(`agent ${action ?? ""} needs a harness: ${HARNESSES.join(" or ")}`.replace("  ", " "));
  }
  const json = values.json === true;
  switch (action) {
    case "hook":
      return hook(run.io, harness, values);
    case "install":
      return (await import("./agent-install.js")).installAgent(
        { ...run, json },
        harness as never,
        repoDir,
        values.command,
      );
    case "uninstall": {
      const socket = socketPath(repoDir);
      if (socket) await stopHelper(socket);
      return (await import("./agent-install.js")).uninstallAgent({ ...run, json }, harness as never, repoDir);
    }
    default:
      throw new UsageError(`agent takes install, uninstall, hook, serve or stop, not "${action ?? ""}"`);
  }
}

type Values = ReturnType<typeof parse>["values"];

function parse(run: CommandRun) {
  try {
    return parseArgs({
      args: [...run.positionals],
      allowPositionals: true,
      strict: true,
      options: {
        repo: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        command: { type: "string" },
        task: { type: "string" },
        agent: { type: "string" },
        as: { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split("\n")[0]! : String(error));
  }
}

/** The hook: the helper's answer when one runs, else its own judgement (and a helper started). */
async function hook(io: CliIo, harness: string, values: Values): Promise<number> {
  const env = io.env ?? {};
  const request: HookRequest = {
    harness,
    input: await readStdin(),
    cwd: io.cwd,
    env: Object.fromEntries(HOOK_ENV.filter((name) => env[name] !== undefined).map((name) => [name, env[name]])),
  };
  const options = { repo: values.repo, task: values.task, agent: values.agent, as: values.as };
  const helped = env.TASKGATE_AGENT_HELPER !== "0" && Object.values(options).every((value) => value === undefined);
  const project = helped ? projectDir(harness, request) : undefined;
  const socket = project ? socketPath(project) : undefined;
  let result = socket ? await askHelper(socket, request) : undefined;
  if (!result) {
    result = await (await import("./agent-hook.js")).judgeHook(request, options);
    if (socket && project) startHelper(project);
  }
  if (result.stdout) io.stdout(result.stdout);
  if (result.stderr) io.stderr(result.stderr);
  return result.code;
}

/** The project the event names, read without loading the judgement: where the helper's socket is. */
function projectDir(harness: string, request: HookRequest): string | undefined {
  try {
    const input = JSON.parse(request.input) as { cwd?: unknown; directory?: unknown };
    const named = harness === "claude-code" ? (request.env.CLAUDE_PROJECT_DIR ?? input.cwd) : input.directory;
    return typeof named === "string" && named !== "" ? named : request.cwd;
  } catch {
    return undefined;
  }
}

async function serveCommand(io: CliIo, repoDir: string): Promise<number> {
  const socket = socketPath(repoDir);
  if (!socket) throw new UsageError(`${repoDir} is not in a git repository with room for the helper's socket`);
  const [{ judgeHook }, { guardCache }] = await Promise.all([import("./agent-hook.js"), import("./agent-guard.js")]);
  const keep = guardCache();
  await serve(socket, (request) => judgeHook(request, {}, keep));
  return EXIT.ok;
}

async function stopCommand(io: CliIo, repoDir: string): Promise<number> {
  const socket = socketPath(repoDir);
  const stopped = socket !== undefined && (await stopHelper(socket));
  io.stdout(`taskgate agent stop: ${stopped ? "the helper stopped" : "no helper was running"}\n`);
  return EXIT.ok;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
