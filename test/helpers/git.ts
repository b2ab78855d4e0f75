/** Real temporary git repositories for adapter and CLI tests. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { main } from "../../src/cli/main.js";

export interface TempRepo {
  readonly dir: string;
  git(...args: string[]): string;
  write(files: Record<string, string | null>): void;
  symlink(path: string, target: string): void;
  /** Commits everything as `author` (default carol), committed by `committer` (default the author). */
  commit(message: string, author?: string, committer?: string): string;
  remove(): void;
}

export function tempRepo(): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-test-"));
  // Copied once: reading every variable of `process.env` for each of many git commands adds up.
  const base = { ...process.env };
  const env = (author: string, committer = author) => ({
    ...base,
    GIT_AUTHOR_NAME: author,
    GIT_AUTHOR_EMAIL: `${author.replace(/[^a-z0-9]/gi, "")}@example.com`,
    GIT_COMMITTER_NAME: committer,
    GIT_COMMITTER_EMAIL: `${committer.replace(/[^a-z0-9]/gi, "")}@example.com`,
    GIT_CONFIG_NOSYSTEM: "1",
    HOME: dir,
  });
  let author = "carol";
  let committer: string | undefined;
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: env(author, committer), encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  return {
    dir,
    git,
    write(files) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(dir, path);
        if (content === null) rmSync(full, { force: true, recursive: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
      }
    },
    symlink(path, target) {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      rmSync(full, { force: true });
      symlinkSync(target, full);
    },
    commit(message, who = "carol", by) {
      author = who;
      committer = by;
      git("add", "-A");
      git("commit", "-q", "--allow-empty", "-m", message);
      committer = undefined;
      return git("rev-parse", "HEAD");
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  json<T = Record<string, unknown>>(): T;
}

/** Runs the CLI in-process, as `taskgate ...` would from `cwd` (with `env` as its environment). */
export async function runCli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd,
    env,
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
