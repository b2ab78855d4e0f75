/**
 * `taskgate hook install|uninstall|run`: a git pre-commit hook that runs the check on the staged change.
 *
 * `install` writes a small POSIX sh script where git looks for hooks (`git rev-parse --git-path hooks`,
 * which honours `core.hooksPath` and linked worktrees). The script runs the taskgate that installed it
 * (this node, this package's `bin/taskgate.js`), falls back to `taskgate` on PATH, and refuses the
 * commit when neither exists: a missing checker never passes silently.
 *
 * `run` (what the script calls) judges the staged change as a pull request from HEAD: the index is
 * written to a tree, wrapped in a commit object whose parent is HEAD (no ref moves, the index and the
 * work tree are left alone; the unreferenced object is pruned by git's usual garbage collection), and
 * checked with `checkPullRequest`. Violations refuse the commit (exit 1); pending approvals never do,
 * since approvals come from pull request reviews.
 *
 * The hook is a convenience that reports problems early, on the author's machine. It can be skipped
 * (`git commit --no-verify`), its acting login comes from local settings, and it knows no reviews:
 * the check on the pull request stays the authority.
 */
import { execFile } from "node:child_process";
import { chmod, lstat, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { redactDeep, RefNotFoundError, RepositoryError } from "../core/index.js";
import type { Report } from "../core/index.js";
import { GitRepository } from "../git/repository.js";
import { formatReport } from "./format.js";
import { EXIT, UsageError, type CliIo } from "./io.js";

const HOOK_USAGE = `Usage:
  taskgate hook install   [--repo DIR] [--force] [--json]
  taskgate hook uninstall [--repo DIR] [--json]
  taskgate hook run       [--repo DIR] [--json]

Commands:
  install    install a git pre-commit hook that checks every commit's staged change
             (an existing hook that is not taskgate's is kept unless --force; then it is backed up)
  uninstall  remove taskgate's pre-commit hook (and restore the hook it replaced, if any)
  run        check the staged change as a pull request from HEAD (what the hook runs)
             exit 1 on violations; pending approvals do not block a commit

Options:
  --repo DIR  the git checkout (default: the current directory)
  --force     install: replace a pre-commit hook that is not taskgate's, keeping a backup
  --json      print JSON instead of text
  -h, --help  show this help
`;

/** The second line of the script (after the shebang): how `install` and `uninstall` recognise it. */
export const HOOK_MARKER = "# taskgate pre-commit hook";

/** Where `install --force` keeps the hook it replaced, next to it; `uninstall` puts it back. */
const BACKUP_SUFFIX = ".taskgate-backup";

/** The executable of this package: `dist/cli/hook.js` (or `src/cli/hook.ts`) → `bin/taskgate.js`. */
const BIN_PATH = fileURLToPath(new URL("../../bin/taskgate.js", import.meta.url));

/** The CLI's general usage does not describe the hook's options; this help does. */
const SEE_HELP = " (see taskgate hook --help)";

const COMMIT_MESSAGE = "taskgate: staged change";

export async function hookCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseHookOptions(args);
  if (values.help) {
    io.stdout(HOOK_USAGE);
    return EXIT.ok;
  }
  const [subcommand, extra] = positionals;
  if (subcommand === undefined) throw new UsageError(`hook needs a command: install, uninstall or run${SEE_HELP}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"${SEE_HELP}`);
  if (values.force && subcommand !== "install") throw new UsageError(`--force applies to hook install only${SEE_HELP}`);
  const repoDir = resolve(io.cwd, values.repo ?? ".");
  const json = values.json ?? false;
  switch (subcommand) {
    case "install":
      return install(io, repoDir, json, values.force ?? false);
    case "uninstall":
      return uninstall(io, repoDir, json);
    case "run":
      return runHook(io, repoDir, json);
    default:
      throw new UsageError(`unknown hook command "${subcommand}"; use install, uninstall or run${SEE_HELP}`);
  }
}

