/**
 * `taskgate hook`: the pre-commit hook installed in real repositories and run by real `git commit`s.
 * The hook runs `bin/taskgate.js`, which imports `dist/`: build first (`npm run build`).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { HOOK_MARKER, hookScript, shQuote } from "../../src/cli/hook.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const BIN = fileURLToPath(new URL("../../bin/taskgate.js", import.meta.url));
const DIST_MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const remove of cleanup.splice(0)) remove();
});

beforeAll(() => {
  if (!existsSync(DIST_MAIN)) throw new Error("dist/ is missing: run `npm run build` before these tests");
});

const SPEC = "# Spec\nThe login form accepts email and password.\n";

function track(repo: TempRepo): TempRepo {
  cleanup.push(() => repo.remove());
  return repo;
}

/** A phases repository with the task `login` at research, committed on main (before any hook). */
function phasesRepo(config = "preset: phases\n"): TempRepo {
  const repo = track(tempRepo());
  repo.write({
    ".github/taskgate.yml": config,
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": SPEC,
    "src/app.ts": "export const app = 1;\n",
  });
  repo.commit("base", "alice");
  return repo;
}

interface Run {
  readonly code: number;
  readonly output: string;
}

/** The environment `tempRepo` runs git with (author carol, HOME in the repository, no system config). */
function gitEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: "carol",
    GIT_AUTHOR_EMAIL: "carol@example.com",
    GIT_COMMITTER_NAME: "carol",
    GIT_COMMITTER_EMAIL: "carol@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    HOME: dir,
    ...extra,
  };
}

