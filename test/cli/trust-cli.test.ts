/**
 * Attacks on the gate through the command line on real git repositories: secrets fed through
 * every field a user writes, deeply nested input, merges that hide a change, files that cannot be
 * scanned, and committed renders.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import { runCli, tempRepo, type CliRun, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

function repoWith(files: Record<string, string>): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write(files);
  repo.commit("base", "alice");
  return repo;
}

function prJson(value: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-pr-"));
  const path = join(dir, "pr.json");
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

// Fake credentials in the shapes the scanner knows, built so this file holds none literally.
const GITHUB = `ghp_${"Zq7".repeat(12)}`;
const AWS = `AKIA${"QX7Z".repeat(4)}`;
const JWT = `eyJ${"hbGciOi".repeat(3)}.eyJ${"zdWIiOi".repeat(3)}.${"Sfl4KxwRJ".repeat(3)}`;
const SECRETS = [GITHUB, AWS, JWT];

/** No output of any run holds a secret, nor a 12-character piece of one. */
function expectNoSecret(runs: CliRun[]): void {
  const output = runs.map((run) => `${run.stdout}\n${run.stderr}`).join("\n");
  for (const secret of SECRETS) {
    expect(output).not.toContain(secret);
    for (let at = 0; at + 12 <= secret.length; at += 6) expect(output).not.toContain(secret.slice(at, at + 12));
  }
}

async function both(args: string[], dir: string): Promise<CliRun[]> {
  return [await runCli(args, dir), await runCli([...args, "--format", "json"], dir)];
}

describe("secrets in anything a user wrote never reach the output", () => {
  it("redacts ids, paths, state names, logins and the PR author in a phases check, audit and explain", async () => {
    const repo = repoWith({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "spec\n",
    });
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({
      [`tasks/${GITHUB}/.state`]: "new\n",
      "tasks/login/.state": `${AWS}\n`,
      "tasks/login/.state.approvals": `research:approved|2026-11-01T10:00:00Z|${JWT}\n`,
      [`src/${GITHUB}.ts`]: "x\n",
    });
    repo.commit("leak everything", "carol");
    const pr = prJson({
      author: GITHUB,
      reviews: [{ user: { login: "bob" }, state: "APPROVED", commit_id: "0".repeat(40), submitted_at: "x", body: JWT }],
    });
    const runs = [
      ...(await both(["check", "--base", "main", "--head", "pr"], repo.dir)),
      ...(await both(["check", "--base", "main", "--head", "pr", "--pr", pr], repo.dir)),
      ...(await both(["audit", "--ref", "pr"], repo.dir)),
      ...(await both(["explain", "--ref", "pr", "login"], repo.dir)),
      ...(await both(["explain", "--ref", "pr", GITHUB], repo.dir)),
      ...(await both(["explain", "--ref", "pr", "nope"], repo.dir)),
    ];
    expect(runs[0]!.code).toBe(1);
    expect(runs[0]!.stdout).toContain("[redacted]");
    expect(runs[1]!.json<{ violations: unknown[] }>().violations.length).toBeGreaterThan(0);
    expectNoSecret(runs);
  });

  it("redacts owner strings, titles, review bodies and evidence names on a board", async () => {
    const defs = [def("api", { title: `Rotate ${AWS}`, paths: ["src/api/**"] })];
    const repo = repoWith({
      ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n",
      ...(board(defs, {}, 0) as Record<string, string>),
    });
    repo.git("checkout", "-q", "-b", "pr");
    const submitted = entry("review", {
      owner: `${GITHUB}/a1`,
      history: [
        step("claim", "todo", "in_progress", `${GITHUB}/a1`),
        step("submit", "in_progress", "review", `${GITHUB}/a1`, { evidence: `state/evidence/${GITHUB}.md` }),
      ],
    });
    repo.write({
      ...(board(defs, { api: submitted }, 2) as Record<string, string>),
      [`state/evidence/${GITHUB}.md`]: `token: ${GITHUB}\n`,
      "state/handoffs/api.md": `aws_secret_access_key = ${"a1B2".repeat(10)}\n`,
    });
    const head = repo.commit("submit", "carol");
    const pr = prJson({
      author: "carol",
      reviews: [
        {
          user: { login: "quinn" },
          state: "CHANGES_REQUESTED",
          commit_id: head,
          submitted_at: "2026-11-01T10:00:00Z",
          body: `please remove ${JWT} from the logs`,
        },
      ],
      permissions: { quinn: "write" },
    });
    const runs = [
      ...(await both(["check", "--base", "main", "--head", "pr", "--pr", pr], repo.dir)),
      ...(await both(["audit", "--ref", "pr"], repo.dir)),
      ...(await both(["explain", "--ref", "pr", "api"], repo.dir)),
    ];
    expect(runs[0]!.stdout).toContain("secret-detected");
    expect(runs[0]!.stdout).toContain("review-rejected");
    expectNoSecret(runs);
    repo.git("checkout", "-q", "pr");
    expectNoSecret(await both(["render", "--check"], repo.dir));
  });
});

