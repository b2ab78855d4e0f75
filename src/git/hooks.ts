/**
 * The git side of the pre-commit hook: where git runs hooks from, the staged change as a commit
 * object no ref points to, and the identity git knows locally. Every git process goes through
 * `GitRepository`.
 */
import { join, resolve } from "node:path";
import { RepositoryError } from "../core/index.js";
import { HOOK_BACKUP_SUFFIX } from "./local-files.js";
import type { GitRepository, GitResult } from "./repository.js";

const HOOK_GIT_HINT = "Check that `git` works in this directory (git status).";

export interface HookFiles {
  /** The folder git runs hooks from. */
  readonly dir: string;
  /** The pre-commit hook in it. */
  readonly hook: string;
  /** Where `install --force` keeps the hook it replaced. */
  readonly backup: string;
}

/**
 * Where git runs the pre-commit hook from for this repository (`git rev-parse --git-path hooks`,
 * which honours `core.hooksPath` and is shared by linked worktrees). Refuses a bare repository.
 */
export async function hookFiles(repo: GitRepository): Promise<HookFiles> {
  if (repo.bare) {
    throw new RepositoryError(
      "this repository is bare: nobody commits in it, so a pre-commit hook would never run",
      "Install the hook in a checkout of the repository.",
    );
  }
  const out = await checked(repo, ["rev-parse", "--git-path", "hooks"]);
  // Relative output is relative to the directory git ran in.
  const dir = resolve(repo.dir, out.replace(/\n$/, ""));
  const hook = join(dir, "pre-commit");
  return { dir, hook, backup: `${hook}${HOOK_BACKUP_SUFFIX}` };
}

/**
 * The staged change as a commit object: the index written to a tree, wrapped in a commit whose
 * parent is HEAD; no ref moves and the index and the work tree are left alone. git exports
 * GIT_INDEX_FILE to a hook (`commit -a` and `commit <paths>` stage into another index), and the
 * inherited environment makes `write-tree` read the index the commit is made from. When git knows
 * no identity (no user.name or user.email) the commit gets a placeholder one: its author is not who
 * the check judges the change for.
 */
export async function commitStaged(repo: GitRepository, message: string): Promise<string> {
  const tree = (await checked(repo, ["write-tree"])).trim();
  const args = ["commit-tree", "--no-gpg-sign", tree, "-p", "HEAD", "-m", message];
  const first = await repo.git(args, { okCodes: ANY_CODE });
  if (first.code === 0) return text(first).trim();
  if (!/tell me who you are|empty ident|unable to auto-detect|invalid ident/i.test(first.stderr)) {
    throw gitFailure(args, first);
  }
  const env = process.env;
  const retry = await repo.git(args, {
    okCodes: ANY_CODE,
    env: {
      GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME || "taskgate",
      GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL || "taskgate@localhost",
      GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME || "taskgate",
      GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL || "taskgate@localhost",
    },
  });
  if (retry.code !== 0) throw gitFailure(args, retry);
  return text(retry).trim();
}

/** Every exit code: the caller looks at it. */
const ANY_CODE = Array.from({ length: 256 }, (_, code) => code);

/** Runs git; a non-zero exit throws a `RepositoryError` with git's first line of complaint. */
async function checked(repo: GitRepository, args: readonly string[]): Promise<string> {
  const result = await repo.git(args, { okCodes: ANY_CODE });
  if (result.code !== 0) throw gitFailure(args, result);
  return text(result);
}

function text(result: GitResult): string {
  return result.stdout.toString("utf8");
}

function gitFailure(args: readonly string[], result: GitResult): RepositoryError {
  const detail = result.stderr.split("\n").find((line) => line.trim() !== "") ?? `exit code ${result.code}`;
  return new RepositoryError(`git ${args[0]} failed: ${detail.trim()}`, HOOK_GIT_HINT);
}
