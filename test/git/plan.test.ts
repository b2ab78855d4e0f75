/**
 * The git adapter's `plan`: an audit lists its revision once, for the config's read and for the
 * scope the config names, and gets exactly the report it got with two listings.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RefNotFoundError, type TaskRepository } from "../../src/core/index.js";
import { auditRevision, explainTask, likelyAuditScope } from "../../src/core/service.js";
import { GitRepository } from "../../src/git/repository.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterAll(() => repos.forEach((repo) => repo.remove()));

function repository(files: Record<string, string>): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write(files);
  repo.commit("base", "alice");
  return repo;
}

/** The repository opened for `main`, and the git commands run after opening (their first word). */
async function opened(repo: TempRepo): Promise<{ git: GitRepository; commands: string[] }> {
  const commands: string[] = [];
  let counting = false;
  const git = await GitRepository.open(repo.dir, {
    ref: "main",
    onSpawn: (args) => {
      if (counting) commands.push(args.find((arg) => !arg.startsWith("-")) ?? "");
    },
  });
  counting = true;
  return { git, commands };
}

/** The same repository without `plan`: every read lists on its own, as before planning existed. */
function unplanned(git: GitRepository): TaskRepository {
  return {
    resolve: (ref) => git.resolve(ref),
    readSnapshot: (rev, scope, limits) => git.readSnapshot(rev, scope, limits),
  } as TaskRepository;
}

const PHASES = {
  ".github/taskgate.yml": "preset: phases\n",
  "tasks/t1/.state": "research\n",
  "tasks/t1/SPEC.md": "spec\n",
  "tasks/t2/.state": "bogus-state\n",
  "src/app.ts": "export {};\n",
};

describe("an audit plans its listing", () => {
  it("lists a default layout once for the config and the audit, with the report of two listings", async () => {
    const repo = repository(PHASES);
    const { git, commands } = await opened(repo);
    const report = await auditRevision(git, "main");
    expect(commands).toEqual(["ls-tree", "cat-file", "cat-file"]);
    const before = await GitRepository.open(repo.dir);
    expect(report).toEqual(await auditRevision(unplanned(before), "main"));
    expect(report.violations.map((item) => item.code)).toContain("state-invalid");
  });

  it("lists again when the config moves the task store out of what was planned", async () => {
    const repo = repository({
      ".github/taskgate.yml": "preset: phases\nworkflow:\n  tasks_dir: work/items\n",
      "work/items/t1/.state": "bogus-state\n",
      "tasks/t9/.state": "research\n",
    });
    const { git, commands } = await opened(repo);
    const report = await auditRevision(git, "main");
    expect(commands).toEqual(["ls-tree", "cat-file", "ls-tree", "cat-file"]);
    expect(report).toEqual(await auditRevision(unplanned(await GitRepository.open(repo.dir)), "main"));
    // The task store the config names is judged; the planned `tasks/` is not.
    expect(report.violations.map((item) => item.path)).toEqual(["work/items/t1/.state"]);
  });

  it("reads no blob for an unconfigured repository, and explains from one listing too", async () => {
    const bare = repository({ "tasks/t1/.state": "research\n", "README.md": "hi\n" });
    const unconfigured = await opened(bare);
    expect((await auditRevision(unconfigured.git, "main")).conclusion).toBe("neutral");
    expect(unconfigured.commands).toEqual(["ls-tree"]);
    const repo = repository(PHASES);
    const { git, commands } = await opened(repo);
    const explained = await explainTask(git, "main", "t1");
    expect(explained.found).toBe(true);
    expect(commands).toEqual(["ls-tree", "cat-file", "cat-file"]);
  });

  it("never serves one commit's listing for another, a ref, or the whole tree", async () => {
    const repo = repository(PHASES);
    const first = repo.git("rev-parse", "HEAD");
    repo.write({ "tasks/t1/.state": "design\n", "tasks/t3/.state": "research\n" });
    const second = repo.commit("second", "alice");
    const { git, commands } = await opened(repo);
    git.plan([first], likelyAuditScope());
    const scope = { paths: [], prefixes: ["tasks/"] };
    const later = await git.readSnapshot(second, scope);
    expect(later.files.get("tasks/t1/.state")?.text).toBe("design\n");
    expect(later.files.has("tasks/t3/.state")).toBe(true);
    const earlier = await git.readSnapshot(first, scope);
    expect(earlier.files.get("tasks/t1/.state")?.text).toBe("research\n");
    expect(earlier.files.has("tasks/t3/.state")).toBe(false);
    // The plan's listing, then the read of `second` (listing and blobs), then `first`'s blobs only.
    expect(commands).toEqual(["ls-tree", "ls-tree", "cat-file", "cat-file"]);
    const whole = await git.readSnapshot(first);
    expect(whole.files.has("src/app.ts")).toBe(true);
    expect(commands.slice(4)).toEqual(["ls-tree", "cat-file"]);
    // Plans git cannot keep to one commit are not taken: a ref may move, and two revisions are two
    // listings. A plan of what is planned already runs nothing either.
    commands.length = 0;
    git.plan([first], likelyAuditScope());
    git.plan([first], { paths: [], prefixes: ["tasks/t1/"] });
    git.plan(["main"], likelyAuditScope());
    git.plan([first, second], likelyAuditScope());
    expect(commands).toEqual([]);
  });

  it("fails the reads of a planned commit git does not have, as their own listing would", async () => {
    const repo = repository(PHASES);
    const { git } = await opened(repo);
    const missing = "0123456789abcdef0123456789abcdef01234567";
    git.plan([missing], likelyAuditScope());
    await expect(git.readSnapshot(missing, { paths: [".github/taskgate.yml"], prefixes: [] })).rejects.toThrow(
      new RefNotFoundError(missing),
    );
    // The failed plan leaves the repository usable.
    const sha = await git.resolve("main");
    expect((await git.readSnapshot(sha, { paths: [".github/taskgate.yml"], prefixes: [] })).files.size).toBe(1);
  });
});
