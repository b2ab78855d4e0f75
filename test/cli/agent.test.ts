/**
 * The agent integrations as their harnesses run them. `taskgate agent install` writes the wiring;
 * the test then runs exactly what the harness would: Claude Code's PreToolUse command from
 * .claude/settings.json, through a shell, with the hook's JSON on stdin; opencode's plugin module,
 * imported and its `tool.execute.before` called with opencode's arguments. Each answer is checked
 * for its exit code, its decision and the text the agent reads; and what the guard allowed is
 * committed and passes `taskgate check`, what it refused fails it with the same code.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { board, def } from "../helpers/board.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(ROOT, "bin/taskgate.js");

const BOARD_CONFIG = "preset: board\nmaintainers: [mia]\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n";
const AGENT_ENV = { TASKGATE_LOGIN: "dave", TASKGATE_AGENT: "run-7" };

const repos: TempRepo[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist/cli/main.js"))) throw new Error("run npm run build first");
});

/** `taskgate <args>` as a process, as a harness or a person runs it. */
function taskgate(args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A repository whose local files of the harnesses are never committed (they are not the task's). */
function repoWith(files: Record<string, string>): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write(files);
  repo.commit("base", "mia");
  repo.git("checkout", "-q", "-b", "work");
  writeFileSync(join(repo.dir, ".git/info/exclude"), ".claude/\n.opencode/\n");
  return repo;
}

/** A board where dave's agent run-7 has claimed `api` (paths src/api/**) in the work tree. */
function claimedBoard(): TempRepo {
  const repo = repoWith({
    ".github/taskgate.yml": BOARD_CONFIG,
    ...(board([def("api", { paths: ["src/api/**"] }), def("ui", { paths: ["src/ui/**"] })], {}, 0) as Record<
      string,
      string
    >),
    "src/api/index.ts": "export {};\n",
    "src/ui/index.ts": "export {};\n",
  });
  const claim = taskgate(["claim", "api", "--agent", "run-7"], repo.dir, { TASKGATE_LOGIN: "dave" });
  expect(claim.code, claim.stderr + claim.stdout).toBe(0);
  return repo;
}

function phasesRepo(): TempRepo {
  return repoWith({
    ".github/taskgate.yml": "preset: phases\n",
    "src/app.ts": "export const app = 1;\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "s\n",
    "tasks/api/.state": "implement\n",
    "tasks/api/SPEC.md": "s\n",
  });
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/** The command Claude Code runs for a PreToolUse event, as `agent install claude-code` wrote it. */
function claudeCommand(dir: string): string {
  const settings = JSON.parse(readFileSync(join(dir, ".claude/settings.json"), "utf8"));
  const entry = settings.hooks.PreToolUse.find((item: { hooks: { command: string }[] }) =>
    item.hooks.some((hook) => hook.command.includes("agent hook claude-code")),
  );
  expect(entry.matcher).toBe("Write|Edit|MultiEdit|NotebookEdit|Bash");
  return entry.hooks[0].command as string;
}

/** Runs the hook as Claude Code does: the command through a shell, in the project, the event on stdin. */
function claude(dir: string, tool: string, input: Record<string, unknown>, env: Record<string, string> = AGENT_ENV) {
  const event = {
    session_id: "abc123",
    transcript_path: join(dir, ".claude/transcript.jsonl"),
    cwd: dir,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: input,
    tool_use_id: "toolu_01ABC",
  };
  const result = spawnSync("/bin/sh", ["-c", claudeCommand(dir)], {
    cwd: dir,
    input: JSON.stringify(event),
    encoding: "utf8",
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, TASKGATE_AGENT_HELPER: "0", ...env },
  });
  const decision = result.stdout.trim() ? JSON.parse(result.stdout).hookSpecificOutput : undefined;
  return { code: result.status, decision, stderr: result.stderr };
}

function installClaude(dir: string) {
  const install = taskgate(["agent", "install", "claude-code"], dir);
  expect(install.code, install.stderr).toBe(0);
}

describe("Claude Code's PreToolUse hook on a board", () => {
  it("lets an edit within the claimed task's paths through, silently", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const write = claude(repo.dir, "Write", { file_path: join(repo.dir, "src/api/login.ts"), content: "x\n" });
    expect(write).toMatchObject({ code: 0, decision: undefined });
    const edit = claude(repo.dir, "Edit", {
      file_path: join(repo.dir, "src/api/index.ts"),
      old_string: "export {};",
      new_string: "export const a = 1;",
      replace_all: false,
    });
    expect(edit).toMatchObject({ code: 0, decision: undefined });
  });

  it("denies an edit outside the task's paths, with the reason, the hint and what to do instead", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const result = claude(repo.dir, "Write", { file_path: join(repo.dir, "src/ui/page.ts"), content: "x\n" });
    expect(result.code).toBe(0);
    expect(result.decision).toMatchObject({ hookEventName: "PreToolUse", permissionDecision: "deny" });
    const reason = result.decision.permissionDecisionReason as string;
    expect(reason).toContain("taskgate refused this edit of src/ui/page.ts");
    expect(reason).toContain("src/ui/page.ts is outside the paths of api (out-of-scope)");
    expect(reason).toContain("hint: A shared file outside the task's paths is a separate task");
    expect(reason).toContain("instead: Ask for a separate task");
    expect(reason).toContain("taskgate escalate api");
  });

  it("denies a framework file, a `..` escape and a write through a symlink out of the repository", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const framework = claude(repo.dir, "Edit", {
      file_path: join(repo.dir, ".github/taskgate.yml"),
      old_string: "mia",
      new_string: "dave",
    });
    expect(framework.decision.permissionDecision).toBe("deny");
    expect(framework.decision.permissionDecisionReason).toContain(".github/taskgate.yml is a framework file");
    expect(framework.decision.permissionDecisionReason).toContain("instead: Leave it unchanged: ask a maintainer");

    const dots = claude(repo.dir, "Write", { file_path: `${repo.dir}/src/api/../../../outside.txt`, content: "x" });
    expect(dots.decision.permissionDecision).toBe("deny");
    expect(dots.decision.permissionDecisionReason).toContain("lies outside the repository");
    expect(dots.decision.permissionDecisionReason).toContain("(path-escape)");

    const elsewhere = mkdtempSync(join(tmpdir(), "taskgate-elsewhere-"));
    dirs.push(elsewhere);
    repo.symlink("src/api/shared", elsewhere);
    const link = claude(repo.dir, "Write", { file_path: join(repo.dir, "src/api/shared/evil.sh"), content: "x" });
    expect(link.decision.permissionDecision).toBe("deny");
    expect(link.decision.permissionDecisionReason).toContain("leads through a symlink");
    expect(existsSync(join(elsewhere, "evil.sh"))).toBe(false);

    const git = claude(repo.dir, "Write", { file_path: join(repo.dir, ".git/hooks/pre-commit"), content: "x" });
    expect(git.decision.permissionDecisionReason).toContain("inside git's own folder");
  });

  it("judges the files a Bash command writes, and lets other commands through", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const redirect = claude(repo.dir, "Bash", { command: "echo 'x' > src/ui/page.ts && npm test", description: "d" });
    expect(redirect.decision.permissionDecisionReason).toContain("src/ui/page.ts is outside the paths of api");
    const sed = claude(repo.dir, "Bash", { command: "sed -i 's/a/b/' src/api/index.ts src/ui/index.ts" });
    expect(sed.decision.permissionDecisionReason).toContain("src/ui/index.ts");
    expect(sed.decision.permissionDecisionReason).not.toContain("src/api/index.ts is outside");
    expect(claude(repo.dir, "Bash", { command: "npm test 2>&1 | tee /dev/null" })).toMatchObject({
      code: 0,
      decision: undefined,
    });
    expect(claude(repo.dir, "Bash", { command: "cp README.md src/api/readme.md" })).toMatchObject({
      decision: undefined,
    });
  });

  it("refuses every edit when the owner holds no task, and says to claim one", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const other = claude(
      repo.dir,
      "Write",
      { file_path: join(repo.dir, "src/api/x.ts"), content: "x" },
      {
        TASKGATE_LOGIN: "carol",
      },
    );
    expect(other.decision.permissionDecisionReason).toContain("carol holds no task in progress");
    expect(other.decision.permissionDecisionReason).toContain("(task-missing)");
    expect(other.decision.permissionDecisionReason).toContain("instead: Claim a task first");
    // As the check lets a pull request of no task carry rendered status files alone.
    const rendered = taskgate(["can-edit", "docs/status/matrix.md", "--as", "carol", "--json"], repo.dir);
    expect(JSON.parse(rendered.stdout)).toMatchObject({ allowed: true, kind: "rendered", task: null });
    const framework = taskgate(["can-edit", ".github/workflows/ci.yml", "--as", "carol", "--json"], repo.dir);
    expect(JSON.parse(framework.stdout)).toMatchObject({ allowed: false, kind: "framework", code: "task-missing" });
  });

  it("names a task the owner does not hold, or an unknown one, as task-missing with how to fix it", () => {
    const repo = claimedBoard();
    const todo = taskgate(
      ["can-edit", "src/ui/x.ts", "--task", "ui", "--as", "dave", "--agent", "run-7", "--json"],
      repo.dir,
    );
    expect(todo.code).toBe(1);
    expect(JSON.parse(todo.stdout)).toMatchObject({
      allowed: false,
      task: "ui",
      code: "task-missing",
      reason: "ui is todo: not in progress for dave/run-7",
      hint: "Claim it first: `taskgate claim ui --agent run-7`.",
      instead: { action: "claim" },
    });
    const unknown = taskgate(["can-edit", "src/ui/x.ts", "--task", "apj", "--as", "dave", "--json"], repo.dir);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ code: "task-missing", hint: "Did you mean api?" });
  });

  it("fails closed on an invalid config: the hook denies and says why, can-edit exits 2", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    repo.write({ ".github/taskgate.yml": "preset: nope\n" });
    const result = claude(repo.dir, "Write", { file_path: join(repo.dir, "src/api/x.ts"), content: "x" });
    expect(result.decision.permissionDecision).toBe("deny");
    expect(result.decision.permissionDecisionReason).toContain("the taskgate config is invalid");
    expect(taskgate(["can-edit", "src/api/x.ts"], repo.dir, AGENT_ENV).code).toBe(2);
  });

  it("fails closed: without a login on a board the edit is refused with how to set one", () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const result = claude(
      repo.dir,
      "Write",
      { file_path: join(repo.dir, "src/api/x.ts"), content: "x" },
      {
        TASKGATE_LOGIN: "",
      },
    );
    expect(result.decision.permissionDecision).toBe("deny");
    expect(result.decision.permissionDecisionReason).toContain("no GitHub login is known");
  });

  it("allows every edit in a repository where taskgate is not configured", () => {
    const repo = repoWith({ "README.md": "hello\n" });
    installClaude(repo.dir);
    const result = claude(repo.dir, "Write", { file_path: join(repo.dir, ".github/workflows/ci.yml"), content: "x" });
    expect(result).toMatchObject({ code: 0, decision: undefined });
    const json = taskgate(["can-edit", ".github/workflows/ci.yml", "--json"], repo.dir);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ allowed: true, configured: false, kind: "unconfigured" });
    expect(JSON.parse(json.stdout).reason).toContain("taskgate is not configured");
  });
});

