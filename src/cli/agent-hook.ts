/**
 * The judgement behind `taskgate agent hook <harness>`: the harness's input in, what the hook prints
 * and exits with out. It runs in the hook's own process, or in the helper (agent-helper.ts), which
 * gives the same answer from code it has already loaded.
 *
 * Claude Code: a refusal is exit 0 with `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
 * "permissionDecision": "deny", "permissionDecisionReason": ...}}` on stdout, the reason being what
 * Claude reads (https://code.claude.com/docs/en/hooks); an allowed edit prints nothing, so Claude
 * Code's own permission rules still apply (taskgate never answers `allow`, which would skip them).
 * opencode: exit 0 allows; exit 2 refuses with the text on stderr, which the plugin throws.
 *
 * A guard that cannot answer (an invalid config, no login on a board) refuses with the reason: it
 * fails closed. A repository without taskgate's config is not guarded.
 */
import { actingFrom, answerText, openGuard, type EditAnswer, type GuardCache } from "./agent-guard.js";
import { claudeCodeCall, opencodeCall, type Harness, type ToolCall } from "./agent-harness.js";
import type { HookRequest, HookResult } from "./agent-helper.js";
import { EXIT, IdentityError, type CliIo } from "./io.js";

/** Options of `agent hook` that name who acts (they override the environment). */
export interface HookOptions {
  readonly repo?: string | undefined;
  readonly task?: string | undefined;
  readonly agent?: string | undefined;
  readonly as?: string | undefined;
}

/** Judges one tool call; never throws. */
export async function judgeHook(
  request: HookRequest,
  options: HookOptions = {},
  keep?: GuardCache,
): Promise<HookResult> {
  const harness = request.harness as Harness;
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd: request.cwd,
    env: request.env,
  };
  const code = await hook(io, harness, request, options, keep);
  return { code, stdout, stderr };
}

async function hook(
  io: CliIo,
  harness: Harness,
  request: HookRequest,
  options: HookOptions,
  keep: GuardCache | undefined,
): Promise<number> {
  let call: ToolCall;
  try {
    const input: unknown = JSON.parse(request.input || "null");
    call = harness === "claude-code" ? claudeCodeCall(input) : opencodeCall(input);
  } catch (error) {
    return refuse(io, harness, `taskgate could not read the ${harness} hook's input: ${message(error)}`);
  }
  // Nothing it writes can be named before it runs (or it writes nothing): the check stays the judge.
  if (call.files.length === 0) return EXIT.ok;
  const project = projectOf(harness, call, request);
  try {
    const acting = actingFrom({ task: options.task, agent: options.agent, as: options.as }, request.env);
    const guard = await openGuard(options.repo ?? project, acting, io, keep);
    const refused: EditAnswer[] = [];
    for (const file of call.files) {
      const answer = await guard.judge(call.cwd ?? project, file);
      if (!answer.configured) return EXIT.ok;
      if (!answer.allowed) refused.push(answer);
    }
    return refused.length > 0 ? refuse(io, harness, refusal(call, refused)) : EXIT.ok;
  } catch (error) {
    return refuse(io, harness, failure(error));
  }
}

/** The project folder: Claude Code's `$CLAUDE_PROJECT_DIR` or the event's `cwd`; opencode's `directory`. */
export function projectOf(
  harness: Harness,
  call: Pick<ToolCall, "cwd">,
  request: Pick<HookRequest, "env" | "cwd">,
): string {
  const fromEnv = harness === "claude-code" ? request.env.CLAUDE_PROJECT_DIR : undefined;
  return fromEnv || call.cwd || request.cwd;
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
