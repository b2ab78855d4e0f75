/**
 * `taskgate agent`: the guard wired into coding agents.
 *
 * - `agent hook claude-code` is Claude Code's `PreToolUse` command: it reads the hook's JSON on stdin,
 *   judges every file the tool call writes, and on a refusal prints Claude Code's decision, JSON
 *   `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
 *   "permissionDecisionReason": ...}}`, with exit 0; the reason is what Claude reads. An allowed edit
 *   prints nothing (exit 0), so Claude Code's own permission rules still apply: taskgate never
 *   answers `allow`, which would skip them.
 * - `agent hook opencode` is what the opencode plugin runs: `{tool, args, directory}` on stdin; exit 0
 *   allows, exit 2 refuses with the text on stderr, which the plugin throws so opencode reports it to
 *   the model and does not run the tool.
 * - `agent install <harness>` / `agent uninstall <harness>` write and remove that wiring
 *   (agent-install.ts).
 *
 * A guard that cannot answer (an invalid config, no login on a board) refuses, with the reason: it
 * fails closed. A repository without taskgate's config is not guarded.
 */
import { parseArgs } from "node:util";
import { actingFrom, answerText, openGuard, type EditAnswer } from "./agent-guard.js";
import { HARNESSES, claudeCodeCall, opencodeCall, type Harness, type ToolCall } from "./agent-harness.js";
import { installAgent, uninstallAgent } from "./agent-install.js";
import type { CommandRun } from "./commands.js";
import { EXIT, IdentityError, UsageError, type CliIo } from "./io.js";

const USAGE =
  "taskgate agent install <harness> [--command CMD] | uninstall <harness> | hook <harness>  (harness: claude-code, opencode)";

/** `agent install|uninstall|hook <harness>`. */
export async function agentCommand(run: CommandRun): Promise<number> {
  const { values, positionals } = parse(run);
  const [action, harness, ...extra] = positionals;
  if (values.help) {
    run.io.stdout(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (!harness || !(HARNESSES as readonly string[]).includes(harness)) {
    throw new UsageError(`agent ${action ?? ""} needs a harness: ${HARNESSES.join(" or ")}`.replace("  ", " "));
  }
  const repoDir = typeof values.repo === "string" ? values.repo : run.repoDir;
  const json = values.json === true;
  switch (action) {
    case "hook":
      return hook(run.io, harness as Harness, repoDir, values);
    case "install":
      return installAgent(
        { ...run, json },
        harness as Harness,
        repoDir,
        typeof values.command === "string" ? values.command : undefined,
      );
    case "uninstall":
      return uninstallAgent({ ...run, json }, harness as Harness, repoDir);
    default:
      throw new UsageError(`agent takes install, uninstall or hook, not "${action ?? ""}"`);
  }
}

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

/** Reads the harness's JSON, judges the files its tool call writes, answers in the harness's format. */
async function hook(io: CliIo, harness: Harness, repoDir: string, values: Record<string, unknown>): Promise<number> {
  let call: ToolCall;
  try {
    const input: unknown = JSON.parse((await readStdin()) || "null");
    call = harness === "claude-code" ? claudeCodeCall(input) : opencodeCall(input);
  } catch (error) {
    return refuse(io, harness, `taskgate could not read the ${harness} hook's input: ${message(error)}`);
  }
  // Nothing it writes can be named before it runs (or it writes nothing): the check stays the judge.
  if (call.files.length === 0) return EXIT.ok;
  const env = io.env ?? {};
  const project = harness === "claude-code" ? (env.CLAUDE_PROJECT_DIR ?? call.cwd ?? repoDir) : (call.cwd ?? repoDir);
  const string = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  try {
    const acting = actingFrom({ task: string("task"), agent: string("agent"), as: string("as") }, env);
    const guard = await openGuard(typeof values.repo === "string" ? repoDir : project, acting, io);
    const refused: EditAnswer[] = [];
    for (const file of call.files) {
      const answer = await guard.judge(call.cwd ?? project, file);
      if (!answer.allowed) refused.push(answer);
      if (!answer.configured) return EXIT.ok;
    }
    if (refused.length > 0) return refuse(io, harness, refusal(call, refused));
    return EXIT.ok;
  } catch (error) {
    return refuse(io, harness, failure(error));
  }
}

/** What the agent reads when an edit is refused. */
export function refusal(call: ToolCall, refused: readonly EditAnswer[]): string {
  const head =
    refused.length === 1
      ? `taskgate refused this edit of ${refused[0]!.path}`
      : `taskgate refused this ${call.tool} call: ${refused.length} files are out of scope`;
  const body = refused.map((answer) => answerText(answer).replace(/^no: /, "").trimEnd());
  return `${head}\n${body.join("\n")}\n`;
}

function failure(error: unknown): string {
  const hint = error instanceof IdentityError ? `\n  hint: ${error.hint}` : "";
  const name = error instanceof Error ? error.name : "";
  const what = name === "ConfigError" ? "the taskgate config is invalid" : message(error);
  return (
    `taskgate could not judge this edit, so it is refused: ${what}${hint}\n` +
    "  instead: fix the cause (run `taskgate can-edit <file>` in the repository to see it), or ask a maintainer.\n"
  );
}

function refuse(io: CliIo, harness: Harness, reason: string): number {
  if (harness === "claude-code") {
    const decision = {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason.trimEnd(),
    };
    io.stdout(`${JSON.stringify({ hookSpecificOutput: decision })}\n`);
    return EXIT.ok;
  }
  io.stderr(reason);
  return EXIT.usage;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
