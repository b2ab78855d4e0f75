import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { RefNotFoundError, RepositoryError } from "../../src/core/kernel/port.js";
import { coAuthorsOf } from "../../src/core/kernel/trailers.js";
import { GitRepository, type GitChangedFile } from "../../src/git/repository.js";

let root: string;

/** Runs git in `cwd` with a fixed identity and no global or system configuration. */
function git(cwd: string, args: string[], author = "Ann Author"): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      HOME: root,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: author,
      GIT_AUTHOR_EMAIL: `${author.split(" ")[0]?.toLowerCase() ?? "x"}@example.com`,
      GIT_COMMITTER_NAME: "Committer",
      GIT_COMMITTER_EMAIL: "committer@example.com",
    },
  }).trim();
}

async function write(dir: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), content);
}

async function newRepo(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  git(dir, ["init", "-q", "-b", "main"]);
  return dir;
}

function commitAll(dir: string, message: string, author?: string): string {
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", message], author);
  return git(dir, ["rev-parse", "HEAD"]);
}

/** Opens `dir` and records the arguments of every git process spawned after opening. */
async function openCounting(
  dir: string,
  options: { maxFileBytes?: number } = {},
): Promise<{ repo: GitRepository; spawns: (readonly string[])[] }> {
  const spawns: (readonly string[])[] = [];
  let counting = false;
  const repo = await GitRepository.open(dir, {
    ...options,
    onSpawn: (args) => {
      if (counting) spawns.push(args);
    },
  });
  counting = true;
  return { repo, spawns };
}

const NEWLINE_NAME = "odd\nname.md";
const GLOB_NAME = "weird[1]*.md";

let repoDir: string;
let mainSha: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "taskgate-git-"));
  repoDir = await newRepo("repo");

  await write(repoDir, "README.md", "# Project\n");
  await write(repoDir, "tasks/T-1/.state", "new\n");
  await write(repoDir, "tasks/T-1/spec.md", "Spec of T-1\n");
  await write(repoDir, "tasks/T-2/.state", "done\n");
  await write(repoDir, "tasks/T-10/.state", "new\n");
  await write(repoDir, "docs/deep/nested/guide.md", "A guide long enough to be recognised after a move.\n");
  await write(repoDir, "has space.md", "space\n");
  await write(repoDir, "ünïcödé ✓.md", "unicode\n");
  await write(repoDir, NEWLINE_NAME, "newline\n");
  await write(repoDir, GLOB_NAME, "glob\n");
  await write(repoDir, "bin.dat", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
  await write(repoDir, "big.txt", "x".repeat(200));
  await symlink("tasks/T-1/spec.md", join(repoDir, "link.md"));
  mainSha = commitAll(repoDir, "initial");

  // feature: two commits by two authors.
  git(repoDir, ["checkout", "-q", "-b", "feature"]);
  await write(repoDir, "tasks/T-1/.state", "in-progress\n");
  await write(repoDir, "tasks/T-3/.state", "new\n");
  await rm(join(repoDir, "tasks/T-2/.state"));
  commitAll(repoDir, "move T-1, add T-3, drop T-2", "Bob Builder");
  git(repoDir, ["mv", "docs/deep/nested/guide.md", "docs/guide.md"]);
  await symlink("../../README.md", join(repoDir, "tasks/T-1/readme-link"));
  await rm(join(repoDir, "has space.md"));
  await symlink("README.md", join(repoDir, "has space.md")); // file -> symlink (type change)
  commitAll(repoDir, "rename guide, add links", "Carol Coder");

  // merged: a side branch merged in, with an extra edit made in the merge commit itself.
  git(repoDir, ["checkout", "-q", "-b", "merged", "main"]);
  await write(repoDir, "tasks/T-1/spec.md", "Spec of T-1, revised\n");
  commitAll(repoDir, "revise spec", "Dan Dev");
  git(repoDir, ["checkout", "-q", "-b", "side", "main"]);
  await write(repoDir, "tasks/T-10/notes.md", "notes\n");
  commitAll(repoDir, "side notes", "Eve Side");
  git(repoDir, ["checkout", "-q", "merged"]);
  git(repoDir, ["merge", "-q", "--no-ff", "--no-commit", "side"], "Dan Dev");
  await write(repoDir, "README.md", "# Project (edited in the merge)\n");
  commitAll(repoDir, "merge side", "Dan Dev");

  // lonely: a root commit sharing no history with main.
  const lonely = git(repoDir, ["commit-tree", "main^{tree}", "-m", "lonely"]);
  git(repoDir, ["update-ref", "refs/heads/lonely", lonely]);
  git(repoDir, ["checkout", "-q", "main"]);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe("GitRepository.open", () => {
  it("opens a work tree, a subfolder of one and a bare repository", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(repo.bare).toBe(false);
    expect(repo.maxFileBytes).toBe(1048576);

    const sub = await GitRepository.open(join(repoDir, "tasks"));
    expect(await sub.resolve("main")).toBe(mainSha);

    const bareDir = join(root, "bare.git");
    git(root, ["clone", "-q", "--bare", repoDir, bareDir]);
    const bare = await GitRepository.open(bareDir);
    expect(bare.bare).toBe(true);
    expect((await bare.readFile("main", "README.md"))?.text).toBe("# Project\n");
  });

  it("throws RepositoryError with a hint outside a git repository", async () => {
    const plain = await mkdtemp(join(root, "plain-"));
    // `root` lives in the system temp folder, which is not inside any repository.
    const error = await GitRepository.open(plain).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect((error as RepositoryError).message).toBe(`not a git repository: ${plain}`);
    expect((error as RepositoryError).hint).toMatch(/--repo DIR/);
  });

  it("throws RepositoryError for a missing directory or a file", async () => {
    const missing = join(root, "does-not-exist");
    await expect(GitRepository.open(missing)).rejects.toMatchObject({
      name: "RepositoryError",
      message: `directory not found: ${missing}`,
    });
    await expect(GitRepository.open(join(repoDir, "README.md"))).rejects.toBeInstanceOf(RepositoryError);
  });
});

