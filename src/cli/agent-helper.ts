/**
 * The guard's long-lived helper: `taskgate agent serve` answers the hooks' questions over a unix
 * socket, so an edit costs a connection instead of loading taskgate's modules in a new process.
 *
 * - Where: `<git dir>/taskgate/agent.sock`, found without running git (the `.git` folder above the
 *   project, or the folder a worktree's `.git` file names), readable by its owner only.
 * - What: one JSON line `{harness, input, cwd, env}` (the hook's input, and the caller's
 *   `TASKGATE_*` and `CLAUDE_PROJECT_DIR`) gets one JSON line `{code, stdout, stderr}`: exactly what
 *   `agent hook <harness>` would print and exit with. The helper judges each request afresh from the
 *   work tree (the files are read anew every time, so a claim or a move is seen at once); what it
 *   keeps is taskgate's loaded code.
 * - Lifetime: the hook starts it (detached) when it finds none, and answers that first edit itself;
 *   it exits after `TASKGATE_AGENT_IDLE` seconds without a request (default 600), on `agent stop`,
 *   and on `agent uninstall`. `TASKGATE_AGENT_HELPER=0` turns it off (every hook judges in its own
 *   process).
 *
 * This module imports only Node.js builtins: the hook's fast path loads nothing of the core.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, rm } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import { dirname, join, resolve } from "node:path";

/** What a hook prints and exits with. */
export interface HookResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface HookRequest {
  readonly harness: string;
  readonly input: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The environment a hook's answer depends on, passed to the helper with each request. */
export const HOOK_ENV = ["TASKGATE_LOGIN", "TASKGATE_AGENT", "TASKGATE_TASK", "CLAUDE_PROJECT_DIR", "TASKGATE_DEBUG"];

/** Unix socket paths are limited to about 104 bytes; a deeper git folder has no helper. */
const MAX_SOCKET_PATH = 100;
const DEFAULT_IDLE_SECONDS = 600;

/** The helper's socket for the repository holding `dir`, or `undefined` when there is none to have. */
export function socketPath(dir: string): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const dotGit = join(current, ".git");
    if (existsSync(dotGit)) {
      const gitDir = statSync(dotGit).isDirectory() ? dotGit : worktreeGitDir(dotGit, current);
      const path = gitDir && join(gitDir, "taskgate", "agent.sock");
      return path && path.length <= MAX_SOCKET_PATH ? path : undefined;
    }
    if (dirname(current) === current) return undefined;
  }
}

function worktreeGitDir(file: string, root: string): string | undefined {
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, "utf8"));
  return match ? resolve(root, match[1]!.trim()) : undefined;
}

/** Asks the helper; `undefined` when none answers (then the caller judges, and may start one). */
export function askHelper(socket: string, request: HookRequest, timeoutMs = 5000): Promise<HookResult | undefined> {
  return new Promise((done) => {
    const connection = createConnection(socket);
    let reply = "";
    const finish = (result: HookResult | undefined) => {
      connection.destroy();
      done(result);
    };
    connection.setTimeout(timeoutMs, () => finish(undefined));
    connection.on("error", () => finish(undefined));
    connection.on("connect", () => connection.write(`${JSON.stringify(request)}\n`));
    connection.on("data", (chunk) => {
      reply += chunk.toString("utf8");
      const newline = reply.indexOf("\n");
      if (newline < 0) return;
      try {
        const parsed = JSON.parse(reply.slice(0, newline)) as HookResult;
        finish(typeof parsed.code === "number" ? parsed : undefined);
      } catch {
        finish(undefined);
      }
    });
    connection.on("end", () => finish(undefined));
  });
}

/** Starts `taskgate agent serve` for the repository, detached: it outlives the hook that starts it. */
export function startHelper(projectDir: string): void {
  const script = process.argv[1];
  if (!script) return;
  const child = spawn(process.execPath, [script, "agent", "serve", "--repo", projectDir], {
    cwd: projectDir,
    detached: true,
    stdio: "ignore",
    env: process.env,
  });
  child.on("error", () => {});
  child.unref();
}

/** Asks a running helper to exit; `true` when one answered. */
export async function stopHelper(socket: string): Promise<boolean> {
  const answer = await askHelper(socket, { harness: "stop", input: "", cwd: "", env: {} }, 2000);
  return answer !== undefined;
}

/**
 * Serves hooks on the socket until idle for `TASKGATE_AGENT_IDLE` seconds or asked to stop. `judge`
 * is `agent hook`'s own judgement, run in this process.
 */
export async function serve(
  socket: string,
  judge: (request: HookRequest) => Promise<HookResult>,
  idleSeconds = Number(process.env.TASKGATE_AGENT_IDLE) || DEFAULT_IDLE_SECONDS,
): Promise<void> {
  await mkdir(dirname(socket), { recursive: true });
  if (await stopHelper(socket)) await new Promise((wait) => setTimeout(wait, 100));
  await rm(socket, { force: true });
  const server = createServer((connection) => handle(connection, judge, () => close()));
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    server.close();
    void rm(socket, { force: true });
  };
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(close, idleSeconds * 1000);
  };
  server.on("connection", idle);
  await new Promise<void>((ready, fail) => {
    server.once("error", fail);
    server.listen(socket, ready);
  });
  await chmod(socket, 0o600);
  idle();
  await new Promise<void>((closed) => server.on("close", () => closed()));
}

function handle(connection: Socket, judge: (request: HookRequest) => Promise<HookResult>, stop: () => void): void {
  let text = "";
  connection.on("error", () => {});
  connection.on("data", (chunk) => {
    text += chunk.toString("utf8");
    const newline = text.indexOf("\n");
    if (newline < 0) return;
    const line = text.slice(0, newline);
    text = "";
    void answer(line, judge).then((result) => {
      connection.end(result.sized ? sized(result) : `${JSON.stringify({ ...result, sized: undefined })}\n`);
      if (result.stop) stop();
    });
  });
}

/**
 * The answer for a client that reads no JSON (bin/taskgate-hook.pl asks with `"reply": "sized"`):
 * `<code> <stdout bytes> <stderr bytes>\n`, then the bytes of each.
 */
function sized(result: HookResult): Buffer {
  const stdout = Buffer.from(result.stdout, "utf8");
  const stderr = Buffer.from(result.stderr, "utf8");
  return Buffer.concat([Buffer.from(`${result.code} ${stdout.length} ${stderr.length}\n`), stdout, stderr]);
}

async function answer(
  line: string,
  judge: (request: HookRequest) => Promise<HookResult>,
): Promise<HookResult & { stop?: boolean; sized?: boolean }> {
  let reply: unknown;
  try {
    const request = JSON.parse(line) as HookRequest & { reply?: unknown };
    reply = request.reply;
    if (request.harness === "stop") return { code: 0, stdout: "", stderr: "", stop: true };
    return { ...(await judge(request)), sized: reply === "sized" };
  } catch (error) {
    return {
      code: 2,
      stdout: "",
      stderr: `taskgate's helper failed: ${error instanceof Error ? error.message : String(error)}\n`,
      sized: reply === "sized",
    };
  }
}
