/**
 * Large generated repositories for correctness tests of the fast paths (one `git fast-import` each,
 * tiny files so that 10,000 tasks build in seconds), and a reference reader that does everything
 * the simple way: the whole revision read by plain git commands, the scope applied path by path.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { ReadLimits, SnapshotScope, TaskRepository } from "../../src/core/kernel/port.js";
import type { FileEntry, Snapshot } from "../../src/core/kernel/types.js";
import { GitRepository } from "../../src/git/repository.js";
import { board, def, entry } from "./board.js";
import type { TempRepo } from "./git.js";

export interface Commit {
  readonly branch: string;
  readonly from?: string;
  readonly author: string;
  readonly files: ReadonlyMap<string, string | null>;
}

/** A bare repository made of these commits, in order, by one fast-import. */
export function importRepository(commits: readonly Commit[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-scale-"));
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", dir]);
  const parts: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  commits.forEach((commit, index) => {
    const who = `${commit.author} <${commit.author}@example.com> ${1714550400 + index * 3600} +0000`;
    parts.push(`commit refs/heads/${commit.branch}\nmark :${index + 1}\nauthor ${who}\ncommitter ${who}\n`);
    parts.push(data(`commit ${index + 1}`));
    if (commit.from) parts.push(`from ${commit.from}\n`);
    for (const [path, text] of commit.files) {
      parts.push(text === null ? `D ${path}\n` : `M 100644 inline ${path}\n${data(text)}`);
    }
    parts.push("\n");
  });
  parts.push("done\n");
  execFileSync("git", ["fast-import", "--quiet", "--done"], { cwd: dir, input: parts.join(""), maxBuffer: 1 << 30 });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const STATES = ["research", "implement", "bug_find", "complete"] as const;

/**
 * A phases task store of `count` tasks: states in turn, approvals as each state needs them, and a
 * defect in every 97th task (a FAIL verdict, a forged approval, an empty or a forbidden artifact).
 */
export function phasesTasks(count: number, first = 1): Map<string, string> {
  const files = new Map<string, string>();
  for (let i = first; i < first + count; i++) {
    const dir = `tasks/t${String(i).padStart(5, "0")}`;
    const state = STATES[i % STATES.length]!;
    const approvals = state === "research" ? "" : "research:approved|2024-05-01T09:00:00Z|alice\n";
    files.set(`${dir}/.state`, `${state}\n`);
    files.set(`${dir}/.state.approvals`, approvals);
    files.set(`${dir}/SPEC.md`, `# ${dir}\n\nWhat to build.\n`);
    if (state === "bug_find" || state === "complete") files.set(`${dir}/BUG_REPORT.md`, "# Bugs\n\nNone.\n");
    if (state === "complete") {
      for (const name of ["ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md"]) files.set(`${dir}/${name}`, "# Done\n");
      files.set(`${dir}/VERDICT.md`, "PASS\n");
    }
    if (i % 97 === 0) {
      if (state === "complete") files.set(`${dir}/VERDICT.md`, "FAIL\n");
      else if (state === "implement") files.set(`${dir}/.state.approvals`, "");
      else if (state === "research") files.set(`${dir}/DESIGN.md`, "# Too early\n");
      else files.set(`${dir}/BUG_REPORT.md`, "");
    }
  }
  return files;
}

/**
 * A reference `TaskRepository`: git's answers for everything but snapshots, which are read whole
 * with `git ls-tree` and `git cat-file` through pipes and cut to the scope path by path.
 */
export class ReferenceRepository implements TaskRepository {
  private constructor(
    private readonly git: GitRepository,
    private readonly dir: string,
  ) {}

  static async open(dir: string): Promise<ReferenceRepository> {
    return new ReferenceRepository(await GitRepository.open(dir), dir);
  }

  resolve = (ref: string) => this.git.resolve(ref);
  mergeBase = (a: string, b: string) => this.git.mergeBase(a, b);
  changedFiles = (base: string, head: string) => this.git.changedFiles(base, head);
  commits = (base: string, head: string) => this.git.commits(base, head);
  differences = (from: string, to: string) => this.git.differences(from, to);

  async readSnapshot(rev: string, scope?: SnapshotScope, limits?: ReadLimits): Promise<Snapshot> {
    const run = (args: string[], input?: string) =>
      execFileSync("git", args, { cwd: this.dir, input, maxBuffer: 1 << 30 });
    const listing = run(["ls-tree", "-r", "-l", "-z", "--full-tree", rev]).toString("utf8").split("\0");
    const wanted: { path: string; oid: string; size: number; read: boolean }[] = [];
    for (const record of listing.filter(Boolean)) {
      const [meta, path] = [record.slice(0, record.indexOf("\t")), record.slice(record.indexOf("\t") + 1)];
      const [, , oid, sizeText] = meta.split(/ +/) as [string, string, string, string];
      const inScope =
        !scope ||
        scope.paths.includes(path) ||
        scope.prefixes.some(
          (prefix) => prefix === "/" || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`),
        );
      if (!inScope) continue;
      const size = Number(sizeText);
      const limit = limits?.perPath?.[path] ?? limits?.maxFileBytes ?? 1024 * 1024;
      wanted.push({ path, oid, size, read: size <= limit });
    }
    // One buffered `cat-file --batch`, parsed the plain way.
    const out = run(["cat-file", "--batch"], wanted.map((item) => `${item.oid}\n`).join(""));
    const contents = new Map<string, Buffer>();
    for (let at = 0; at < out.length; ) {
      const lf = out.indexOf(0x0a, at);
      const [oid, , size] = out.toString("latin1", at, lf).split(" ") as [string, string, string];
      contents.set(oid, out.subarray(lf + 1, lf + 1 + Number(size)));
      at = lf + 1 + Number(size) + 1;
    }
    const files = new Map<string, FileEntry>();
    for (const { path, oid, size, read } of wanted) {
      const content = contents.get(oid)!;
      files.set(
        path,
        !read
          ? { path, kind: "oversized", size, oid }
          : content.subarray(0, 8000).includes(0)
            ? { path, kind: "binary", size, oid }
            : { path, kind: "file", size, text: content.toString("utf8"), oid },
      );
    }
    return { rev, files };
  }
}

/** A read-only repository of `files` on main, built by one `git fast-import` (thousands of tasks in seconds). */
export function importedRepo(files: ReadonlyMap<string, string>): TempRepo {
  // glibc hands memory back on each free by default: one system call per object for fast-import.
  process.env.MALLOC_TOP_PAD_ ??= String(2 ** 28);
  const made = importRepository([{ branch: "main", author: "alice", files }]);
  const readOnly = () => {
    throw new Error("an imported repository is read-only");
  };
  return {
    dir: made.dir,
    git: (...args: string[]) =>
      execFileSync("git", args, { cwd: made.dir, encoding: "utf8", maxBuffer: 2 ** 30 }).trim(),
    write: readOnly,
    symlink: readOnly,
    commit: readOnly,
    remove: made.remove,
  };
}

/** A board of `count` tasks, a fifth of them waiting for review by role qa (`qa`: its members). */
export function reviewBoard(count: number, qa = '[quinn, "@acme/qa"]'): Map<string, string> {
  const definitions = [];
  const ledger: Record<string, ReturnType<typeof entry>> = {};
  for (let i = 0; i < count; i++) {
    definitions.push(def(`t${i}`, { depends_on: i % 4 === 1 ? [`t${i - 1}`] : [] }));
    if (i % 5 === 0) ledger[`t${i}`] = entry("review", { owner: `dev${i % 7}` });
  }
  return new Map(
    Object.entries({
      ".github/taskgate.yml": `preset: board\nroles:\n  qa: ${qa}\n  backend: [carol]\n`,
      ...(board(definitions, ledger, 1) as Record<string, string>),
    }),
  );
}