describe("deeply nested input ends in a clear message, never an unexpected error", () => {
  const deepJson = `{"a": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`;

  it("refuses a deep config, ledger, definitions file and PR.json", async () => {
    const config = await runCli(
      ["check", "--base", "main", "--head", "main"],
      repoWith({ ".github/taskgate.yml": `preset: phases\nroles:\n  x: ${"[".repeat(50_000)}${"]".repeat(50_000)}\n` })
        .dir,
    );
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("nested more than 64 levels deep");

    const boardRepo = repoWith({
      ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n",
      ...(board([def("a")], {}, 0) as Record<string, string>),
    });
    boardRepo.git("checkout", "-q", "-b", "pr");
    boardRepo.write({ "state/tasks.json": deepJson, "planning/tasks.json": deepJson });
    boardRepo.commit("deep", "carol");
    const check = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], boardRepo.dir);
    expect(check.code).toBe(1);
    const violations = check.json<{ violations: { code: string; message: string }[] }>().violations;
    expect(violations.map((item) => item.code)).toEqual(["state-invalid", "state-invalid"]);
    expect(violations[0]!.message).toContain("nested more than 64 levels deep");
    const audit = await runCli(["audit", "--ref", "pr"], boardRepo.dir);
    expect(audit.code).toBe(1);

    const pr = await runCli(["check", "--base", "main", "--head", "main", "--pr", prJson(deepJson)], boardRepo.dir);
    expect(pr.code).toBe(2);
    expect(pr.stderr).toContain("nested more than 64 levels deep");
    for (const run of [config, check, audit, pr])
      expect(`${run.stdout}${run.stderr}`).not.toContain("unexpected error");
  });
});

describe("staleness through real git history", () => {
  it("sees a change to the task that a merge brings in after the review", async () => {
    const repo = repoWith({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "spec\n",
    });
    repo.git("checkout", "-q", "-b", "side");
    repo.write({ "tasks/login/SPEC.md": "spec, rewritten elsewhere\n" });
    repo.commit("side change", "carol");
    repo.git("checkout", "-q", "-b", "pr", "main");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const reviewed = repo.commit("ready", "carol");
    const review = {
      author: "carol",
      reviews: [
        { user: { login: "bob" }, state: "APPROVED", commit_id: reviewed, submitted_at: "2026-11-01T10:00:00Z" },
      ],
      permissions: { bob: "write" },
    };
    const before = await runCli(
      ["check", "--base", "main", "--head", "pr", "--pr", prJson(review), "--format", "json"],
      repo.dir,
    );
    expect(before.json()).toMatchObject({ conclusion: "success", records: [{ task: "login", by: "bob" }] });
    repo.git("merge", "-q", "--no-edit", "side");
    const after = await runCli(
      ["check", "--base", "main", "--head", "pr", "--pr", prJson(review), "--format", "json"],
      repo.dir,
    );
    expect(after.code).toBe(3);
    const report = after.json<{ records: unknown[]; pending: { message: string }[] }>();
    expect(report.records).toEqual([]);
    expect(report.pending[0]!.message).toContain("tasks/login/SPEC.md changed after bob reviewed");
  });
});

describe("files taskgate cannot scan", () => {
  it("refuses binary evidence, naming the file", async () => {
    const defs = [def("api", { paths: ["src/api/**"] })];
    const repo = repoWith({
      ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol]\n",
      ...(board(defs, { api: claimed("carol") }, 1) as Record<string, string>),
    });
    repo.git("checkout", "-q", "-b", "pr");
    const submitted = entry("review", {
      owner: "carol",
      history: [
        ...claimed("carol").history,
        step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/api.bin" }),
      ],
    });
    repo.write({
      ...(board(defs, { api: submitted }, 2) as Record<string, string>),
      "state/evidence/api.bin": `tests\u0000${GITHUB}\u0000`,
      "state/handoffs/api.md": "done\n",
    });
    repo.commit("submit", "carol");
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(run.code).toBe(1);
    const violations = run.json<{ violations: { code: string; path: string; message: string }[] }>().violations;
    expect(violations).toContainEqual(
      expect.objectContaining({ code: "evidence-missing", path: "state/evidence/api.bin" }),
    );
    expect(violations.find((item) => item.path === "state/evidence/api.bin")!.message).toContain("a binary file");
    expectNoSecret([run]);
  });
});

