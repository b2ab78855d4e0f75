import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

const CONFIG = "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n";
const DEFS = [def("api", { paths: ["src/api/**"] }), def("ui", { depends_on: ["api"], paths: ["src/ui/**"] })];

function boardRepo(files: Record<string, string> = {}): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write({
    ".github/taskgate.yml": CONFIG,
    ...(board(DEFS, {}, 0) as Record<string, string>),
    "src/api/x.ts": "1\n",
    ...files,
  });
  repo.commit("plan", "alice");
  return repo;
}

function prJson(repo: TempRepo, value: unknown): string {
  const path = join(repo.dir, "..", `${repo.dir.split("/").pop()}-pr.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe("taskgate check on a board", () => {
  it("walks claim, submit and review on one branch", async () => {
    const repo = boardRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ ...(board(DEFS, { api: claimed("carol/a1") }, 1) as Record<string, string>), "src/api/x.ts": "2\n" });
    repo.commit("claim api", "carol");
    const claimedOnly = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(claimedOnly.json()).toMatchObject({ conclusion: "success", violations: [] });
    expect(claimedOnly.code).toBe(0);

    const submitted = entry("review", {
      owner: "carol/a1",
      history: [
        step("claim", "todo", "in_progress", "carol/a1"),
        step("submit", "in_progress", "review", "carol/a1", { evidence: "state/evidence/api-tests.md" }),
      ],
    });
    repo.write({
      ...(board(DEFS, { api: submitted }, 2) as Record<string, string>),
      "state/evidence/api-tests.md": "npm test: 40 passed\n",
      "state/handoffs/api.md": "API done; ui can start\n",
    });
    const head = repo.commit("submit api", "carol");
    const waiting = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(waiting.code).toBe(3);
    expect(waiting.json()).toMatchObject({
      conclusion: "action_required",
      pending: [{ task: "api", approvers: ["role:qa"] }],
    });

    const pr = prJson(repo, {
      author: "carol",
      reviews: [{ user: { login: "quinn" }, state: "APPROVED", commit_id: head, submitted_at: "2026-11-03T10:00:00Z" }],
      permissions: { quinn: "write" },
    });
    const approved = await runCli(
      ["check", "--base", "main", "--head", "pr", "--pr", pr, "--format", "json"],
      repo.dir,
    );
    expect(approved.code).toBe(0);
    expect(approved.json()).toMatchObject({
      records: [{ task: "api", from: "review", to: "done", by: "quinn", kind: "approve" }],
    });
  });

  it("fails a claim for another login, out of order or out of scope", async () => {
    const repo = boardRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ ...(board(DEFS, { ui: claimed("dave") }, 1) as Record<string, string>), "src/api/x.ts": "3\n" });
    repo.commit("claim ui", "carol");
    const run = await runCli(["check", "--base", "main", "--head", "pr"], repo.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /state\/tasks\.json:\d+: owner-mismatch: claim of ui is made for dave, but the pull request is by carol/,
    );
    expect(run.stdout).toMatch(/state\/tasks\.json:\d+: dependency-unmet: ui was claimed while api is not done/);
    // An illegal claim opens no paths.
    expect(run.stdout).toContain("src/api/x.ts: out-of-scope: src/api/x.ts is a project file");
  });

  it("points at the line of a malformed ledger and exits 1", async () => {
    const repo = boardRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({
      "state/tasks.json": '{\n  "revision": 1,\n  "tasks": {\n    "api": { "status": "started" }\n  }\n}\n',
    });
    repo.commit("oops", "carol");
    const run = await runCli(["check", "--base", "main", "--head", "pr"], repo.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("state/tasks.json:4: state-invalid: state/tasks.json $.tasks.api.status:");
  });
});

describe("taskgate render", () => {
  it("reads a rendered matrix larger than the file limit: a big board's fresh render is current", async () => {
    const many = Array.from({ length: 40 }, (_, i) => def(`task-${i}`, { paths: [`src/t${i}/**`] }));
    const repo = tempRepo();
    repos.push(repo);
    // A 1,200-byte file limit stands for the 1 MiB default a board of 12,000 tasks outgrows.
    repo.write({
      ".github/taskgate.yml": `${CONFIG}limits:\n  max_file_bytes: 1200\n`,
      ...(board(many, {}, 0) as Record<string, string>),
    });
    repo.commit("plan", "alice");
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/status/matrix.md")).length).toBeGreaterThan(1200);
    repo.commit("render", "alice");
    const audit = await runCli(["audit", "--format", "json"], repo.dir);
    expect(audit.json<{ violations: { code: string }[] }>().violations.map((item) => item.code)).not.toContain(
      "matrix-stale",
    );
    expect(audit.code).toBe(0);
  });

  it("writes the status files, keeps them byte-identical and reports staleness", async () => {
    const repo = boardRepo({ ...(board(DEFS, { api: claimed("carol") }, 1) as Record<string, string>) });
    const first = await runCli(["render"], repo.dir);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("wrote 4 and removed 0 file(s) under docs/status/");
    const matrix = readFileSync(join(repo.dir, "docs/status/matrix.md"), "utf8");
    expect(matrix).toContain("state/tasks.json revision 1");
    expect(readdirSync(join(repo.dir, "docs/status/cards")).sort()).toEqual(["api.md", "ui.md"]);

    const again = await runCli(["render"], repo.dir);
    expect(again.stdout).toContain("wrote 0 and removed 0");
    expect(readFileSync(join(repo.dir, "docs/status/matrix.md"), "utf8")).toBe(matrix);
    expect((await runCli(["render", "--check"], repo.dir)).code).toBe(0);
    repo.commit("render", "alice");
    expect((await runCli(["audit"], repo.dir)).code).toBe(0);

    repo.write({ ...(board(DEFS, { api: claimed("carol"), ui: claimed("dave") }, 2) as Record<string, string>) });
    writeFileSync(join(repo.dir, "docs/status/cards/gone.md"), "old card\n");
    const check = await runCli(["render", "--check"], repo.dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("docs/status/matrix.md: matrix-stale");
    expect(check.stdout).toContain("docs/status/cards/gone.md: matrix-stale: belongs to no task any more");
    repo.commit("move without render", "alice");
    const audit = await runCli(["audit", "--format", "json"], repo.dir);
    expect(audit.code).toBe(1);
    expect(audit.json<{ violations: { code: string }[] }>().violations.map((item) => item.code)).toContain(
      "matrix-stale",
    );

    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    expect(existsSync(join(repo.dir, "docs/status/cards/gone.md"))).toBe(false);
    expect((await runCli(["render", "--check"], repo.dir)).code).toBe(0);
    expect(readdirSync(join(repo.dir, "docs/status")).filter((name) => name.includes(".tmp"))).toEqual([]);
  });

  it("renders a phases repository too", async () => {
    const repo = tempRepo();
    repos.push(repo);
    repo.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/t1/.state": "research\n" });
    repo.commit("init", "alice");
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/status/stages.md"), "utf8")).toContain("stateDiagram-v2");
  });

  it("refuses to write through a symlinked folder", async () => {
    const repo = boardRepo();
    repo.symlink("docs/status", "/tmp");
    const run = await runCli(["render"], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a symlink");
  });
});

describe("taskgate explain on a board", () => {
  it("says status, owner, what is next, who may approve and what blocks it", async () => {
    const repo = boardRepo({ ...(board(DEFS, { api: claimed("carol") }, 1) as Record<string, string>) });
    const run = await runCli(["explain", "ui"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("status: todo");
    expect(run.stdout).toContain("depends on: api (in_progress)");
    expect(run.stdout).toContain("→ in_progress (needs a claim by the pull request's author");
    expect(run.stdout).toContain("api done first");
    expect(run.stdout).toContain("who may approve: role:qa");
    const blocked = await runCli(["explain", "api", "--format", "json"], repo.dir);
    expect(blocked.json()).toMatchObject({ task: "api", state: "in_progress", approvers: ["role:qa"] });
  });
});