function parseHookOptions(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        repo: { type: "string" },
        force: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message.split("\n")[0]! : String(error)}${SEE_HELP}`);
  }
}

// ---------------------------------------------------------------------------------------------
// install / uninstall

/** The hook script: runs `node bin/taskgate.js hook run`, else `taskgate hook run`, else refuses. */
export function hookScript(node: string = process.execPath, bin: string = BIN_PATH): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Checks the staged change as a pull request from HEAD (taskgate hook run). The pull request check
# stays the authority. Remove with: taskgate hook uninstall
node=${shQuote(node)}
taskgate=${shQuote(bin)}
if [ -f "$taskgate" ]; then
  if [ -x "$node" ]; then exec "$node" "$taskgate" hook run; fi
  if command -v node >/dev/null 2>&1; then exec node "$taskgate" hook run; fi
fi
if command -v taskgate >/dev/null 2>&1; then exec taskgate hook run; fi
echo "taskgate pre-commit hook: cannot find taskgate ($taskgate is gone and no taskgate is on PATH), so the commit is refused." >&2
echo "  hint: install taskgate and run 'taskgate hook install' again, or delete $0 to commit without the check." >&2
exit 1
`;
}

/** Quotes a string for POSIX sh: single quotes, each `'` written as `'\\''`. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

interface HookFiles {
  readonly dir: string;
  readonly hook: string;
  readonly backup: string;
}

/** Where git runs hooks from for this repository (`core.hooksPath`, shared by linked worktrees). */
async function hookFiles(repoDir: string): Promise<HookFiles> {
  const repo = await GitRepository.open(repoDir);
  if (repo.bare) {
    throw new RepositoryError(
      "this repository is bare: nobody commits in it, so a pre-commit hook would never run",
      "Install the hook in a checkout of the repository.",
    );
  }
  const out = await git(repoDir, ["rev-parse", "--git-path", "hooks"]);
  // Relative output is relative to the directory git ran in.
  const dir = resolve(repoDir, out.replace(/\n$/, ""));
  const hook = join(dir, "pre-commit");
  return { dir, hook, backup: `${hook}${BACKUP_SUFFIX}` };
}

type Existing = "none" | "taskgate" | "foreign";

/** Whether `path` holds nothing, taskgate's hook (by its marker line), or anything else. */
async function existingHook(path: string): Promise<Existing> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) return "none";
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return "foreign";
  return text.split("\n", 3).includes(HOOK_MARKER) ? "taskgate" : "foreign";
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

async function install(io: CliIo, repoDir: string, json: boolean, force: boolean): Promise<number> {
  const files = await hookFiles(repoDir);
  const existing = await existingHook(files.hook);
  let backup: string | undefined;
  if (existing === "foreign") {
    if (!force) {
      return refuse(
        io,
        json,
        `${files.hook} already exists and is not taskgate's hook`,
        "Run it from your own hook instead, or pass --force to replace it (it is kept as a backup that `taskgate hook uninstall` restores).",
      );
    }
    if (await exists(files.backup)) {
      return refuse(
        io,
        json,
        `${files.backup} already exists, so the current hook cannot be backed up`,
        "Move one of the two hooks elsewhere, then install again.",
      );
    }
    await fsStep(`cannot move ${files.hook} to ${files.backup}`, () => rename(files.hook, files.backup));
    backup = files.backup;
  }
  await fsStep(`cannot create ${files.dir}`, () => mkdir(files.dir, { recursive: true }));
  // Written beside the hook and renamed over it, so git never runs a half-written script.
  const temporary = `${files.hook}.taskgate-${process.pid}.tmp`;
  await fsStep(`cannot write ${files.hook}`, async () => {
    try {
      await writeFile(temporary, hookScript(), { mode: 0o755 });
      await chmod(temporary, 0o755);
      await rename(temporary, files.hook);
    } finally {
      await rm(temporary, { force: true });
    }
  });
  if (json) printJson(io, { installed: files.hook, ...(backup && { backup }) });
  else {
    const verb = existing === "taskgate" ? "updated" : "installed";
    io.stdout(`taskgate: ${verb} the pre-commit hook at ${files.hook}\n`);
    if (backup) io.stdout(`  the previous hook is kept at ${backup}; \`taskgate hook uninstall\` puts it back\n`);
    io.stdout(
      "  every commit's staged change is now checked as a pull request from HEAD; violations refuse the commit\n",
    );
  }
  return EXIT.ok;
}

