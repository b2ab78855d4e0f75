/**
 * The port in memory: every commit of a repository held as plain data (its files, parents and git
 * identities), and the port's questions answered from it in JavaScript, without git or GitHub.
 * Built from a real repository once, so that the same pull request can be judged through this
 * port, the git adapter and the fake GitHub.
 */
import { execFileSync } from "node:child_process";
import {
  RefNotFoundError,
  scopeMatcher,
  type ReadLimits,
  type SnapshotScope,
  type TaskRepository,
} from "../../src/core/kernel/port.js";
import type { ChangedFile, FileEntry, PrCommit, Snapshot } from "../../src/core/kernel/types.js";

interface MemoryCommit {
  readonly parents: readonly string[];
  readonly files: ReadonlyMap<string, FileEntry>;
  readonly gitName: string;
  readonly gitEmail: string;
  readonly gitCommitter: { readonly name: string; readonly email: string };
}

export class MemoryRepository implements TaskRepository {
  constructor(
    private readonly store: ReadonlyMap<string, MemoryCommit>,
    private readonly refs: ReadonlyMap<string, string>,
  ) {}

  /** Every commit of every branch of the repository in `dir`, with its files (text files only). */
  static fromGit(dir: string): MemoryRepository {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
    const refs = new Map<string, string>();
    for (const line of git("for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
      .trim()
      .split("\n")) {
      const [name, sha] = line.split(" ");
      refs.set(name!, sha!);
    }
    const store = new Map<string, MemoryCommit>();
    for (const sha of git("rev-list", "--all").trim().split("\n")) {
      const [parents, gitName, gitEmail, name, email] = git(
        "show",
        "-s",
        "--format=%P%x00%an%x00%ae%x00%cn%x00%ce",
        sha,
      )
        .replace(/\n$/, "")
        .split("\0");
      const files = new Map<string, FileEntry>();
      for (const record of git("ls-tree", "-r", "-z", sha).split("\0").filter(Boolean)) {
        const [meta, path] = record.split("\t");
        const oid = meta!.split(" ")[2]!;
        const text = git("cat-file", "blob", oid);
        files.set(path!, { path: path!, kind: "file", size: Buffer.byteLength(text), text, oid });
      }
      store.set(sha, {
        parents: parents ? parents.split(" ") : [],
        files,
        gitName: gitName!,
        gitEmail: gitEmail!,
        gitCommitter: { name: name!, email: email! },
      });
    }
    return new MemoryRepository(store, refs);
  }

  async resolve(ref: string): Promise<string> {
    const sha = this.store.has(ref) ? ref : this.refs.get(ref);
    if (!sha) throw new RefNotFoundError(ref);
    return sha;
  }

  /** Every ancestor of `sha` (itself included), nearest first. */
  private ancestors(sha: string): string[] {
    const seen = new Set<string>();
    const queue = [sha];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(this.store.get(next)?.parents ?? []));
    }
    return [...seen];
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const ofA = new Set(this.ancestors(a));
    return this.ancestors(b).find((sha) => ofA.has(sha));
  }

  async readSnapshot(rev: string, scope?: SnapshotScope, limits?: ReadLimits): Promise<Snapshot> {
    const commit = this.store.get(await this.resolve(rev))!;
    const matches = scopeMatcher(scope);
    const files = new Map<string, FileEntry>();
    for (const [path, entry] of commit.files) {
      if (!matches(path)) continue;
      const limit = limits?.perPath?.[path] ?? limits?.maxFileBytes ?? Number.MAX_SAFE_INTEGER;
      files.set(path, entry.size > limit ? { path, kind: "oversized", size: entry.size, oid: entry.oid! } : entry);
    }
    return { rev, files };
  }

  async changedFiles(base: string, head: string): Promise<ChangedFile[]> {
    const changed = await this.differences(base, head);
    const after = this.store.get(head)!.files;
    return [...changed.keys()].sort().map((path) => ({
      path,
      status: changed.get(path) === null ? "added" : after.has(path) ? "modified" : "removed",
    }));
  }

  async commits(base: string, head: string): Promise<PrCommit[]> {
    const excluded = new Set(this.ancestors(base));
    return this.ancestors(head)
      .filter((sha) => !excluded.has(sha))
      .reverse()
      .map((sha) => {
        const commit = this.store.get(sha)!;
        const parent = this.store.get(commit.parents[0] ?? "")?.files ?? new Map<string, FileEntry>();
        const files = [...new Set([...commit.files.keys(), ...parent.keys()])].filter(
          (path) => commit.files.get(path)?.oid !== parent.get(path)?.oid,
        );
        return {
          sha,
          author: null,
          gitName: commit.gitName,
          gitEmail: commit.gitEmail,
          gitCommitter: commit.gitCommitter,
          coAuthors: [],
          parents: [...commit.parents],
          files: files.sort(),
        };
      });
  }

  async differences(from: string, to: string): Promise<ReadonlyMap<string, string | null>> {
    const [before, after] = [this.store.get(from)!.files, this.store.get(to)!.files];
    const out = new Map<string, string | null>();
    for (const path of new Set([...before.keys(), ...after.keys()])) {
      if (before.get(path)?.oid !== after.get(path)?.oid) out.set(path, before.get(path)?.oid ?? null);
    }
    return out;
  }
}