describe("readSnapshot", () => {
  it("classifies every entry of a revision", async () => {
    const { repo } = await openCounting(repoDir, { maxFileBytes: 100 });
    const snapshot = await repo.readSnapshot("main");
    expect(snapshot.rev).toBe("main");
    expect([...snapshot.files.keys()].sort()).toEqual(
      [
        "README.md",
        "bin.dat",
        "big.txt",
        "docs/deep/nested/guide.md",
        "has space.md",
        "link.md",
        NEWLINE_NAME,
        "tasks/T-1/.state",
        "tasks/T-1/spec.md",
        "tasks/T-10/.state",
        "tasks/T-2/.state",
        GLOB_NAME,
        "ünïcödé ✓.md",
      ].sort(),
    );
    const at = (path: string) => snapshot.files.get(path);
    const oid = (path: string) => git(repoDir, ["rev-parse", `main:${path}`]);
    expect(at("tasks/T-1/spec.md")).toEqual({
      path: "tasks/T-1/spec.md",
      kind: "file",
      size: 12,
      text: "Spec of T-1\n",
      oid: oid("tasks/T-1/spec.md"),
    });
    expect(at("docs/deep/nested/guide.md")?.kind).toBe("file");
    expect(at("has space.md")?.text).toBe("space\n");
    expect(at("ünïcödé ✓.md")?.text).toBe("unicode\n");
    expect(at(NEWLINE_NAME)?.text).toBe("newline\n");
    expect(at("link.md")).toEqual({
      path: "link.md",
      kind: "symlink",
      size: "tasks/T-1/spec.md".length,
      target: "tasks/T-1/spec.md",
      oid: oid("link.md"),
    });
    expect(at("bin.dat")).toEqual({ path: "bin.dat", kind: "binary", size: 7, oid: oid("bin.dat") });
    expect(at("big.txt")).toEqual({ path: "big.txt", kind: "oversized", size: 200, oid: oid("big.txt") });
  });

  it("gives every entry the object id git stores for it", async () => {
    const { repo } = await openCounting(repoDir, { maxFileBytes: 100 });
    const snapshot = await repo.readSnapshot("HEAD");
    const oid = (path: string) => git(repoDir, ["rev-parse", `HEAD:${path}`]);
    for (const path of ["tasks/T-1/spec.md", "link.md", "big.txt", "bin.dat"]) {
      expect(oid(path)).toMatch(/^[0-9a-f]{40,64}$/);
      expect(snapshot.files.get(path)?.oid).toBe(oid(path));
    }
    expect(snapshot.files.get("link.md")?.kind).toBe("symlink");
    expect(snapshot.files.get("big.txt")?.kind).toBe("oversized");
    expect(snapshot.files.get("bin.dat")?.kind).toBe("binary");
    // Every entry carries one, and equal content means an equal id.
    expect([...snapshot.files.values()].every((entry) => entry.oid !== undefined)).toBe(true);
    expect(snapshot.files.get("tasks/T-1/.state")?.oid).toBe(snapshot.files.get("tasks/T-10/.state")?.oid);
    expect(snapshot.files.get("tasks/T-1/.state")?.oid).not.toBe(snapshot.files.get("tasks/T-2/.state")?.oid);
    expect((await repo.readFile("HEAD", "README.md"))?.oid).toBe(oid("README.md"));
  });

  it("uses 1 MiB as the default size limit", async () => {
    const repo = await GitRepository.open(repoDir);
    const big = await repo.readFile("main", "big.txt");
    expect(big?.kind).toBe("file");
    expect(big?.text).toHaveLength(200);
  });

  it("reads a submodule entry without reading it", async () => {
    const dir = await newRepo("with-submodule");
    await write(dir, "a.md", "a\n");
    const sha = commitAll(dir, "one");
    // A gitlink entry, as `git submodule add` would record it.
    git(dir, ["update-index", "--add", "--cacheinfo", `160000,${sha},vendor/lib`]);
    git(dir, ["commit", "-q", "-m", "submodule"]);
    const repo = await GitRepository.open(dir);
    const snapshot = await repo.readSnapshot("HEAD");
    expect(snapshot.files.get("vendor/lib")).toEqual({
      path: "vendor/lib",
      kind: "submodule",
      size: 0,
      oid: sha,
    });
    expect(snapshot.files.get("a.md")?.text).toBe("a\n");
  });

  it("reads only the requested paths and prefixes", async () => {
    const { repo, spawns } = await openCounting(repoDir);
    const snapshot = await repo.readSnapshot("main", {
      paths: ["README.md", "ünïcödé ✓.md", "tasks/T-2/missing.md"],
      prefixes: ["tasks/T-1/", "tasks/T-1"], // with and without the trailing slash
    });
    expect([...snapshot.files.keys()].sort()).toEqual([
      "README.md",
      "tasks/T-1/.state",
      "tasks/T-1/spec.md",
      "ünïcödé ✓.md",
    ]);
    expect(spawns.map((args) => args.find((a) => !a.startsWith("-")))).toEqual(["ls-tree", "cat-file"]);
  });

  it("treats scope entries literally, never as globs or pathspec magic", async () => {
    const repo = await GitRepository.open(repoDir);
    const literal = await repo.readSnapshot("main", { paths: [GLOB_NAME], prefixes: [] });
    expect([...literal.files.keys()]).toEqual([GLOB_NAME]);
    const glob = await repo.readSnapshot("main", {
      paths: ["*.md", ":(glob)**/*.md"],
      prefixes: ["task*/"],
    });
    expect(glob.files.size).toBe(0);
  });

  it("returns an empty snapshot for an empty scope without running git", async () => {
    const { repo, spawns } = await openCounting(repoDir);
    const snapshot = await repo.readSnapshot("main", { paths: [], prefixes: [] });
    expect(snapshot).toEqual({ rev: "main", files: new Map() });
    expect(spawns).toEqual([]);
  });

  it("a prefix naming the root reads everything", async () => {
    const repo = await GitRepository.open(repoDir);
    const all = await repo.readSnapshot("main");
    const rooted = await repo.readSnapshot("main", { paths: [], prefixes: [""] });
    expect([...rooted.files.keys()].sort()).toEqual([...all.files.keys()].sort());
  });

  it("reads a revision of 200 files with exactly two git processes", async () => {
    const dir = await newRepo("many");
    for (let i = 0; i < 200; i++) {
      await write(dir, `tasks/T-${i}/.state`, `state ${i}\n`);
    }
    commitAll(dir, "many");
    const { repo, spawns } = await openCounting(dir);
    const snapshot = await repo.readSnapshot("HEAD");
    expect(snapshot.files.size).toBe(200);
    expect(snapshot.files.get("tasks/T-199/.state")?.text).toBe("state 199\n");
    expect(spawns).toHaveLength(2);
    expect(spawns[0]).toContain("ls-tree");
    expect(spawns[1]).toContain("cat-file");
  });

  it("skips cat-file when nothing needs reading", async () => {
    const { repo, spawns } = await openCounting(repoDir, { maxFileBytes: 10 });
    const entry = await repo.readFile("main", "big.txt");
    expect(entry?.kind).toBe("oversized");
    expect(spawns).toHaveLength(1);
  });

  it("readFile returns one entry or undefined", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(await repo.readFile("feature", "tasks/T-1/.state")).toEqual({
      path: "tasks/T-1/.state",
      kind: "file",
      size: 12,
      text: "in-progress\n",
      oid: git(repoDir, ["rev-parse", "feature:tasks/T-1/.state"]),
    });
    expect(await repo.readFile("feature", "tasks/T-2/.state")).toBeUndefined();
    expect((await repo.readFile("feature", "has space.md"))?.kind).toBe("symlink");
  });

  it("throws RefNotFoundError for an unknown revision", async () => {
    const repo = await GitRepository.open(repoDir);
    await expect(repo.readSnapshot("no-such-branch")).rejects.toThrow(new RefNotFoundError("no-such-branch"));
    await expect(repo.readSnapshot("1".repeat(40))).rejects.toBeInstanceOf(RefNotFoundError);
  });
});

