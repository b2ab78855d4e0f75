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
import { lstat, mkdir, readFile, rename, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { commitStaged, hookFiles, type HookFiles } from "../git/hooks.js";
import { writeAtomic } from "../git/local-files.js";
import { GitRepository } from "../git/repository.js";
import { RefNotFoundError, RepositoryError } from "../core/index.js";
import { resolveActor } from "./actor.js";
import type { CommandRun } from "./commands.js";
import { formatReport, reportJson } from "./format.js";
import { EXIT, UsageError, printFailure, type Output } from "./io.js";

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

/** The executable of this package: `dist/cli/hook.js` (or `src/cli/hook.ts`) → `bin/taskgate.js`. */
const BIN_PATH = fileURLToPath(new URL("../../bin/taskgate.js", import.meta.url));

/** The CLI's general usage does not describe the hook's options; this help does. */
const SEE_HELP = " (see taskgate hook --help)";

const COMMIT_MESSAGE = "taskgate: staged change";

/** `taskgate hook ...`: its arguments come unparsed, as `run.positionals`. */
export async function hookCommand(run: CommandRun): Promise<number> {
  const { values, positionals } = parseHookOptions(run.positionals);
  if (values.help) {
    run.io.stdout(HOOK_USAGE);
    return EXIT.ok;
  }
  const [subcommand, extra] = positionals;
  if (subcommand === undefined) throw new UsageError(`hook needs a command: install, uninstall or run${SEE_HELP}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"${SEE_HELP}`);
  if (values.force && subcommand !== "install") throw new UsageError(`--force applies to hook install only${SEE_HELP}`);
  const repoDir = resolve(run.io.cwd, values.repo ?? ".");
  const out: Output = { io: run.io, json: values.json ?? false, printJson: run.printJson };
  switch (subcommand) {
    case "install":
      return install(out, repoDir, values.force ?? false);
    case "uninstall":
      return uninstall(out, repoDir);
    case "run":
      return runHook(out, repoDir);
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

async function install(out: Output, repoDir: string, force: boolean): Promise<number> {
  const files = await hookFiles(await GitRepository.open(repoDir));
  const existing = await existingHook(files.hook);
  let backup: string | undefined;
  if (existing === "foreign") {
    const refusal = await backUp(out, files, force);
    if (typeof refusal === "number") return refusal;
    backup = refusal;
  }
  await fsStep(`cannot create ${files.dir}`, () => mkdir(files.dir, { recursive: true }));
  // Written beside the hook and renamed over it, so git never runs a half-written script.
  await fsStep(`cannot write ${files.hook}`, () => writeAtomic(files.hook, hookScript(), { mode: 0o755 }));
  if (out.json) out.printJson({ installed: files.hook, ...(backup && { backup }) });
  else {
    const verb = existing === "taskgate" ? "updated" : "installed";
    out.io.stdout(`taskgate: ${verb} the pre-commit hook at ${files.hook}\n`);
    if (backup) out.io.stdout(`  the previous hook is kept at ${backup}; \`taskgate hook uninstall\` puts it back\n`);
    out.io.stdout(
      "  every commit's staged change is now checked as a pull request from HEAD; violations refuse the commit\n",
    );
  }
  return EXIT.ok;
}

/** Moves a hook that is not taskgate's to its backup (with --force): the backup's path, or the refusal's exit code. */
async function backUp(out: Output, files: HookFiles, force: boolean): Promise<string | number> {
  if (!force) {
    return printFailure(
      out,
      `${files.hook} already exists and is not taskgate's hook`,
      "Run it from your own hook instead, or pass --force to replace it (it is kept as a backup that `taskgate hook uninstall` restores).",
    );
  }
  if (await exists(files.backup)) {
    return printFailure(
      out,
      `${files.backup} already exists, so the current hook cannot be backed up`,
      "Move one of the two hooks elsewhere, then install again.",
    );
  }
  await fsStep(`cannot move ${files.hook} to ${files.backup}`, () => rename(files.hook, files.backup));
  return files.backup;
}

async function uninstall(out: Output, repoDir: string): Promise<number> {
  const files = await hookFiles(await GitRepository.open(repoDir));
  const existing = await existingHook(files.hook);
  if (existing === "none") {
    if (out.json) out.printJson({ removed: null });
    else out.io.stdout(`taskgate: no pre-commit hook at ${files.hook}; nothing to remove\n`);
    return EXIT.ok;
  }
  if (existing === "foreign") {
    return printFailure(
      out,
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
  if (out.json) out.printJson({ removed: files.hook, ...(restored && { restored }) });
  else {
    out.io.stdout(`taskgate: removed the pre-commit hook at ${files.hook}\n`);
    if (restored) out.io.stdout(`  restored the previous hook from ${restored}\n`);
  }
  return EXIT.ok;
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

async function runHook(out: Output, repoDir: string): Promise<number> {
  const repo = await GitRepository.open(repoDir);
  await repo.workTreeRoot(); // refuses a bare repository, which has no index to check
  const head = await optionalCommit(repo, "HEAD");
  if (head === undefined) {
    return skip(out, "this is the first commit (no HEAD yet), so there is nothing to compare it with");
  }
  // A merge commit brings in changes other pull requests made (and were checked for), by other
  // authors and often with the bot's approval records. Judged as this author's pull request from
  // HEAD they would be refused for rules they already passed, so a merge is not checked here; the
  // pull request that carries it is.
  if ((await optionalCommit(repo, "MERGE_HEAD")) !== undefined) {
    return skip(out, "a merge is in progress; the merged changes are checked on the pull request");
  }
  const staged = await commitStaged(repo, COMMIT_MESSAGE);
  // Who the change is checked for; without one, the check names the commit's git author.
  const author = (await resolveActor(repo, { io: out.io, gitName: true }))?.login;
  // The core's rules load here, once there is a change to judge: install and uninstall never need them.
  const { checkPullRequest } = await import("./use-cases.js");
  const report = await checkPullRequest(repo, { base: "HEAD", head: staged, ...(author && { pr: { author } }) });
  if (out.json) out.printJson(reportJson(report));
  else {
    out.io.stdout(formatReport(report, "pre-commit: the staged change as a pull request from HEAD"));
    if (report.conclusion === "failure") {
      out.io.stdout(
        "the commit is refused: fix the problems above and commit again (the pull request check applies the same rules)\n",
      );
    } else if (report.conclusion === "action_required") {
      out.io.stdout("pending approvals do not block a commit: approvals come from reviews of the pull request\n");
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

function skip(out: Output, note: string): number {
  if (out.json) out.printJson({ ...reportJson(undefined), note });
  else out.io.stdout(`taskgate pre-commit: not checked: ${note}\n`);
  return EXIT.ok;
}
