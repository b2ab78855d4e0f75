import { afterAll, describe, expect, it } from "vitest";
import { auditRevision, checkPullRequest } from "../../src/core/service.js";
import { GitRepository } from "../../src/git/repository.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterAll(() => repos.forEach((repo) => repo.remove()));

/** A repository with `tasks` tasks on main and a PR branch touching three of them. */
function repository(tasks: number): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  const files: Record<string, string> = { ".github/taskgate.yml": "preset: phases\n" };
  for (let i = 0; i < tasks; i++) {
    files[`tasks/t${i}/.state`] = "research\n";
    files[`tasks/t${i}/SPEC.md`] = `spec ${i}\n`;
  }
  repo.write(files);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "pr");
  repo.write({
    "tasks/t0/.state": "research:awaiting_approval\n",
    "tasks/t1/SPEC.md": "more\n",
    "tasks/new-task/.state": "new\n",
  });
  repo.commit("pr", "carol");
  repo.git("checkout", "-q", "main");
  return repo;
}

async function countCheck(tasks: number): Promise<{ spawns: string[]; audit: string[] }> {
  const repo = repository(tasks);
  const spawns: string[] = [];
  const git = await GitRepository.open(repo.dir, { onSpawn: (args) => spawns.push(args.join(" ")) });
  const report = await checkPullRequest(git, { base: "main", head: "pr" });
  expect(report.transitions).toHaveLength(2);
  const audits: string[] = [];
  const auditGit = await GitRepository.open(repo.dir, { onSpawn: (args) => audits.push(args.join(" ")) });
  await auditRevision(auditGit, "main");
  return { spawns, audit: audits };
}

describe("git processes per command", () => {
  it("does not grow with the number of tasks or files", async () => {
    const small = await countCheck(5);
    const large = await countCheck(300);
    expect(large.spawns.length).toBe(small.spawns.length);
    expect(large.spawns.length).toBeLessThanOrEqual(12);
    expect(large.audit.length).toBe(small.audit.length);
    expect(large.audit.length).toBeLessThanOrEqual(6);
    // The check reads only the touched task folders, never the whole tree.
    const listings = large.spawns.filter((args) => args.includes("ls-tree"));
    expect(listings.every((args) => !args.includes("tasks/t299/"))).toBe(true);
  });
});