/** Runs a command in `dir` and returns its exit code and its stdout and stderr together. */
function exec(dir: string, command: string, args: string[], extra: Record<string, string> = {}): Run {
  const result = spawnSync(command, args, { cwd: dir, env: gitEnv(dir, extra), encoding: "utf8" });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

const gitCommit = (repo: TempRepo, args: string[], extra: Record<string, string> = {}) =>
  exec(repo.dir, "git", ["commit", ...args], extra);

async function install(repo: TempRepo, ...args: string[]) {
  const run = await runCli(["hook", "install", "--repo", repo.dir, ...args], repo.dir);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

/** Everything a commit attempt must leave alone when the hook refuses it, or `hook run` checks it. */
function state(repo: TempRepo) {
  return {
    head: repo.git("rev-parse", "HEAD"),
    refs: repo.git("for-each-ref"),
    staged: repo.git("ls-files", "--stage"),
    stagedNames: repo.git("diff", "--cached", "--name-only"),
    status: repo.git("status", "--porcelain"),
  };
}

describe("the installed pre-commit hook, run by git commit", () => {
  it("refuses a commit that changes a project file but touches no task, and leaves HEAD and the index alone", async () => {
    const repo = phasesRepo();
    await install(repo);
    repo.write({ "src/app.ts": "export const app = 2;\n" });
    repo.git("add", "src/app.ts");
    const before = state(repo);
    const run = gitCommit(repo, ["-m", "change the app"]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("(pull request): task-missing: this pull request changes 1 file(s) (src/app.ts)");
    expect(run.output).toContain("the commit is refused");
    expect(state(repo)).toEqual(before);
    expect(before.stagedNames).toBe("src/app.ts");
  });

  it("lets legal changes through: an edited artifact, then a move to awaiting approval", async () => {
    const repo = phasesRepo();
    await install(repo);
    const base = repo.git("rev-parse", "HEAD");

    repo.write({ "tasks/login/SPEC.md": `${SPEC}More detail.\n` });
    repo.git("add", "-A");
    const edit = gitCommit(repo, ["-m", "spec"]);
    expect(edit.code, edit.output).toBe(0);
    expect(edit.output).toContain("success: 0 violation(s), 0 pending approval(s)");
    expect(repo.git("rev-parse", "HEAD~1")).toBe(base);

    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    repo.git("add", "-A");
    const move = gitCommit(repo, ["-m", "ready for review"]);
    expect(move.code, move.output).toBe(0);
    expect(move.output).toContain("moved: login research → research:awaiting_approval");
    expect(move.output).toContain("pending approvals do not block a commit: approvals come from reviews");
    expect(repo.git("show", "HEAD:tasks/login/.state")).toBe("research:awaiting_approval");
    expect(repo.git("rev-parse", "HEAD~2")).toBe(base);
  });

  it("refuses an illegal transition", async () => {
    const repo = phasesRepo();
    await install(repo);
    const head = repo.git("rev-parse", "HEAD");
    repo.write({ "tasks/login/.state": "implement\n" });
    repo.git("add", "-A");
    const run = gitCommit(repo, ["-m", "skip the gate"]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("tasks/login/.state:1: illegal-transition: login moved past the research gate");
    expect(repo.git("rev-parse", "HEAD")).toBe(head);
  });

  it("checks the index git commits from: `commit -a` and `commit <paths>`", async () => {
    const repo = phasesRepo();
    await install(repo);
    const head = repo.git("rev-parse", "HEAD");
    // Nothing staged: only -a brings the project file into the commit.
    repo.write({ "src/app.ts": "export const app = 2;\n" });
    const all = gitCommit(repo, ["-a", "-m", "everything"]);
    expect(all.code).not.toBe(0);
    expect(all.output).toContain("task-missing");
    expect(repo.git("rev-parse", "HEAD")).toBe(head);

    // The project file is staged, but the commit takes only the artifact named on the command line.
    repo.git("add", "src/app.ts");
    repo.write({ "tasks/login/SPEC.md": `${SPEC}More detail.\n` });
    const partial = gitCommit(repo, ["-m", "spec only", "--", "tasks/login/SPEC.md"]);
    expect(partial.code, partial.output).toBe(0);
    expect(partial.output).toContain("success: 0 violation(s)");
    expect(repo.git("show", "--name-only", "--format=", "HEAD")).toBe("tasks/login/SPEC.md");
    expect(repo.git("diff", "--cached", "--name-only")).toBe("src/app.ts");
  });

  it("passes every commit of a repository without taskgate config (neutral)", async () => {
    const repo = track(tempRepo());
    repo.write({ "README.md": "hello\n" });
    repo.commit("base");
    await install(repo);
    repo.write({ "src/app.ts": "export const app = 1;\n" });
    repo.git("add", "-A");
    const run = gitCommit(repo, ["-m", "app"]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("neutral: 0 violation(s)");
    expect(repo.git("show", "--name-only", "--format=", "HEAD")).toBe("src/app.ts");
  });

  it("passes the first commit of a new repository with a note", async () => {
    const repo = track(tempRepo());
    await install(repo);
    repo.write({ ".github/taskgate.yml": "preset: phases\n", "src/app.ts": "export const app = 1;\n" });
    repo.git("add", "-A");
    const run = gitCommit(repo, ["-m", "first"]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("not checked: this is the first commit (no HEAD yet)");
    expect(repo.git("log", "--format=%s")).toBe("first");
  });

  it("does not judge a merge commit (its changes are checked on their own pull requests)", async () => {
    const repo = phasesRepo();
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "src/app.ts": "export const app = 2;\n" });
    repo.commit("made without the hook");
    repo.git("checkout", "-q", "main");
    await install(repo);
    repo.git("merge", "--no-ff", "--no-commit", "feature");
    const run = gitCommit(repo, ["--no-edit"]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("not checked: a merge is in progress");
    expect(repo.git("rev-list", "--parents", "-n", "1", "HEAD").split(" ")).toHaveLength(3);
  });

  it("checks the change for TASKGATE_LOGIN, else github.user, else user.name", () => {
    const repo = phasesRepo("preset: phases\nmaintainers: [alice]\n");
    repo.write({ ".github/CODEOWNERS": "* @alice\n" });
    repo.git("add", "-A");
    // A framework change without a task: allowed for the maintainer alice only.
    const hookRun = (extra: Record<string, string> = {}) =>
      exec(repo.dir, process.execPath, [BIN, "hook", "run"], extra);
    const refused = hookRun();
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("task-missing");
    repo.git("config", "user.name", "alice");
    expect(hookRun().code).toBe(0);
    repo.git("config", "user.name", "carol");
    repo.git("config", "github.user", "alice");
    expect(hookRun().code).toBe(0);
    expect(hookRun({ TASKGATE_LOGIN: "carol" }).code).toBe(1);
    repo.git("config", "--unset", "github.user");
    expect(hookRun({ TASKGATE_LOGIN: "alice" }).code).toBe(0);
  });

  it("falls back to taskgate on PATH when its bin is gone, and refuses the commit when there is none", async () => {
    const repo = phasesRepo();
    await install(repo);
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    writeFileSync(hook, hookScript(process.execPath, join(repo.dir, "gone/bin/taskgate.js")));
    repo.write({ "tasks/login/SPEC.md": `${SPEC}More detail.\n` });
    repo.git("add", "-A");
    const head = repo.git("rev-parse", "HEAD");

    // No taskgate anywhere: PATH keeps only the folders of git and sh that hold no taskgate.
    const withoutTaskgate = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "" && !existsSync(join(dir, "taskgate")))
      .join(delimiter);
    const missing = gitCommit(repo, ["-m", "spec"], { PATH: withoutTaskgate });
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain("cannot find taskgate");
    expect(missing.output).toContain("so the commit is refused");
    expect(repo.git("rev-parse", "HEAD")).toBe(head);

    const bin = mkdtempSync(join(tmpdir(), "taskgate-bin-"));
    cleanup.push(() => rmSync(bin, { recursive: true, force: true }));
    writeFileSync(join(bin, "taskgate"), '#!/bin/sh\necho "taskgate on PATH: $*"\nexit 0\n');
    chmodSync(join(bin, "taskgate"), 0o755);
    const fallback = gitCommit(repo, ["-m", "spec"], { PATH: `${bin}${delimiter}${withoutTaskgate}` });
    expect(fallback.code, fallback.output).toBe(0);
    expect(fallback.output).toContain("taskgate on PATH: hook run");
    expect(repo.git("rev-parse", "HEAD~1")).toBe(head);
  });
});

describe("taskgate hook install and uninstall", () => {
  it("writes an executable sh script, marked as taskgate's, that runs this node and this package's bin", async () => {
    const repo = phasesRepo();
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    const run = await install(repo);
    expect(run.stdout).toContain(`taskgate: installed the pre-commit hook at ${hook}`);
    const text = readFileSync(hook, "utf8");
    expect(text.split("\n").slice(0, 2)).toEqual(["#!/bin/sh", HOOK_MARKER]);
    expect(text).toContain(`node=${shQuote(process.execPath)}\n`);
    expect(text).toContain(`taskgate=${shQuote(BIN)}\n`);
    expect(text).toContain('exec "$node" "$taskgate" hook run');
    expect(statSync(hook).mode & 0o777).toBe(0o755);

    // Installing again rewrites taskgate's own hook: no backup, the same script.
    const again = await install(repo);
    expect(again.stdout).toContain(`taskgate: updated the pre-commit hook at ${hook}`);
    expect(readFileSync(hook, "utf8")).toBe(text);
    expect(existsSync(`${hook}.taskgate-backup`)).toBe(false);
  });

  it("quotes paths so sh reads them back unchanged", () => {
    for (const path of ["/opt/my tools/it's $HOME/`x`/taskgate.js", "/a/b\\c\nd/'';\"x\""]) {
      const result = spawnSync("sh", ["-c", `printf %s ${shQuote(path)}`], { encoding: "utf8" });
      expect(result.stdout).toBe(path);
    }
  });

  it("keeps a foreign hook unless --force, backs it up with --force, and uninstall restores it", async () => {
    const repo = phasesRepo();
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    const foreign = "#!/bin/sh\necho lint\n";
    writeFileSync(hook, foreign, { mode: 0o755 });

    const refused = await runCli(["hook", "install"], repo.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`taskgate: ${hook} already exists and is not taskgate's hook`);
    expect(refused.stderr).toContain("pass --force to replace it");
    expect(readFileSync(hook, "utf8")).toBe(foreign);

    const forced = await install(repo, "--force");
    expect(forced.stdout).toContain(`the previous hook is kept at ${hook}.taskgate-backup`);
    expect(readFileSync(`${hook}.taskgate-backup`, "utf8")).toBe(foreign);
    expect(readFileSync(hook, "utf8").split("\n")[1]).toBe(HOOK_MARKER);

    // A second foreign hook would need the same backup name: refused, nothing lost.
    writeFileSync(hook, "#!/bin/sh\necho other\n");
    const clash = await runCli(["hook", "install", "--force"], repo.dir);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain(`${hook}.taskgate-backup already exists`);
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\necho other\n");
    expect(readFileSync(`${hook}.taskgate-backup`, "utf8")).toBe(foreign);
    rmSync(hook);
    await install(repo);
    expect(readFileSync(`${hook}.taskgate-backup`, "utf8")).toBe(foreign);

    const removed = await runCli(["hook", "uninstall"], repo.dir);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`taskgate: removed the pre-commit hook at ${hook}`);
    expect(removed.stdout).toContain(`restored the previous hook from ${hook}.taskgate-backup`);
    expect(readFileSync(hook, "utf8")).toBe(foreign);
    expect(existsSync(`${hook}.taskgate-backup`)).toBe(false);
  });

  it("uninstall leaves a foreign hook in place, and says so when there is no hook", async () => {
    const repo = phasesRepo();
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    const none = await runCli(["hook", "uninstall"], repo.dir);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`taskgate: no pre-commit hook at ${hook}; nothing to remove\n`);

    writeFileSync(hook, "#!/bin/sh\n# taskgate pre-commit hook? no: a look-alike further down\nexit 0\n");
    const refused = await runCli(["hook", "uninstall"], repo.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`taskgate: ${hook} is not taskgate's hook; it is left in place`);
    expect(existsSync(hook)).toBe(true);

    rmSync(hook);
    await install(repo);
    const removed = await runCli(["hook", "uninstall"], repo.dir);
    expect(removed.code).toBe(0);
    expect(existsSync(hook)).toBe(false);
  });

  it("installs where core.hooksPath points (relative to the work tree), and git runs it from there", async () => {
    const repo = phasesRepo();
    repo.git("config", "core.hooksPath", ".githooks");
    const run = await runCli(["hook", "install", "--repo", "src"], repo.dir);
    expect(run.code, run.stderr).toBe(0);
    const hook = join(repo.dir, ".githooks/pre-commit");
    expect(run.stdout).toContain(`installed the pre-commit hook at ${hook}`);
    expect(readFileSync(hook, "utf8").split("\n")[1]).toBe(HOOK_MARKER);
    expect(existsSync(join(repo.dir, ".git/hooks/pre-commit"))).toBe(false);

    repo.write({ "src/app.ts": "export const app = 2;\n" });
    repo.git("add", "-A");
    const commit = gitCommit(repo, ["-m", "app"]);
    expect(commit.code).not.toBe(0);
    expect(commit.output).toContain("task-missing");
  });

  it("installs a linked worktree's hook where git looks for it: the shared hooks folder", async () => {
    const repo = phasesRepo();
    const worktree = join(repo.dir, "..", `${repo.dir.split("/").pop()}-wt`);
    cleanup.push(() => rmSync(worktree, { recursive: true, force: true }));
    repo.git("worktree", "add", "-q", "-b", "wt", worktree);
    const run = await runCli(["hook", "install", "--json"], worktree);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toEqual({ installed: join(repo.dir, ".git/hooks/pre-commit") });

    writeFileSync(join(worktree, "src/app.ts"), "export const app = 2;\n");
    exec(worktree, "git", ["add", "-A"]);
    const commit = exec(worktree, "git", ["commit", "-m", "app"]);
    expect(commit.code).not.toBe(0);
    expect(commit.output).toContain("task-missing");
  });

  it("refuses a bare repository", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taskgate-bare-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    exec(dir, "git", ["init", "-q", "--bare"]);
    const run = await runCli(["hook", "install"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("this repository is bare");
    expect(existsSync(join(dir, "hooks/pre-commit"))).toBe(false);
  });
});

describe("taskgate hook: JSON and usage", () => {
  it("prints JSON for install, uninstall, refusals and run", async () => {
    const repo = phasesRepo();
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    expect((await install(repo, "--json")).json()).toEqual({ installed: hook });

    const uninstalled = await runCli(["hook", "uninstall", "--json"], repo.dir);
    expect(uninstalled.json()).toEqual({ removed: hook });
    const nothing = await runCli(["hook", "uninstall", "--json"], repo.dir);
    expect(nothing.json()).toEqual({ removed: null });

    writeFileSync(hook, "#!/bin/sh\nexit 0\n");
    const refused = await runCli(["hook", "install", "--json"], repo.dir);
    expect(refused.code).toBe(2);
    expect(refused.json()).toEqual({
      error: { message: `${hook} already exists and is not taskgate's hook`, hint: expect.stringContaining("--force") },
    });
    expect((await install(repo, "--force", "--json")).json()).toEqual({
      installed: hook,
      backup: `${hook}.taskgate-backup`,
    });
    const restored = await runCli(["hook", "uninstall", "--json"], repo.dir);
    expect(restored.json()).toEqual({ removed: hook, restored: `${hook}.taskgate-backup` });
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\nexit 0\n");
    writeFileSync(hook, "#!/bin/sh\nexit 0\n");
    const foreign = await runCli(["hook", "uninstall", "--json"], repo.dir);
    expect(foreign.code).toBe(2);
    expect(foreign.json()).toMatchObject({ error: { message: `${hook} is not taskgate's hook; it is left in place` } });

    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    repo.git("add", "-A");
    const run = await runCli(["hook", "run", "--json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      conclusion: "action_required",
      violations: [],
      pending: [expect.objectContaining({ code: "approval-required", task: "login" })],
      transitions: [{ task: "login", from: "research", to: "research:awaiting_approval" }],
      records: [],
    });

    const fresh = track(tempRepo());
    const first = await runCli(["hook", "run", "--json"], fresh.dir);
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({
      conclusion: "neutral",
      violations: [],
      pending: [],
      transitions: [],
      records: [],
      note: "this is the first commit (no HEAD yet), so there is nothing to compare it with",
    });
  });

  it("exits 2 on an unknown option, a missing or unknown command, --force outside install, an extra argument", async () => {
    const repo = phasesRepo();
    for (const args of [
      ["install", "--bogus"],
      [],
      ["frob"],
      ["run", "--force"],
      ["install", "extra"],
      ["run", "--repo"],
    ]) {
      const run = await runCli(["hook", ...args], repo.dir);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("(see taskgate hook --help)");
    }
    expect((await runCli(["hook", "install", "--bogus"], repo.dir)).stderr).toContain("'--bogus'");
    expect(existsSync(join(repo.dir, ".git/hooks/pre-commit"))).toBe(false);
    const help = await runCli(["hook", "--help"], repo.dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("taskgate hook install   [--repo DIR] [--force] [--json]");
  });

  it("reports a directory that is not a git repository (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taskgate-nogit-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, "sub"));
    const run = await runCli(["hook", "run", "--repo", "sub"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not a git repository");
  });
});

describe("taskgate hook run", () => {
  it("moves no ref and leaves the index as it was, whether it refuses or passes", async () => {
    const repo = phasesRepo();
    repo.write({ "src/app.ts": "export const app = 2;\n", "tasks/login/SPEC.md": `${SPEC}More.\n` });
    repo.git("add", "src/app.ts");
    const before = state(repo);
    const objects = repo.git("count-objects");
    const refused = await runCli(["hook", "run"], repo.dir);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("task-missing");
    expect(state(repo)).toEqual(before);
    // The staged change was written as objects (the tree and the commit), but nothing points at them.
    expect(repo.git("count-objects")).not.toBe(objects);

    repo.git("reset", "-q");
    repo.git("add", "tasks/login/SPEC.md");
    const staged = state(repo);
    const passed = await runCli(["hook", "run"], repo.dir);
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.stdout).toContain("success: 0 violation(s)");
    expect(state(repo)).toEqual(staged);
    expect(staged.stagedNames).toBe("tasks/login/SPEC.md");
    expect(staged.status).toContain("M src/app.ts");
  });
});