describe("Claude Code's hook on phases", () => {
  it("allows the task's own folder and, in an editing phase, project files; refuses another task's folder through a symlink", () => {
    const repo = phasesRepo();
    installClaude(repo.dir);
    const env = { TASKGATE_TASK: "login" };
    expect(
      claude(repo.dir, "Write", { file_path: join(repo.dir, "tasks/login/NOTES.md"), content: "n" }, env),
    ).toMatchObject({
      decision: undefined,
    });
    const project = claude(
      repo.dir,
      "Edit",
      { file_path: join(repo.dir, "src/app.ts"), old_string: "1", new_string: "2" },
      env,
    );
    expect(project.decision.permissionDecisionReason).toContain(
      "login is at research, which does not edit project files",
    );
    expect(project.decision.permissionDecisionReason).toContain(
      "instead: Move login to a phase that edits project files",
    );
    repo.symlink("tasks/login/peek.md", "../api/SPEC.md");
    const peek = claude(repo.dir, "Write", { file_path: join(repo.dir, "tasks/login/peek.md"), content: "x" }, env);
    expect(peek.decision.permissionDecisionReason).toContain("tasks/api/SPEC.md belongs to task api, not login");
    const notebook = claude(
      repo.dir,
      "NotebookEdit",
      { notebook_path: join(repo.dir, "tasks/api/n.ipynb"), new_source: "x" },
      env,
    );
    expect(notebook.decision.permissionDecision).toBe("deny");
    const approvals = claude(
      repo.dir,
      "Write",
      { file_path: join(repo.dir, "tasks/login/.state.approvals"), content: "x" },
      env,
    );
    expect(approvals.decision.permissionDecisionReason).toContain("(approval-forged)");
  });
});