async function uninstall(io: CliIo, repoDir: string, json: boolean): Promise<number> {
  const files = await hookFiles(repoDir);
  const existing = await existingHook(files.hook);
  if (existing === "none") {
    if (json) printJson(io, { removed: null });
    else io.stdout(`taskgate: no pre-commit hook at ${files.hook}; nothing to remove\n`);
    return EXIT.ok;
  }
  if (existing === "foreign") {
    return refuse(
      io,
      json,
      `${files.hook} is not taskgate's hook; it is left in place`,
      "Remove or edit it yourself if it should no longer run.",
    );
  }
  let restored: string | undefined;
  if (await exists(files.backup)) {
    await fsStep(`cannot move ${files.backup} to ${files.hook}`, () => rename(files.backup, files.hook));
    restored = files.backup;
  } else {
    await fsStep(`cannot remove ${files.hook}`, () => rm(files.hook, { force: true }));
  }
  if (json) printJson(io, { removed: files.hook, ...(restored && { restored }) });
  else {
    io.stdout(`taskgate: removed the pre-commit hook at ${files.hook}\n`);
    if (restored) io.stdout(`  restored the previous hook from ${restored}\n`);
  }
  return EXIT.ok;
}

/** A refusal of `install` or `uninstall`: the message and a hint (or JSON `{error}`), exit 2. */
function refuse(io: CliIo, json: boolean, message: string, hint: string): number {
  if (json) printJson(io, { error: { message, hint } });
  else io.stderr(`taskgate: ${message}\n  hint: ${hint}\n`);
  return EXIT.usage;
}

/** Runs a file-system step; a failure becomes an error the CLI prints with a hint (exit 2). */
async function fsStep(what: string, step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RepositoryError(
      `${what}${code ? ` (${code})` : ""}`,
      "Check the permissions of the hooks folder (git rev-parse --git-path hooks).",
    );
  }
}

// ---------------------------------------------------------------------------------------------
// run

async function runHook(io: CliIo, repoDir: string, json: boolean): Promise<number> {
  const repo = await GitRepository.open(repoDir);
  await repo.workTreeRoot(); // refuses a bare repository, which has no index to check
  const head = await optionalCommit(repo, "HEAD");
  if (head === undefined) {
    return skip(io, json, "this is the first commit (no HEAD yet), so there is nothing to compare it with");
  }
  // A merge commit brings in changes other pull requests made (and were checked for), by other
  // authors and often with the bot's approval records. Judged as this author's pull request from
  // HEAD they would be refused for rules they already passed, so a merge is not checked here; the
  // pull request that carries it is.
  if ((await optionalCommit(repo, "MERGE_HEAD")) !== undefined) {
    return skip(io, json, "a merge is in progress; the merged changes are checked on the pull request");
  }
  // git exports GIT_INDEX_FILE to the hook (`commit -a` and `commit <paths>` stage into another
  // index): the inherited environment makes write-tree read the index this commit is made from.
  const tree = (await git(repoDir, ["write-tree"])).trim();
  const staged = await commitTree(repoDir, tree);
  const author = await actingLogin(io, repoDir);
  // The core's rules load here, once there is a change to judge: install and uninstall never need them.
  const { checkPullRequest } = await import("./use-cases.js");
  const report = await checkPullRequest(repo, { base: "HEAD", head: staged, ...(author && { pr: { author } }) });
  if (json) printJson(io, reportJson(report));
  else {
    io.stdout(formatReport(report, "pre-commit: the staged change as a pull request from HEAD"));
    if (report.conclusion === "failure") {
      io.stdout(
        "the commit is refused: fix the problems above and commit again (the pull request check applies the same rules)\n",
      );
    } else if (report.conclusion === "action_required") {
      io.stdout("pending approvals do not block a commit: approvals come from reviews of the pull request\n");
    }
  }
  return report.conclusion === "failure" ? EXIT.failure : EXIT.ok;
}

/** The commit `ref` names, or `undefined` when it names none (no HEAD yet, no merge in progress). */
async function optionalCommit(repo: GitRepository, ref: string): Promise<string | undefined> {
  try {
    return await repo.resolve(ref);
  } catch (error) {
    if (error instanceof RefNotFoundError) return undefined;
    throw error;
  }
}

