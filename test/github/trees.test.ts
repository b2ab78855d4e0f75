/**
 * The GitHub port reads trees folder by folder: the changed files, the differences and the scoped
 * snapshots it gives equal git's own (and one recursive listing's), on generated repositories, with
 * GitHub's cuts or without them.
 */
import { execFileSync } from "node:child_process";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SnapshotScope } from "../../src/core/kernel/port.js";
import type { ChangedFile, Snapshot } from "../../src/core/kernel/types.js";
import { GitHubRepository } from "../../src/github/repository.js";
import {
  Tree,
  absorbListing,
  changedFiles,
  differences,
  inScope,
  snapshotOf,
  type Folders,
} from "../../src/github/trees.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import { apiFor, generated, kinds, prng } from "./helpers.js";

const repos: TempRepo[] = [];
beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** What git says changed (no renames), as `ChangedFile`s. */
function gitChanged(repo: TempRepo, base: string, head: string): ChangedFile[] {
  const fields = repo.git("diff", "--no-renames", "--name-status", "-z", base, head).split("\0").filter(Boolean);
  const out: ChangedFile[] = [];
  for (let at = 0; at < fields.length; at += 2) {
    const status = fields[at] === "A" ? "added" : fields[at] === "D" ? "removed" : "modified";
    out.push({ path: fields[at + 1]!, status });
  }
  return out.sort(byPath);
}

/** Every file of a revision: path → [mode, object id]. */
function gitFiles(repo: TempRepo, rev: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const record of repo.git("ls-tree", "-r", "-z", rev).split("\0").filter(Boolean)) {
    const [meta, path] = record.split("\t");
    const [mode, , oid] = meta!.split(" ");
    out.set(path!, [mode!, oid!]);
  }
  return out;
}

