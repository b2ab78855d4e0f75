import { afterAll, describe, expect, it } from "vitest";

import { RefNotFoundError } from "../../src/core/kernel/port.js";
import { GitRepository } from "../../src/git/repository.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterAll(() => repos.forEach((repo) => repo.remove()));

/** A repository with a base commit; `change` edits the work tree for a second commit. */
function twoCommits(
  base: Record<string, string>,
  change: (repo: TempRepo) => void,
): TempRepo & { from: string; to: string } {
  const repo = tempRepo();
  repos.push(repo);
  repo.write(base);
  const from = repo.commit("from");
  change(repo);
  const to = repo.commit("to");
  return { ...repo, from, to };
}

/** Opens `dir` and records the arguments of every git process spawned after opening. */
async function openCounting(dir: string): Promise<{ repo: GitRepository; spawns: (readonly string[])[] }> {
  const spawns: (readonly string[])[] = [];
  let counting = false;
  const repo = await GitRepository.open(dir, {
    onSpawn: (args) => {
      if (counting) spawns.push(args);
    },
  });
  counting = true;
  return { repo, spawns };
}

describe("differences", () => {
  it("maps a path added at `to` to null", async () => {
    const repo = twoCommits({ "a.md": "a\n" }, (r) => r.write({ "tasks/new.md": "new\n" }));
    const git = await GitRepository.open(repo.dir);
    expect(await git.differences(repo.from, repo.to)).toEqual(new Map([["tasks/new.md", null]]));
  });

  it("maps a path removed at `to` to its id at `from`", async () => {
    const repo = twoCommits({ "a.md": "a\n", "gone.md": "gone\n" }, (r) => r.write({ "gone.md": null }));
    const git = await GitRepository.open(repo.dir);
    const oid = repo.git("rev-parse", `${repo.from}:gone.md`);
    expect(await git.differences(repo.from, repo.to)).toEqual(new Map([["gone.md", oid]]));
  });

  it("maps a modified path to its id at `from`, and swaps sides when asked", async () => {
    const repo = twoCommits({ "a.md": "a\n", "same.md": "same\n" }, (r) => r.write({ "a.md": "b\n" }));
    const git = await GitRepository.open(repo.dir);
    const before = repo.git("rev-parse", `${repo.from}:a.md`);
    const after = repo.git("rev-parse", `${repo.to}:a.md`);
    expect(before).not.toBe(after);
    expect(await git.differences(repo.from, repo.to)).toEqual(new Map([["a.md", before]]));
    expect(await git.differences(repo.to, repo.from)).toEqual(new Map([["a.md", after]]));
  });

  it("reports a rename as two paths: the old one with its id, the new one with null", async () => {
    const text = "A file long enough to be recognised as renamed by git's rename detection.\n";
    const repo = twoCommits({ "docs/deep/guide.md": text }, (r) =>
      r.write({ "docs/deep/guide.md": null, "docs/guide.md": text }),
    );
    // Even with renames switched on in the configuration.
    repo.git("config", "diff.renames", "copies");
    const git = await GitRepository.open(repo.dir);
    const oid = repo.git("rev-parse", `${repo.from}:docs/deep/guide.md`);
    expect(await git.differences(repo.from, repo.to)).toEqual(
      new Map([
        ["docs/deep/guide.md", oid],
        ["docs/guide.md", null],
      ]),
    );
  });

  it("counts a file turned into a symlink as a difference", async () => {
    const repo = twoCommits({ "target.md": "t\n", "link.md": "target.md" }, (r) => r.symlink("link.md", "target.md"));
    const git = await GitRepository.open(repo.dir);
    // Same bytes (the link target equals the old content), different kind: still a difference.
    expect(repo.git("rev-parse", `${repo.from}:link.md`)).toBe(repo.git("rev-parse", `${repo.to}:link.md`));
    expect(repo.git("ls-tree", repo.to, "link.md")).toMatch(/^120000 /);
    const oid = repo.git("rev-parse", `${repo.from}:link.md`);
    expect(await git.differences(repo.from, repo.to)).toEqual(new Map([["link.md", oid]]));
  });

  it("includes submodules, with the commit id they record", async () => {
    const repo = twoCommits({ "a.md": "a\n" }, () => {});
    repo.git("update-index", "--add", "--cacheinfo", `160000,${repo.from},vendor/lib`);
    repo.git("commit", "-q", "-m", "add submodule");
    const added = repo.git("rev-parse", "HEAD");
    repo.git("update-index", "--cacheinfo", `160000,${repo.to},vendor/lib`);
    repo.git("commit", "-q", "-m", "bump submodule");
    repo.git("config", "diff.ignoreSubmodules", "all");
    const git = await GitRepository.open(repo.dir);
    expect(await git.differences(repo.to, added)).toEqual(new Map([["vendor/lib", null]]));
    expect(await git.differences(added, "HEAD")).toEqual(new Map([["vendor/lib", repo.from]]));
  });

  it("handles unusual file names", async () => {
    const names = ["odd\nname.md", "ünï cödé ✓.md", "weird[1]*.md", ' "quoted".md'];
    const repo = twoCommits({ "a.md": "a\n" }, (r) => r.write(Object.fromEntries(names.map((name) => [name, "x\n"]))));
    const git = await GitRepository.open(repo.dir);
    const differences = await git.differences(repo.to, repo.from);
    const oid = repo.git("rev-parse", `${repo.to}:${names[0] ?? ""}`);
    expect(differences).toEqual(new Map(names.map((name) => [name, oid])));
  });

  it("returns an empty map for identical revisions", async () => {
    const repo = twoCommits({ "a.md": "a\n" }, () => {});
    const git = await GitRepository.open(repo.dir);
    // Different commits, same tree.
    expect(repo.from).not.toBe(repo.to);
    expect(await git.differences(repo.from, repo.to)).toEqual(new Map());
    expect(await git.differences("main", "main")).toEqual(new Map());
  });

  it("spawns exactly one git process", async () => {
    const repo = twoCommits({ "a.md": "a\n", "b.md": "b\n" }, (r) =>
      r.write({ "a.md": "a2\n", "b.md": null, "c.md": "c\n" }),
    );
    const { repo: git, spawns } = await openCounting(repo.dir);
    const differences = await git.differences(repo.from, repo.to);
    expect(differences.size).toBe(3);
    expect(spawns).toHaveLength(1);
    expect(spawns[0]).toEqual(expect.arrayContaining(["diff", "--raw", "-z", "--no-renames", "--no-abbrev"]));
  });

  it("throws RefNotFoundError for unknown refs and non-trees, without running git for option-like refs", async () => {
    const repo = twoCommits({ "a.md": "a\n" }, (r) => r.write({ "a.md": "b\n" }));
    const { repo: git, spawns } = await openCounting(repo.dir);
    await expect(git.differences("main", "nope")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(git.differences("nope", "main")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(git.differences("main", "1".repeat(40))).rejects.toBeInstanceOf(RefNotFoundError);
    // A blob is not a tree.
    await expect(git.differences("main:a.md", "main")).rejects.toThrow(new RefNotFoundError("main:a.md"));
    spawns.length = 0;
    await expect(git.differences("--output=x", "main")).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(git.differences("main", "")).rejects.toBeInstanceOf(RefNotFoundError);
    expect(spawns).toEqual([]);
  });

  it("accepts trees as well as commits", async () => {
    const repo = twoCommits({ "a.md": "a\n" }, (r) => r.write({ "a.md": "b\n" }));
    const git = await GitRepository.open(repo.dir);
    const oid = repo.git("rev-parse", `${repo.from}:a.md`);
    expect(await git.differences(`${repo.from}^{tree}`, repo.to)).toEqual(new Map([["a.md", oid]]));
  });
});