describe("changedFiles", () => {
  it("reports additions, modifications, removals, renames and modes", async () => {
    const { repo, spawns } = await openCounting(repoDir);
    const changes = await repo.changedFiles("main", "feature");
    expect(spawns).toHaveLength(1);
    const byPath = new Map<string, GitChangedFile>(changes.map((c) => [c.path, c]));
    expect(changes).toHaveLength(6);
    expect(byPath.get("tasks/T-1/.state")).toEqual({
      path: "tasks/T-1/.state",
      status: "modified",
      oldMode: "100644",
      newMode: "100644",
    });
    expect(byPath.get("tasks/T-3/.state")).toMatchObject({ status: "added", oldMode: "000000" });
    expect(byPath.get("tasks/T-2/.state")).toMatchObject({ status: "removed", newMode: "000000" });
    expect(byPath.get("docs/guide.md")).toEqual({
      path: "docs/guide.md",
      status: "renamed",
      previousPath: "docs/deep/nested/guide.md",
      oldMode: "100644",
      newMode: "100644",
    });
    expect(byPath.get("tasks/T-1/readme-link")).toMatchObject({
      status: "added",
      newMode: "120000",
    });
    expect(byPath.get("has space.md")).toMatchObject({
      status: "modified",
      oldMode: "100644",
      newMode: "120000",
    });
  });

  it("keeps paths relative to the repository root, whatever the folder and config", async () => {
    const dir = await newRepo("relative");
    await write(dir, "sub/a.md", "a\n");
    await write(dir, "other/b.md", "b\n");
    const base = commitAll(dir, "one");
    await write(dir, "sub/a.md", "a2\n");
    await write(dir, "other/b.md", "b2\n");
    const head = commitAll(dir, "two");
    git(dir, ["config", "diff.relative", "true"]);
    const repo = await GitRepository.open(join(dir, "sub"));
    expect((await repo.changedFiles(base, head)).map((c) => c.path)).toEqual(["other/b.md", "sub/a.md"]);
    expect((await repo.commits(base, head))[0]?.files).toEqual(["other/b.md", "sub/a.md"]);
  });

  it("handles unusual file names", async () => {
    const dir = await newRepo("names");
    await write(dir, "keep.md", "k\n");
    const base = commitAll(dir, "one");
    await write(dir, NEWLINE_NAME, "n\n");
    await write(dir, "ünï cödé.md", "u\n");
    const head = commitAll(dir, "two");
    const repo = await GitRepository.open(dir);
    const changes = await repo.changedFiles(base, head);
    expect(changes.map((c) => c.path).sort()).toEqual([NEWLINE_NAME, "ünï cödé.md"].sort());
    const commits = await repo.commits(base, head);
    expect(commits[0]?.files?.slice().sort()).toEqual([NEWLINE_NAME, "ünï cödé.md"].sort());
  });

  it("returns nothing for identical revisions", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(await repo.changedFiles("main", mainSha)).toEqual([]);
  });
});