/** The scope's files as the old, pairwise definition of a scope picks them. */
function naiveInScope(scope: SnapshotScope | undefined, path: string): boolean {
  if (!scope) return true;
  return (
    scope.paths.includes(path) ||
    scope.prefixes.some((prefix) => prefix === "/" || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`))
  );
}

function summary(snapshot: Snapshot): [string, string, string | undefined][] {
  return [...snapshot.files.values()].map((file) => [file.path, file.kind, file.oid]);
}

/** Scopes over a revision's files: whole, a file, folders with and without "/", files and folders. */
function scopesOf(paths: readonly string[], seed: number): (SnapshotScope | undefined)[] {
  const random = prng(seed);
  const folders = [
    ...new Set(
      paths.flatMap((path) =>
        path
          .split("/")
          .slice(0, -1)
          .map((_, at, parts) => parts.slice(0, at + 1).join("/")),
      ),
    ),
  ];
  const some = <T>(items: readonly T[], count: number) =>
    Array.from({ length: count }, () => items[Math.floor(random() * items.length)]!).filter(Boolean);
  return [
    undefined,
    { paths: [".github/taskgate.yml"], prefixes: [] },
    { paths: some(paths, 4), prefixes: some(folders, 2).map((folder) => `${folder}/`) },
    { paths: ["missing/file"], prefixes: [...some(folders, 3), "nowhere/"] },
    { paths: [], prefixes: ["/"] },
  ];
}

/** Trees from one recursive listing per commit, as GitHub gives them when it does not cut them. */
async function recursively(fake: FakeGitHub, shas: readonly string[]): Promise<Tree[]> {
  const api = apiFor(fake);
  const folders: Folders = new Map();
  return Promise.all(
    shas.map(async (sha) => {
      const listing = await api.listing(sha, { recursive: true });
      expect(listing.truncated).toBe(false);
      absorbListing(listing, folders, true);
      return new Tree(sha, listing.sha, folders);
    }),
  );
}

describe("reading trees folder by folder", () => {
  it("gives git's changed files, differences and scoped snapshots, and what one recursive listing gives", async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { repo, paths } = generated(seed);
      repos.push(repo);
      nock.cleanAll();
      const fake = new FakeGitHub(repo, { head: "feature" });
      fake.install();
      const base = fake.sha("main");
      const head = fake.sha("feature");
      const github = new GitHubRepository(apiFor(fake));
      const expected = gitChanged(repo, base, head);
      expect(expected.length).toBeGreaterThan(5);
      expect(await github.changedFiles(base, head)).toEqual(expected);
      const before = gitFiles(repo, head);
      const after = gitFiles(repo, base);
      const differs = new Map<string, string | null>();
      for (const path of new Set([...before.keys(), ...after.keys()])) {
        if (before.get(path)?.join() !== after.get(path)?.join()) differs.set(path, before.get(path)?.[1] ?? null);
      }
      expect(new Map([...(await github.differences(head, base))].sort())).toEqual(new Map([...differs].sort()));
      const [whole, wholeHead] = (await recursively(fake, [base, head])) as [Tree, Tree];
      expect(changedFiles(whole, wholeHead)).toEqual(expected);
      expect(differences(wholeHead, whole)).toEqual(await github.differences(head, base));
      for (const scope of scopesOf([...before.keys(), ...paths], seed)) {
        const snapshot = await github.readSnapshot(head, scope);
        const wanted = [...before].filter(([path]) => naiveInScope(scope, path));
        expect(summary(snapshot).map(([path, , oid]) => [path, oid])).toEqual(
          wanted.map(([path, [, oid]]) => [path, oid]),
        );
        expect(summary(snapshotOf(wholeHead, scope, {}, github.blobs))).toEqual(summary(snapshot));
        for (const [path, [mode, oid]] of wanted.slice(0, 3)) {
          const file = snapshot.files.get(path)!;
          expect(file.oid).toBe(oid);
          const blob = execFileSync("git", ["cat-file", "blob", oid], { cwd: repo.dir, encoding: "utf8" });
          expect(mode === "120000" ? file.target : file.text).toBe(blob);
        }
      }
      expect(fake.schemaErrors).toEqual([]);
      expect(fake.restErrors).toEqual([]);
    }
  });

  it("places a path in a scope as the pairwise definition does, in time linear in the scope", () => {
    const random = prng(7);
    const parts = ["a", "a.b", "a-b", "b", "tasks", "t1", "x"];
    const path = () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => parts[Math.floor(random() * parts.length)]).join("/");
    for (let round = 0; round < 200; round++) {
      const scope = {
        paths: Array.from({ length: Math.floor(random() * 4) }, path),
        prefixes: Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.5 ? `${path()}/` : path())),
      };
      for (let at = 0; at < 20; at++) {
        const candidate = path();
        expect(inScope(scope, candidate), `${candidate} in ${JSON.stringify(scope)}`).toBe(
          naiveInScope(scope, candidate),
        );
      }
    }
  });
});

describe("request counts", () => {
  it("walks only the folders that differ, in one request per level, whatever the repository's size", async () => {
    const counts: string[][] = [];
    for (const tasks of [20, 400]) {
      nock.cleanAll();
      const { repo } = generatedTasks(tasks);
      repos.push(repo);
      const fake = new FakeGitHub(repo, { head: "feature" });
      fake.install();
      const github = new GitHubRepository(apiFor(fake));
      const [base, head] = [fake.sha("main"), fake.sha("feature")];
      const files = await github.changedFiles(base, head);
      expect(files.map((file) => file.path)).toEqual([
        "src/app/main.ts",
        "tasks/t0001/.state",
        "tasks/t0002/SPEC.md",
        "tasks/t0003/BUG_REPORT.md",
      ]);
      await github.readSnapshot(head, { paths: [".github/taskgate.yml"], prefixes: ["tasks/t0001/", "tasks/t0002/"] });
      counts.push(kinds(fake.apiRequests));
    }
    // Roots; .github, src and tasks; src/app and three task folders; then the blobs.
    expect(counts[0]).toEqual(["Folders", "Folders", "Folders", "Folders", "Batch"]);
    expect(counts[1]).toEqual(counts[0]);
  });

  it("lists the folders above the files a comparison names with the roots, and walks past a short list", async () => {
    const { repo } = generatedTasks(400);
    repos.push(repo);
    const expected = ["src/app/main.ts", "tasks/t0001/.state", "tasks/t0002/SPEC.md", "tasks/t0003/BUG_REPORT.md"];
    const asked: string[][] = [];
    for (const cap of [300, 1, 0]) {
      nock.cleanAll();
      const fake = new FakeGitHub(repo, { head: "feature" });
      fake.compareFileCap = cap;
      fake.install();
      const github = new GitHubRepository(apiFor(fake));
      const [base, head] = [fake.sha("main"), fake.sha("feature")];
      const mergeBase = (await github.mergeBase(base, head))!;
      expect((await github.changedFiles(mergeBase, head)).map((file) => file.path)).toEqual(expected);
      asked.push(kinds(fake.apiRequests));
    }
    // Every file listed: one request for all the folders. One listed (src/app/main.ts), or none: the
    // task folders take the walk's levels (roots; tasks; the three tasks), and nothing is missed.
    expect(asked).toEqual([
      ["GET /compare/<sha>...<sha>", "Folders"],
      ["GET /compare/<sha>...<sha>", "Folders", "Folders", "Folders"],
      ["GET /compare/<sha>...<sha>", "Folders", "Folders", "Folders"],
    ]);
  });
});

/** A phases repository of `count` tasks; `feature` touches three of them and one project file. */
function generatedTasks(count: number): { repo: TempRepo } {
  const repo = tempRepo();
  const files: Record<string, string> = {
    ".github/taskgate.yml": "preset: phases\n",
    "src/app/main.ts": "1\n",
    "src/lib/util.ts": "2\n",
  };
  for (let index = 1; index <= count; index++) {
    const id = `t${String(index).padStart(4, "0")}`;
    files[`tasks/${id}/.state`] = "implement\n";
    files[`tasks/${id}/SPEC.md`] = `spec ${index}\n`;
  }
  repo.write(files);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({
    "src/app/main.ts": "3\n",
    "tasks/t0001/.state": "bug_find\n",
    "tasks/t0002/SPEC.md": "better\n",
    "tasks/t0003/BUG_REPORT.md": "bugs\n",
  });
  repo.commit("work", "carol");
  return { repo };
}