describe("the helper", () => {
  it("answers the next edits as the hook would, with each caller's environment, and stops when asked", async () => {
    const repo = claimedBoard();
    installClaude(repo.dir);
    const socket = join(repo.dir, ".git/taskgate/agent.sock");
    const helper = { TASKGATE_AGENT_HELPER: "1", TASKGATE_AGENT_IDLE: "60" };
    try {
      const page = { file_path: join(repo.dir, "src/ui/page.ts"), content: "x" };
      const first = claude(repo.dir, "Write", page, { ...AGENT_ENV, ...helper });
      expect(first.decision.permissionDecisionReason).toContain("src/ui/page.ts is outside the paths of api");
      for (let wait = 0; wait < 100 && !existsSync(socket); wait++) await new Promise((done) => setTimeout(done, 100));
      expect(existsSync(socket)).toBe(true);
      // Without git on its PATH the hook could not judge by itself: these answers are the helper's.
      const served = { ...AGENT_ENV, ...helper, PATH: "/nonexistent" };
      expect(claude(repo.dir, "Write", page, served).decision).toEqual(first.decision);
      const api = { file_path: join(repo.dir, "src/api/x.ts"), content: "x" };
      expect(claude(repo.dir, "Write", api, served)).toMatchObject({ code: 0, decision: undefined });
      const carol = claude(repo.dir, "Write", api, { ...served, TASKGATE_LOGIN: "carol" });
      expect(carol.decision.permissionDecisionReason).toContain("carol/run-7 holds no task in progress");
      // Where perl is (and git is not), the installed hook is bin/taskgate-hook.pl: the helper's answer again.
      const perlOnly = mkdtempSync(join(tmpdir(), "taskgate-perl-"));
      symlinkSync(
        execFileSync("/bin/sh", ["-c", "command -v perl"], { encoding: "utf8" }).trim(),
        join(perlOnly, "perl"),
      );
      // A Node.js that cannot start: only perl's own answer can come back.
      const viaPerl = { ...served, PATH: perlOnly, NODE_OPTIONS: "--require /nonexistent/module.cjs" };
      expect(claude(repo.dir, "Write", page, viaPerl)).toEqual({ ...first, stderr: "" });
      expect(claude(repo.dir, "Write", api, viaPerl)).toMatchObject({ code: 0, decision: undefined });
      rmSync(perlOnly, { recursive: true, force: true });
      // A claim written meanwhile is seen at once: the helper keeps the board only while its files are the same.
      const claim = taskgate(["claim", "ui", "--agent", "run-9"], repo.dir, { TASKGATE_LOGIN: "dave" });
      expect(claim.code, claim.stdout + claim.stderr).toBe(0);
      expect(claude(repo.dir, "Write", page, { ...served, TASKGATE_AGENT: "run-9" })).toMatchObject({
        code: 0,
        decision: undefined,
      });
      const stop = taskgate(["agent", "stop"], repo.dir);
      expect(stop.stdout).toContain("the helper stopped");
      for (let wait = 0; wait < 50 && existsSync(socket); wait++) await new Promise((done) => setTimeout(done, 100));
      expect(existsSync(socket)).toBe(false);
    } finally {
      taskgate(["agent", "stop"], repo.dir);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The same rule as the check

/** Commits the work tree and judges the branch as dave's (or carol's) pull request. */
function check(repo: TempRepo, author: string) {
  repo.commit("work", author);
  const pr = join(repo.dir, ".git", "pr.json");
  writeFileSync(pr, JSON.stringify({ author }));
  const run = taskgate(["check", "--base", "main", "--head", "work", "--pr", pr, "--json"], repo.dir);
  return { code: run.code, report: JSON.parse(run.stdout) as { violations: { code: string; path?: string }[] } };
}

describe("what the guard allows, the check accepts; what it refuses, the check refuses with the same code", () => {
  it("on a board", () => {
    const allowed = claimedBoard();
    installClaude(allowed.dir);
    expect(
      claude(allowed.dir, "Write", { file_path: join(allowed.dir, "src/api/login.ts"), content: "x" }).decision,
    ).toBeUndefined();
    allowed.write({ "src/api/login.ts": "export const login = 1;\n" });
    const passed = check(allowed, "dave");
    expect(passed.report.violations).toEqual([]);
    expect(passed.code).toBe(0);

    const refused = claimedBoard();
    installClaude(refused.dir);
    const can = taskgate(["can-edit", "src/ui/page.ts", "--agent", "run-7", "--as", "dave", "--json"], refused.dir);
    expect(can.code).toBe(1);
    const answer = JSON.parse(can.stdout);
    expect(answer).toMatchObject({
      allowed: false,
      task: "api",
      agent: "dave/run-7",
      code: "out-of-scope",
      preset: "board",
    });
    refused.write({ "src/ui/page.ts": "export const page = 1;\n" });
    const failed = check(refused, "dave");
    expect(failed.code).toBe(1);
    expect(failed.report.violations).toEqual([expect.objectContaining({ code: answer.code, path: "src/ui/page.ts" })]);
  });

  it("on phases", () => {
    const allowed = phasesRepo();
    const yes = taskgate(["can-edit", "src/app.ts", "--task", "api", "--json"], allowed.dir);
    expect(JSON.parse(yes.stdout)).toMatchObject({ allowed: true, task: "api", kind: "project", configured: true });
    allowed.write({ "src/app.ts": "export const app = 2;\n", "tasks/api/NOTES.md": "notes\n" });
    expect(check(allowed, "carol").report.violations).toEqual([]);

    const refused = phasesRepo();
    const no = taskgate(["can-edit", "src/app.ts", "--json"], refused.dir, { TASKGATE_TASK: "login" });
    expect(no.code).toBe(1);
    const answer = JSON.parse(no.stdout);
    expect(answer).toMatchObject({ allowed: false, task: "login", code: "out-of-scope", preset: "phases" });
    expect(answer.instead).toMatchObject({ action: "move" });
    refused.write({ "src/app.ts": "export const app = 2;\n", "tasks/login/SPEC.md": "s, more\n" });
    const failed = check(refused, "carol");
    expect(failed.report.violations).toEqual([expect.objectContaining({ code: answer.code, path: "src/app.ts" })]);
  });
});

// ---------------------------------------------------------------------------------------------
// opencode

type Hooks = { "tool.execute.before": (input: unknown, output: { args: unknown }) => Promise<void> };

/** Loads the plugin file as opencode does (an ES module in .opencode/plugins/) and builds its hooks. */
async function opencodeHooks(dir: string, env: Record<string, string>): Promise<Hooks> {
  const path = join(dir, ".opencode/plugins/taskgate.js");
  const module = (await import(`${pathToFileURL(path).href}?${Date.now()}`)) as Record<
    string,
    (input: unknown) => Promise<Hooks>
  >;
  const plugins = Object.values(module);
  expect(plugins).toHaveLength(1);
  Object.assign(process.env, env);
  return plugins[0]!({ directory: dir, worktree: dir, project: {}, client: {}, $: undefined });
}

async function opencode(hooks: Hooks, tool: string, args: Record<string, unknown>) {
  const output = { args };
  try {
    await hooks["tool.execute.before"]({ tool, sessionID: "ses_1", callID: "call_1" }, output);
    return { blocked: false, message: "" };
  } catch (error) {
    return { blocked: true, message: (error as Error).message };
  }
}

describe("opencode's plugin", () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.TASKGATE_AGENT_HELPER = "0";
  });
  afterEach(() => {
    for (const key of ["TASKGATE_LOGIN", "TASKGATE_AGENT", "TASKGATE_TASK", "TASKGATE_AGENT_HELPER"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it("lets allowed edits run and throws taskgate's refusal for the others", async () => {
    const repo = claimedBoard();
    expect(taskgate(["agent", "install", "opencode"], repo.dir).code).toBe(0);
    const hooks = await opencodeHooks(repo.dir, AGENT_ENV);
    expect(await opencode(hooks, "write", { filePath: join(repo.dir, "src/api/a.ts"), content: "x" })).toEqual({
      blocked: false,
      message: "",
    });
    expect(await opencode(hooks, "read", { filePath: join(repo.dir, ".github/taskgate.yml") })).toMatchObject({
      blocked: false,
    });
    const edit = await opencode(hooks, "edit", {
      filePath: join(repo.dir, "src/ui/index.ts"),
      oldString: "a",
      newString: "b",
    });
    expect(edit.blocked).toBe(true);
    expect(edit.message).toContain("src/ui/index.ts is outside the paths of api (out-of-scope)");
    expect(edit.message).toContain("instead:");
    const patch = await opencode(hooks, "apply_patch", {
      patchText:
        "*** Begin Patch\n*** Add File: src/api/new.ts\n+x\n*** Update File: .github/taskgate.yml\n@@\n-a\n+b\n*** End Patch",
    });
    expect(patch.message).toContain(".github/taskgate.yml is a framework file");
    expect(patch.message).not.toContain("src/api/new.ts is");
    const escape = await opencode(hooks, "write", { filePath: "../outside.txt", content: "x" });
    expect(escape.message).toContain("path-escape");
    const shell = await opencode(hooks, "bash", { command: "printf x >> src/ui/index.ts" });
    expect(shell.message).toContain("src/ui/index.ts is outside the paths of api");
  });

  it("lets everything through where taskgate is not configured", async () => {
    const repo = repoWith({ "README.md": "hello\n" });
    expect(taskgate(["agent", "install", "opencode"], repo.dir).code).toBe(0);
    const hooks = await opencodeHooks(repo.dir, {});
    expect(await opencode(hooks, "write", { filePath: join(repo.dir, ".github/x.yml"), content: "x" })).toMatchObject({
      blocked: false,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// install and uninstall

describe("agent install and uninstall", () => {
  it("Claude Code: keeps the user's settings and hooks, installs once, and uninstall restores the file byte for byte", () => {
    const repo = phasesRepo();
    const original = `{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}\n}\n`;
    mkdirSync(join(repo.dir, ".claude"));
    writeFileSync(join(repo.dir, ".claude/settings.json"), original);
    installClaude(repo.dir);
    const installed = readFileSync(join(repo.dir, ".claude/settings.json"), "utf8");
    const settings = JSON.parse(installed);
    expect(settings.permissions).toEqual({ allow: ["Bash(npm test)"] });
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toBe("./lint.sh");
    const again = taskgate(["agent", "install", "claude-code"], repo.dir);
    expect(again.stdout).toContain("nothing to write");
    expect(readFileSync(join(repo.dir, ".claude/settings.json"), "utf8")).toBe(installed);
    expect(taskgate(["agent", "uninstall", "claude-code"], repo.dir).code).toBe(0);
    expect(readFileSync(join(repo.dir, ".claude/settings.json"), "utf8")).toBe(original);
  });

  it("Claude Code: removes only its entry when the file changed since, and the file it created when nothing else is left", () => {
    const repo = phasesRepo();
    installClaude(repo.dir);
    const settings = JSON.parse(readFileSync(join(repo.dir, ".claude/settings.json"), "utf8"));
    settings.model = "opus";
    writeFileSync(join(repo.dir, ".claude/settings.json"), JSON.stringify(settings));
    expect(taskgate(["agent", "uninstall", "claude-code"], repo.dir).code).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.dir, ".claude/settings.json"), "utf8"))).toEqual({ model: "opus" });

    const fresh = phasesRepo();
    installClaude(fresh.dir);
    expect(taskgate(["agent", "uninstall", "claude-code"], fresh.dir).code).toBe(0);
    expect(existsSync(join(fresh.dir, ".claude"))).toBe(false);
  });

  it("Claude Code: refuses a settings file that is not JSON and changes nothing", () => {
    const repo = phasesRepo();
    mkdirSync(join(repo.dir, ".claude"));
    writeFileSync(join(repo.dir, ".claude/settings.json"), "{ hooks: ");
    const result = taskgate(["agent", "install", "claude-code"], repo.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(".claude/settings.json is not valid JSON");
    expect(result.stderr).toContain("hint:");
    expect(readFileSync(join(repo.dir, ".claude/settings.json"), "utf8")).toBe("{ hooks: ");
  });

  it("opencode: writes its plugin once, never overwrites or deletes a file it did not write", () => {
    const repo = phasesRepo();
    expect(taskgate(["agent", "install", "opencode"], repo.dir).code).toBe(0);
    const plugin = readFileSync(join(repo.dir, ".opencode/plugins/taskgate.js"), "utf8");
    expect(taskgate(["agent", "install", "opencode"], repo.dir).stdout).toContain("nothing to write");
    expect(taskgate(["agent", "uninstall", "opencode"], repo.dir).code).toBe(0);
    expect(existsSync(join(repo.dir, ".opencode"))).toBe(false);

    mkdirSync(join(repo.dir, ".opencode/plugins"), { recursive: true });
    writeFileSync(join(repo.dir, ".opencode/plugins/taskgate.js"), "export const Mine = async () => ({});\n");
    const install = taskgate(["agent", "install", "opencode"], repo.dir);
    expect(install.code).toBe(2);
    expect(install.stderr).toContain("not a plugin taskgate wrote");
    const uninstall = taskgate(["agent", "uninstall", "opencode"], repo.dir);
    expect(uninstall.code).toBe(2);
    expect(readFileSync(join(repo.dir, ".opencode/plugins/taskgate.js"), "utf8")).toBe(
      "export const Mine = async () => ({});\n",
    );
    writeFileSync(join(repo.dir, ".opencode/plugins/taskgate.js"), `${plugin}// changed\n`);
    expect(taskgate(["agent", "uninstall", "opencode"], repo.dir).code).toBe(2);
    expect(existsSync(join(repo.dir, ".opencode/plugins/taskgate.js"))).toBe(true);
  });

  it("names the harnesses it knows", async () => {
    const repo = phasesRepo();
    const unknown = await runCli(["agent", "install", "vim"], repo.dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("claude-code or opencode");
  });
});