describe("commits", () => {
  it("lists commits oldest first with authors and files, in one process", async () => {
    const { repo, spawns } = await openCounting(repoDir);
    const commits = await repo.commits("main", "feature");
    expect(spawns).toHaveLength(1);
    expect(commits.map((c) => c.author)).toEqual([null, null]);
    expect(commits.map((c) => c.gitName)).toEqual(["Bob Builder", "Carol Coder"]);
    expect(commits.map((c) => c.authorEmail)).toEqual(["bob@example.com", "carol@example.com"]);
    expect(commits[0]?.sha).toBe(git(repoDir, ["rev-parse", "feature~1"]));
    expect(commits[1]?.sha).toBe(git(repoDir, ["rev-parse", "feature"]));
    expect(commits[0]?.files?.slice().sort()).toEqual(["tasks/T-1/.state", "tasks/T-2/.state", "tasks/T-3/.state"]);
    // Renames are listed as both paths.
    expect(commits[1]?.files?.slice().sort()).toEqual([
      "docs/deep/nested/guide.md",
      "docs/guide.md",
      "has space.md",
      "tasks/T-1/readme-link",
    ]);
  });

  it("lists merged branches' commits and only the merge's own edits for the merge", async () => {
    const repo = await GitRepository.open(repoDir);
    const commits = await repo.commits("main", "merged");
    expect(commits).toHaveLength(3);
    const bySubjectAuthor = commits.map((c) => [c.gitName, c.files]);
    expect(bySubjectAuthor).toContainEqual(["Dan Dev", ["tasks/T-1/spec.md"]]);
    expect(bySubjectAuthor).toContainEqual(["Eve Side", ["tasks/T-10/notes.md"]]);
    // The merge is last (topological order) and lists only README.md, which it changed itself.
    expect(commits[2]).toMatchObject({ author: null, gitName: "Dan Dev", files: ["README.md"] });
  });

  it("gives every commit its parents, first parent first, and its git author name", async () => {
    const repo = await GitRepository.open(repoDir);
    const merged = await repo.commits("main", "merged");
    const merge = merged[2];
    expect(merge?.sha).toBe(git(repoDir, ["rev-parse", "merged"]));
    const [first, second] = git(repoDir, ["rev-parse", "merged^1", "merged^2"]).split("\n");
    expect(merge?.parents).toEqual([first, second]);
    expect(first).toBe(git(repoDir, ["rev-parse", "merged~1"])); // Dan's "revise spec"
    expect(second).toBe(git(repoDir, ["rev-parse", "side"]));
    for (const commit of merged.slice(0, 2)) {
      expect(commit.parents).toEqual([mainSha]);
    }

    const feature = await repo.commits("main", "feature");
    expect(feature[0]).toEqual({
      sha: git(repoDir, ["rev-parse", "feature~1"]),
      author: null,
      gitName: "Bob Builder",
      gitEmail: "bob@example.com",
      gitCommitter: { name: "Committer", email: "committer@example.com" },
      coAuthors: [],
      parents: [mainSha],
      authorEmail: "bob@example.com",
      files: ["tasks/T-1/.state", "tasks/T-2/.state", "tasks/T-3/.state"],
    });
    expect(feature[1]?.parents).toEqual([feature[0]?.sha]);
  });

  it("gives a root commit no parents and an empty author name no gitName", async () => {
    const repo = await GitRepository.open(repoDir);
    const [lonely] = await repo.commits("feature", "lonely");
    expect(lonely).toMatchObject({ author: null, gitName: "Ann Author", parents: [] });

    // git refuses to make a commit with an empty author name, so write the object by hand.
    const dir = await newRepo("nameless");
    await write(dir, "a.md", "a\n");
    const base = commitAll(dir, "one");
    const tree = git(dir, ["rev-parse", "HEAD^{tree}"]);
    const body = `tree ${tree}\nparent ${base}\nauthor  <nobody@example.com> 0 +0000\ncommitter C <c@example.com> 0 +0000\n\nnameless\n`;
    const nameless = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--literally", "--stdin"], {
      cwd: dir,
      input: body,
      encoding: "utf8",
    }).trim();
    const commits = await (await GitRepository.open(dir)).commits(base, nameless);
    expect(commits).toEqual([
      {
        sha: nameless,
        author: null,
        gitName: null,
        gitEmail: "nobody@example.com",
        gitCommitter: { name: "C", email: "c@example.com" },
        coAuthors: [],
        parents: [base],
        authorEmail: "nobody@example.com",
        files: [],
      },
    ]);
  });

  it("reads committers and the Co-authored-by trailers git finds, as coAuthorsOf reads them", async () => {
    const dir = await newRepo("trailers");
    // The repository's own trailer settings change nothing.
    git(dir, ["config", "trailer.separators", "#"]);
    await write(dir, "a.md", "a\n");
    const base = commitAll(dir, "one");
    const messages = [
      "two\n\nCo-authored-by: Bob B <bob@example.com>\nco-authored-by : Eve <12+eve@users.noreply.github.com>\nCo-Authored-By: Long\n  Name <long@example.com>\nCo-authored-by: malformed\n",
      "three\n\nCo-authored-by: Not A <trailer@example.com>\n\nJust text in the last paragraph.\n",
      "Co-authored-by: Title <title@example.com>\n",
      "four\r\n\r\nSigned-off-by: Ann <ann@example.com>\r\nnot a trailer\r\nCo-authored-by: Crlf <crlf@example.com>\r\n",
    ];
    for (const [index, message] of messages.entries()) {
      await write(dir, `f${index}.md`, `${index}\n`);
      git(dir, ["add", "-A"]);
      git(dir, ["commit", "-q", "--cleanup=verbatim", "-m", message]);
    }
    const commits = await (await GitRepository.open(dir)).commits(base, "main");
    expect(commits.map((commit) => commit.files)).toEqual([["f0.md"], ["f1.md"], ["f2.md"], ["f3.md"]]);
    expect(commits[0]?.gitCommitter).toEqual({ name: "Committer", email: "committer@example.com" });
    expect(commits.map((commit) => commit.coAuthors)).toEqual([
      [
        { login: null, name: "Bob B", email: "bob@example.com" },
        { login: null, name: "Eve", email: "12+eve@users.noreply.github.com" },
        { login: null, name: "Long Name", email: "long@example.com" },
      ],
      [],
      [],
      [{ login: null, name: "Crlf", email: "crlf@example.com" }],
    ]);
    expect(messages.map((message) => coAuthorsOf(message).map((person) => ({ login: null, ...person })))).toEqual(
      commits.map((commit) => commit.coAuthors),
    );
  });

  it("handles empty commits and clean merges with no files", async () => {
    const dir = await newRepo("empty-commits");
    await write(dir, "a.md", "a\n");
    const base = commitAll(dir, "one");
    git(dir, ["commit", "-q", "--allow-empty", "-m", "empty"]);
    git(dir, ["checkout", "-q", "-b", "side"]);
    await write(dir, "b.md", "b\n");
    commitAll(dir, "b");
    git(dir, ["checkout", "-q", "main"]);
    git(dir, ["merge", "-q", "--no-ff", "-m", "merge", "side"]);
    git(dir, ["commit", "-q", "--allow-empty", "-m", "empty again"]);
    const repo = await GitRepository.open(dir);
    const commits = await repo.commits(base, "main");
    expect(commits.map((c) => c.files)).toEqual([[], ["b.md"], [], []]);
  });

  it("includes a root commit's files when base is unrelated", async () => {
    const repo = await GitRepository.open(repoDir);
    const commits = await repo.commits("feature", "lonely");
    expect(commits).toHaveLength(1);
    expect(commits[0]?.files).toContain("README.md");
  });

  it("returns nothing for an empty range", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(await repo.commits("feature", "main")).toEqual([]);
  });
});

