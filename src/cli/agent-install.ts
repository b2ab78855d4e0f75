/**
 * `taskgate agent install|uninstall <harness>`: writes the wiring that makes a coding agent ask
 * taskgate before every edit, and takes it out again, keeping whatever was there before.
 *
 * - Claude Code: one entry of `hooks.PreToolUse` in `.claude/settings.json`, matching the tools that
 *   write files (`Write|Edit|MultiEdit|NotebookEdit|Bash`) with a command hook (`type: "command"`,
 *   `command`, `timeout` in seconds), the format of https://code.claude.com/docs/en/hooks. The rest of
 *   the file is kept; a file that is not JSON is refused and left as it is.
 * - opencode: the plugin `.opencode/plugins/taskgate.js`, which opencode loads from a project's
 *   `.opencode/plugin/` or `.opencode/plugins/` folder (https://opencode.ai/docs/plugins/). Its first
 *   line carries a hash of the rest, so uninstall removes only a file taskgate wrote and nobody changed.
 *
 * What install found is kept in git's folder (`taskgate/agent-<harness>.json`, never committed):
 * uninstall puts `.claude/settings.json` back byte for byte when nothing else changed it meanwhile,
 * and removes only the entry it added otherwise. Installing twice changes nothing.
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, readdir, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RepositoryError } from "../core/index.js";
import { writeAtomic } from "../git/local-files.js";
import { GitRepository } from "../git/repository.js";
import type { Harness } from "./agent-harness.js";
import type { CommandRun } from "./commands.js";
import { EXIT } from "./io.js";

type Run = Pick<CommandRun, "io" | "printJson"> & { readonly json: boolean };

/** The tools of Claude Code that write files: the PreToolUse matcher (a regular expression of tool names). */
export const CLAUDE_MATCHER = "Write|Edit|MultiEdit|NotebookEdit|Bash";
export const CLAUDE_SETTINGS = ".claude/settings.json";
export const OPENCODE_PLUGIN = ".opencode/plugins/taskgate.js";
/** Seconds Claude Code waits for the hook before it gives up on it. */
const CLAUDE_TIMEOUT = 30;
const HOOK_MARK = "agent hook claude-code";
const PLUGIN_HEADER = "// taskgate agent guard for opencode; sha256 ";

/** What install found and wrote, kept in git's folder for uninstall. */
interface Record {
  /** The file's text before the first install, or null when install created it. */
  readonly before: string | null;
  /** The text install wrote last. */
  readonly after: string;
  /** Folders install created, deepest first. */
  readonly createdDirs: readonly string[];
}

/** The command that runs this taskgate: this Node.js and this CLI, quoted for a POSIX shell. */
export function defaultCommand(): string {
  const script = process.argv[1] ? realpathSync(process.argv[1]) : "taskgate";
  return [process.execPath, script].map(shellQuote).join(" ");
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

async function open(repoDir: string) {
  const repo = await GitRepository.open(repoDir);
  return { repo, root: await repo.workTreeRoot() };
}

/** `agent install <harness> [--command CMD]`. */
export async function installAgent(run: Run, harness: Harness, repoDir: string, command?: string): Promise<number> {
  const { repo, root } = await open(repoDir);
  const base = command?.trim() || defaultCommand();
  const relative = harness === "claude-code" ? CLAUDE_SETTINGS : OPENCODE_PLUGIN;
  const full = join(root, relative);
  const existing = existsSync(full) ? await readFile(full, "utf8") : undefined;
  const next = harness === "claude-code" ? claudeSettings(existing, base) : opencodePlugin(existing, base);
  const recordPath = await repo.gitPath(`taskgate/agent-${harness}.json`);
  const record = await readRecord(recordPath);
  if (existing === next) {
    return done(run, harness, "install", `${relative} already asks taskgate before every edit; nothing to write`, []);
  }
  const createdDirs = await makeDirs(root, dirname(relative));
  await writeAtomic(full, next);
  await mkdir(dirname(recordPath), { recursive: true });
  const kept: Record = record ?? { before: existing ?? null, after: next, createdDirs };
  await writeAtomic(recordPath, JSON.stringify({ ...kept, after: next }, null, 2));
  return done(run, harness, "install", `${relative} now asks taskgate before every edit (${harnessName(harness)})`, [
    relative,
  ]);
}

/** `agent uninstall <harness>`. */
export async function uninstallAgent(run: Run, harness: Harness, repoDir: string): Promise<number> {
  const { repo, root } = await open(repoDir);
  const relative = harness === "claude-code" ? CLAUDE_SETTINGS : OPENCODE_PLUGIN;
  const full = join(root, relative);
  const recordPath = await repo.gitPath(`taskgate/agent-${harness}.json`);
  const record = await readRecord(recordPath);
  const current = existsSync(full) ? await readFile(full, "utf8") : undefined;
  const restored =
    current === undefined
      ? undefined
      : harness === "claude-code"
        ? withoutClaudeHook(current, record)
        : withoutPlugin(current);
  if (restored === undefined || restored === current) {
    await rm(recordPath, { force: true });
    return done(run, harness, "uninstall", `${relative} holds no taskgate guard; nothing to remove`, []);
  }
  if (restored === null) await rm(full);
  else await writeAtomic(full, restored);
  for (const dir of record?.createdDirs ?? []) await removeIfEmpty(join(root, dir));
  await rm(recordPath, { force: true });
  return done(run, harness, "uninstall", `${relative}: taskgate's guard removed`, [relative]);
}

function harnessName(harness: Harness): string {
  return harness === "claude-code" ? "Claude Code PreToolUse hook" : "opencode plugin";
}

function done(run: Run, harness: Harness, action: string, text: string, written: readonly string[]): number {
  if (run.json) run.printJson({ command: `agent ${action}`, harness, ok: true, written });
  else run.io.stdout(`taskgate agent ${action}: ${text}\n`);
  return EXIT.ok;
}

async function readRecord(path: string): Promise<Record | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Record;
    return typeof parsed.after === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `dir` (relative to root) and its missing parents; returns those it created, deepest first. */
async function makeDirs(root: string, dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (
    let current = dir;
    current !== "." && current !== "" && !existsSync(join(root, current));
    current = dirname(current)
  ) {
    missing.push(current);
  }
  await mkdir(join(root, dir), { recursive: true });
  return missing;
}

async function removeIfEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => undefined);
  if (entries && entries.length === 0) await rmdir(dir).catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// Claude Code: .claude/settings.json