/**
 * A commit object holding `tree` with HEAD as its parent; nothing points at it. When git knows no
 * identity (no user.name or user.email), it is made with a placeholder one: its author is not who
 * the check judges the change for (see `actingLogin`).
 */
async function commitTree(repoDir: string, tree: string): Promise<string> {
  const args = ["commit-tree", "--no-gpg-sign", tree, "-p", "HEAD", "-m", COMMIT_MESSAGE];
  const first = await runGit(repoDir, args);
  if (first.code === 0) return first.stdout.trim();
  if (!/tell me who you are|empty ident|unable to auto-detect|invalid ident/i.test(first.stderr)) {
    throw gitFailure(args, first.stderr, first.code);
  }
  const env = process.env;
  const retry = await runGit(repoDir, args, {
    GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME || "taskgate",
    GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL || "taskgate@localhost",
    GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME || "taskgate",
    GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL || "taskgate@localhost",
  });
  if (retry.code !== 0) throw gitFailure(args, retry.stderr, retry.code);
  return retry.stdout.trim();
}

/**
 * Who the change is checked for: `TASKGATE_LOGIN`, else `git config github.user`, else git's
 * `user.name`; `undefined` when none is set (the check then names the commit's git author).
 */
async function actingLogin(io: CliIo, repoDir: string): Promise<string | undefined> {
  const fromEnv = io.env?.TASKGATE_LOGIN?.trim();
  if (fromEnv) return fromEnv;
  // One process for both keys; `-z` prints "key\nvalue\0" per entry, and the last value of a key wins.
  const result = await runGit(repoDir, ["config", "-z", "--get-regexp", "^(github\\.user|user\\.name)$"]);
  if (result.code !== 0) return undefined;
  const values = new Map<string, string>();
  for (const entry of result.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    if (newline > 0) values.set(entry.slice(0, newline), entry.slice(newline + 1).trim());
  }
  return values.get("github.user") || values.get("user.name") || undefined;
}

function skip(io: CliIo, json: boolean, note: string): number {
  if (json) printJson(io, { ...reportJson(undefined), note });
  else io.stdout(`taskgate pre-commit: not checked: ${note}\n`);
  return EXIT.ok;
}

/** The JSON of `taskgate check --format json` (a skipped check is neutral and empty). */
function reportJson(report: Report | undefined) {
  return {
    conclusion: report?.conclusion ?? "neutral",
    violations: report?.violations ?? [],
    pending: report?.pending ?? [],
    transitions: report?.transitions ?? [],
    records: (report?.records ?? []).map(({ task, from, to, by, kind }) => ({ task, from, to, by, kind })),
  };
}

/** JSON values are redacted before they are serialised, so a redaction never breaks the JSON. */
function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(redactDeep(value), null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------
// git

interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs git in `dir` without a shell. The environment is inherited (inside a hook it carries
 * GIT_INDEX_FILE and GIT_DIR); messages are in English. Resolves with the exit code.
 */
function runGit(dir: string, args: readonly string[], env: Record<string, string> = {}): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      "git",
      args,
      {
        cwd: dir,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", ...env },
        encoding: "utf8",
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(
            error.code === "ENOENT"
              ? new RepositoryError(
                  "git is not installed (no `git` on PATH)",
                  "Install git and make sure it is on PATH.",
                )
              : new RepositoryError(`cannot run git: ${error.message}`, GIT_HINT),
          );
          return;
        }
        resolvePromise({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

const GIT_HINT = "Check that `git` works in this directory (git status).";

/** Runs git; a non-zero exit throws a `RepositoryError` with git's first line of complaint. */
async function git(dir: string, args: readonly string[]): Promise<string> {
  const result = await runGit(dir, args);
  if (result.code !== 0) throw gitFailure(args, result.stderr, result.code);
  return result.stdout;
}

function gitFailure(args: readonly string[], stderr: string, code: number): RepositoryError {
  const detail = stderr.split("\n").find((line) => line.trim() !== "") ?? `exit code ${code}`;
  return new RepositoryError(`git ${args[0]} failed: ${detail.trim()}`, GIT_HINT);
}