describe("refs", () => {
  it("resolves refs to commit ids", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(await repo.resolve("main")).toBe(mainSha);
    expect(await repo.resolve(mainSha.slice(0, 12))).toBe(mainSha);
    expect(await repo.resolve("feature~1")).toBe(git(repoDir, ["rev-parse", "feature~1"]));
  });

  it("throws RefNotFoundError for missing refs and non-commits", async () => {
    const repo = await GitRepository.open(repoDir);
    await expect(repo.resolve("nope")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(repo.resolve("main:README.md")).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.changedFiles("main", "nope")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(repo.commits("nope", "main")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(repo.commits("main", "nope")).rejects.toThrow(new RefNotFoundError("nope"));
    await expect(repo.mergeBase("main", "nope")).rejects.toThrow(new RefNotFoundError("nope"));
    // A blob is not a commit.
    await expect(repo.commits("main:README.md", "main")).rejects.toThrow(new RefNotFoundError("main:README.md"));
  });

  it("resolves the ref it is opened for in the process that opens it, once", async () => {
    const spawns: (readonly string[])[] = [];
    const repo = await GitRepository.open(repoDir, { ref: "main", onSpawn: (args) => spawns.push(args) });
    expect(await repo.resolve("main")).toBe(mainSha);
    expect(spawns).toHaveLength(1);
    // Later resolves ask git again: the ref may have moved since.
    expect(await repo.resolve("main")).toBe(mainSha);
    expect(spawns).toHaveLength(2);
    // A ref git does not know opens the repository all the same, and `resolve` says so.
    const unknown = await GitRepository.open(repoDir, { ref: "nope" });
    await expect(unknown.resolve("nope")).rejects.toThrow(new RefNotFoundError("nope"));
    expect(unknown.gitDir).toBe(repo.gitDir);
    // A ref that looks like an option is never given to git, there either.
    const output = join(root, "injected-at-open");
    const odd = await GitRepository.open(repoDir, { ref: `--output=${output}` });
    await expect(odd.resolve(`--output=${output}`)).rejects.toBeInstanceOf(RefNotFoundError);
    expect(existsSync(output)).toBe(false);
    // Not a repository: the same error as without a ref.
    await expect(GitRepository.open(root, { ref: "main" })).rejects.toThrow(/not a git repository/);
  });

  it("refuses refs that look like options without running git", async () => {
    const { repo, spawns } = await openCounting(repoDir);
    const output = join(root, "injected");
    const ref = `--output=${output}`;
    await expect(repo.resolve(ref)).rejects.toThrow(new RefNotFoundError(ref));
    await expect(repo.changedFiles("main", ref)).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.changedFiles(ref, "main")).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.commits(ref, "main")).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.mergeBase(ref, "main")).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.readSnapshot(ref)).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(repo.resolve("")).rejects.toBeInstanceOf(RefNotFoundError);
    expect(spawns).toEqual([]);
    expect(existsSync(output)).toBe(false);
  });

  it("finds merge bases and reports unrelated histories as undefined", async () => {
    const repo = await GitRepository.open(repoDir);
    expect(await repo.mergeBase("feature", "merged")).toBe(mainSha);
    expect(await repo.mergeBase("main", "lonely")).toBeUndefined();
  });

  it("turns other git failures into RepositoryError with git's message", async () => {
    const dir = await newRepo("corrupt");
    await write(dir, "tasks/T-1/.state", "new\n");
    await write(dir, "top.md", "top\n");
    commitAll(dir, "one");
    // Delete the loose objects of the "tasks" tree and of top.md's blob.
    const objectFile = (sha: string) => join(dir, ".git/objects", sha.slice(0, 2), sha.slice(2));
    const tree = git(dir, ["rev-parse", "HEAD:tasks"]);
    const blob = git(dir, ["rev-parse", "HEAD:top.md"]);
    const repo = await GitRepository.open(dir);

    await rm(objectFile(blob));
    const missingBlob = await repo.readSnapshot("HEAD").catch((e: unknown) => e);
    expect(missingBlob).toBeInstanceOf(RepositoryError);
    expect((missingBlob as RepositoryError).message).toContain(blob);

    await rm(objectFile(tree));
    const missingTree = await repo.readSnapshot("HEAD").catch((e: unknown) => e);
    expect(missingTree).toBeInstanceOf(RepositoryError);
    expect((missingTree as RepositoryError).message).toMatch(/^git ls-tree failed: .*\S/);
    expect((missingTree as RepositoryError).hint).not.toBe("");
  });
});