type Json = { [key: string]: unknown };
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseSettings(text: string | undefined): Json {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RepositoryError(
      `${CLAUDE_SETTINGS} is not valid JSON (${error instanceof Error ? error.message : String(error)}); nothing was changed`,
      `Fix ${CLAUDE_SETTINGS} (Claude Code reads it as JSON), then run the command again.`,
    );
  }
  const hooks = isObject(parsed) ? parsed.hooks : undefined;
  const pre = isObject(hooks) ? hooks.PreToolUse : undefined;
  if (!isObject(parsed) || (hooks !== undefined && !isObject(hooks)) || (pre !== undefined && !Array.isArray(pre))) {
    throw new RepositoryError(
      `${CLAUDE_SETTINGS} does not have the shape Claude Code reads (an object, with "hooks" an object and "hooks.PreToolUse" a list); nothing was changed`,
      `Fix ${CLAUDE_SETTINGS}, then run the command again.`,
    );
  }
  return parsed;
}

const isOurs = (entry: unknown) =>
  isObject(entry) &&
  Array.isArray(entry.hooks) &&
  entry.hooks.some((hook) => isObject(hook) && typeof hook.command === "string" && hook.command.includes(HOOK_MARK));

/** Where the hook's perl client is: beside bin/taskgate.js, in every layout of the package. */
export const PERL_HOOK = fileURLToPath(new URL("../../bin/taskgate-hook.pl", import.meta.url));

/**
 * Claude Code's command: with perl (on every Linux and macOS, and in Git for Windows) the hook is
 * `bin/taskgate-hook.pl`, which asks the helper in a few milliseconds and hands the input to
 * taskgate when none answers; without perl, taskgate itself. `|| exit 2` makes any failure a block.
 */
export function claudeCommand(command: string): string {
  const perl = `perl ${shellQuote(PERL_HOOK)} claude-code ${shellQuote(command)}`;
  return `if command -v perl >/dev/null 2>&1; then ${perl}; else ${command} ${HOOK_MARK}; fi || exit 2`;
}

/** The settings with taskgate's PreToolUse entry, replacing an older one of taskgate's. */
export function claudeSettings(text: string | undefined, command: string): string {
  const settings = parseSettings(text);
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const pre = Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : [];
  const entry = {
    matcher: CLAUDE_MATCHER,
    hooks: [{ type: "command", command: claudeCommand(command), timeout: CLAUDE_TIMEOUT }],
  };
  const ours = pre.filter(isOurs);
  if (text !== undefined && ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(entry)) return text;
  const next = { ...settings, hooks: { ...hooks, PreToolUse: [...pre.filter((item) => !isOurs(item)), entry] } };
  return `${JSON.stringify(next, null, 2)}\n`;
}

/**
 * The settings without taskgate's entry: the file as it was before install when nothing else
 * changed it since (`null`: install created it, so it goes), else the file with only taskgate's
 * entry (and keys left empty by its removal) taken out.
 */
function withoutClaudeHook(text: string, record: Record | undefined): string | null {
  if (record && text === record.after) return record.before;
  const settings = parseSettings(text);
  const hooks = isObject(settings.hooks) ? { ...settings.hooks } : undefined;
  const pre = hooks && Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : [];
  if (!hooks || !pre.some(isOurs)) return text;
  const kept = pre.filter((item) => !isOurs(item));
  if (kept.length > 0) hooks.PreToolUse = kept;
  else delete hooks.PreToolUse;
  const next: Json = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  if (Object.keys(next).length === 0 && record?.before === null) return null;
  return `${JSON.stringify(next, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// opencode: .opencode/plugins/taskgate.js

/** The plugin file: a header with the hash of the rest, so taskgate knows its own unchanged file. */
export function opencodePlugin(existing: string | undefined, command: string): string {
  if (existing !== undefined && !isOwnPlugin(existing)) {
    throw new RepositoryError(
      `${OPENCODE_PLUGIN} exists and is not a plugin taskgate wrote (or it was changed); nothing was changed`,
      `Move that file aside (or merge taskgate's guard into it by hand), then run the command again.`,
    );
  }
  const body = pluginBody(command);
  return `${PLUGIN_HEADER}${sha256(body)}\n${body}`;
}