describe("committing what `taskgate render` writes", () => {
  it("is within scope in a phases pull request, alone or with a task's move; hand edits fail render --check", async () => {
    const repo = repoWith({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "spec\n",
    });
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    repo.commit("move and render", "carol");
    const moved = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(moved.json()).toMatchObject({ conclusion: "action_required", violations: [] });

    repo.git("checkout", "-q", "-b", "render-only", "main");
    expect((await runCli(["render"], repo.dir)).code).toBe(0);
    repo.commit("render", "carol");
    const alone = await runCli(["check", "--base", "main", "--head", "render-only", "--format", "json"], repo.dir);
    expect(alone.json()).toMatchObject({ conclusion: "success", violations: [] });

    repo.write({ "docs/status/matrix.md": "everything is done\n" });
    const edited = await runCli(["render", "--check"], repo.dir);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain("docs/status/matrix.md: matrix-stale");
  });

  it("refuses a render folder that overlaps the framework or the task store", async () => {
    for (const path of [".github/status", "tasks", "tasks/status", "."]) {
      const repo = repoWith({ ".github/taskgate.yml": `preset: phases\nrender:\n  path: ${path}\n` });
      const run = await runCli(["audit"], repo.dir);
      expect(run.code, path).toBe(2);
      expect(run.stderr, path).toMatch(/render\.path|relative path/);
    }
  });
});

describe("retracted reviews and board ownership on a real repository", () => {
  it("refuses the bot's record once the review behind it is dismissed", async () => {
    const repo = repoWith({
      ".github/taskgate.yml": "preset: phases\n",
      "tasks/login/.state": "research\n",
      "tasks/login/SPEC.md": "spec\n",
    });
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const reviewed = repo.commit("ready", "carol");
    repo.write({
      "tasks/login/.state": "research:approved\n",
      "tasks/login/.state.approvals": "research:approved|2026-11-01T10:00:00Z|bob\n",
    });
    const recording = repo.commit("record", "taskgate[bot]");
    const approval = {
      user: { login: "bob" },
      state: "APPROVED",
      commit_id: reviewed,
      submitted_at: "2026-11-01T10:00:00Z",
    };
    const pr = (reviews: unknown[]) =>
      prJson({
        author: "carol",
        reviews,
        commits: [{ sha: recording, author: { login: "taskgate[bot]" } }],
        permissions: { bob: "write" },
      });
    const standing = await runCli(["check", "--base", "main", "--head", "pr", "--pr", pr([approval])], repo.dir);
    expect(standing.code).toBe(0);
    const later = { ...approval, state: "DISMISSED", commit_id: recording, submitted_at: "2026-11-01T11:00:00Z" };
    const retracted = await runCli(
      ["check", "--base", "main", "--head", "pr", "--pr", pr([approval, later]), "--format", "json"],
      repo.dir,
    );
    expect(retracted.code).toBe(1);
    expect(retracted.json()).toMatchObject({
      violations: [{ code: "approval-forged", path: "tasks/login/.state.approvals", line: 1 }],
    });
  });

  it("refuses edits to another owner's entry and never opens its paths; owners compare without case", async () => {
    const defs = [def("api", { paths: ["src/api/**"] }), def("ui", { paths: ["src/ui/**"] })];
    const repo = repoWith({
      ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n",
      ...(board(defs, { api: claimed("dave/x") }, 1) as Record<string, string>),
      "src/api/x.ts": "1\n",
    });
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({
      ...(board(defs, { api: { ...claimed("dave/x"), note: "mine now" } as never }, 1) as Record<string, string>),
      "src/api/x.ts": "2\n",
    });
    repo.commit("take over", "carol");
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(run.code).toBe(1);
    const found = run.json<{ violations: { code: string; path: string }[] }>().violations;
    expect(found.map((item) => [item.code, item.path])).toEqual([
      ["out-of-scope", "src/api/x.ts"],
      ["owner-mismatch", "state/tasks.json"],
    ]);

    repo.git("checkout", "-q", "-b", "claim", "main");
    repo.write({
      ...(board(defs, { api: claimed("dave/x"), ui: claimed("Carol/Agent-1") }, 2) as Record<string, string>),
    });
    repo.commit("claim ui", "carol");
    const claim = await runCli(
      ["check", "--base", "main", "--head", "claim", "--pr", prJson({ author: "carol" })],
      repo.dir,
    );
    expect(claim.code).toBe(0);
  });
});