function isOwnPlugin(text: string): boolean {
  const newline = text.indexOf("\n");
  const header = newline < 0 ? text : text.slice(0, newline);
  return header.startsWith(PLUGIN_HEADER) && header.slice(PLUGIN_HEADER.length) === sha256(text.slice(newline + 1));
}

/** `null` (remove it) when the file is taskgate's own, unchanged plugin; the text as it is otherwise. */
function withoutPlugin(text: string): string | null {
  if (isOwnPlugin(text)) return null;
  throw new RepositoryError(
    `${OPENCODE_PLUGIN} is not the plugin taskgate wrote (it was changed, or someone else wrote it); it was left in place`,
    "Remove it by hand if it should go.",
  );
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The plugin's code; `__COMMAND__` becomes the command, as a JSON string. */
const PLUGIN_TEMPLATE = `/**
 * taskgate's guard for opencode. Before opencode runs a tool that writes files (write, edit,
 * multiedit, apply_patch, patch, bash), this plugin asks taskgate whether the acting task may
 * change them, and when not, throws taskgate's reason, hint and what to do instead: opencode awaits
 * tool.execute.before, does not run the tool when it throws, and hands the error to the model
 * (https://opencode.ai/docs/plugins/). It asks the repository's taskgate helper over its socket
 * (.git/taskgate/agent.sock) and, when none answers, runs the command below, which answers and
 * starts the helper. Written by \`taskgate agent install opencode\`; \`taskgate agent uninstall
 * opencode\` removes it. The contract: docs/agents.md in taskgate.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join, resolve } from "node:path";

const COMMAND = __COMMAND__;
const WRITING_TOOLS = new Set(["write", "edit", "multiedit", "apply_patch", "patch", "bash"]);
const ENV = ["TASKGATE_LOGIN", "TASKGATE_AGENT", "TASKGATE_TASK", "TASKGATE_DEBUG"];

function socketOf(dir) {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const dotGit = join(current, ".git");
    if (existsSync(dotGit)) {
      let gitDir = dotGit;
      if (!statSync(dotGit).isDirectory()) {
        const match = /^gitdir:\\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
        if (!match) return undefined;
        gitDir = resolve(current, match[1].trim());
      }
      const path = join(gitDir, "taskgate", "agent.sock");
      return path.length <= 100 && existsSync(path) ? path : undefined;
    }
    if (dirname(current) === current) return undefined;
  }
}

function askHelper(socket, request) {
  return new Promise((done) => {
    const connection = createConnection(socket);
    let reply = "";
    const finish = (result) => {
      connection.destroy();
      done(result);
    };
    connection.setTimeout(5000, () => finish(undefined));
    connection.on("error", () => finish(undefined));
    connection.on("connect", () => connection.write(JSON.stringify(request) + "\\n"));
    connection.on("data", (chunk) => {
      reply += chunk;
      const newline = reply.indexOf("\\n");
      if (newline < 0) return;
      try {
        const parsed = JSON.parse(reply.slice(0, newline));
        finish(typeof parsed.code === "number" ? { code: parsed.code, text: parsed.stderr + parsed.stdout } : undefined);
      } catch {
        finish(undefined);
      }
    });
    connection.on("end", () => finish(undefined));
  });
}

function runCommand(input, cwd) {
  return new Promise((done) => {
    const child = spawn(COMMAND, { cwd, shell: true, stdio: ["pipe", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.stderr.on("data", (chunk) => (text += chunk));
    child.on("error", (error) => done({ code: -1, text: String(error) }));
    child.on("close", (code) => done({ code, text }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

async function ask(payload, cwd) {
  const input = JSON.stringify(payload);
  const socket = process.env.TASKGATE_AGENT_HELPER === "0" ? undefined : socketOf(cwd);
  if (socket) {
    const env = Object.fromEntries(ENV.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
    const answer = await askHelper(socket, { harness: "opencode", input, cwd, env });
    if (answer) return answer;
  }
  return runCommand(input, cwd);
}

export const TaskgateGuard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!WRITING_TOOLS.has(input.tool)) return;
    const answer = await ask({ tool: input.tool, args: output.args, directory }, directory);
    if (answer.code === 0) return;
    throw new Error(answer.text.trim() || \`taskgate refused the \${input.tool} call (exit \${answer.code})\`);
  },
});
`;

function pluginBody(command: string): string {
  return PLUGIN_TEMPLATE.replace("__COMMAND__", () => JSON.stringify(`${command} agent hook opencode`));
}
