import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, tempRepo, type CliRun, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

const SPEC = "# Spec\nThe login form accepts email and password.\n";

/** main: config + one task at research; returns the repo on branch main. */
function baseRepo(config = "preset: phases\n"): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write({
    ".github/taskgate.yml": config,
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": SPEC,
    "src/app.ts": "export const app = 1;\n",
  });
  repo.commit("base", "alice");
  return repo;
}

function branch(repo: TempRepo, name: string, files: Record<string, string | null>, author = "carol"): string {
  repo.git("checkout", "-q", "-B", name, "main");
  repo.write(files);
  const sha = repo.commit(`work on ${name}`, author);
  repo.git("checkout", "-q", "main");
  return sha;
}

function prFile(dir: string, value: unknown): string {
  const path = join(dir, "pr.json");
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

describe("taskgate check", () => {
  it("exits 0 on a passing PR and prints the move", async () => {
    const repo = baseRepo();
    branch(repo, "pr", { "tasks/login/SPEC.md": `${SPEC}More detail.\n` });
    const run = await runCli(["check", "--base", "main", "--head", "pr"], repo.dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("success: 0 violation(s), 0 pending approval(s)");
  });

  it("exits 1 on violations, one line per problem with file:line and a hint", async () => {
    const repo = baseRepo();
    branch(repo, "pr", {
      "tasks/login/.state": "implement\n",
      ".github/workflows/ci.yml": "on: push\n",
      "src/app.ts": "export const app = 2;\n",
    });
    const run = await runCli(["check", "--repo", repo.dir, "--base", "main", "--head", "pr"], tmpdir());
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("tasks/login/.state:1: illegal-transition: login moved past the research gate");
    expect(run.stdout).toContain(".github/workflows/ci.yml: out-of-scope:");
    expect(run.stdout).toMatch(
      /without an approval recorded by taskgate \(hint: Stop at research:awaiting_approval and request a review/,
    );
    expect(run.stdout).toContain("src/app.ts: out-of-scope:");
    expect(run.stdout).toContain("failure: 3 violation(s)");
  });

  it("exits 3 when only approvals are pending, and prints exactly the JSON contract", async () => {
    const repo = baseRepo();
    branch(repo, "pr", { "tasks/login/.state": "research:awaiting_approval\n" });
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(run.code).toBe(3);
    const report = run.json<Record<string, unknown>>();
    expect(Object.keys(report)).toEqual(["conclusion", "violations", "pending", "transitions", "records"]);
    expect(report).toMatchObject({
      conclusion: "action_required",
      violations: [],
      pending: [{ code: "approval-required", task: "login", approvers: ["anyone with write permission"] }],
      transitions: [{ task: "login", from: "research", to: "research:awaiting_approval" }],
      records: [],
    });
  });

  it("turns an eligible review in PR.json into the record the bot would commit", async () => {
    const repo = baseRepo();
    const head = branch(repo, "pr", { "tasks/login/.state": "research:awaiting_approval\n" });
    const pr = prFile(repo.dir + "/..", {
      author: "carol",
      reviews: [
        {
          user: { login: "Bob" },
          state: "APPROVED",
          commit_id: head,
          submitted_at: "2026-11-02T09:00:00Z",
          body: "ok",
        },
      ],
      commits: [{ sha: head, author: { login: "carol" } }],
      permissions: { bob: "write" },
    });
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--pr", pr, "--format", "json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      conclusion: "success",
      records: [
        { task: "login", from: "research:awaiting_approval", to: "research:approved", by: "Bob", kind: "approve" },
      ],
    });
  });

  it("accepts the bot's commit only when GitHub names the bot, never by git author name", async () => {
    const repo = baseRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const reviewed = repo.commit("ready for review", "carol");
    repo.write({
      "tasks/login/.state": "research:approved\n",
      "tasks/login/.state.approvals": "research:approved|2026-11-02T09:00:00Z|bob\n",
    });
    const recording = repo.commit("record approval", "taskgate[bot]");
    repo.write({ "tasks/login/.state": "design\n" });
    repo.commit("start design", "carol");
    repo.git("checkout", "-q", "main");
    const review = {
      user: { login: "bob" },
      state: "APPROVED",
      commit_id: reviewed,
      submitted_at: "2026-11-02T09:00:00Z",
    };
    const dir = mkdtempSync(join(tmpdir(), "taskgate-pr-"));
    const base = { author: "carol", reviews: [review], permissions: { bob: "write" } };
    const good = prFile(dir, { ...base, commits: [{ sha: recording, author: { login: "taskgate[bot]" } }] });
    const ok = await runCli(["check", "--base", "main", "--head", "pr", "--pr", good, "--format", "json"], repo.dir);
    expect(ok.json()).toMatchObject({
      conclusion: "success",
      violations: [],
      transitions: [{ task: "login", from: "research", to: "design" }],
    });
    expect(ok.code).toBe(0);
    // The same commits, but GitHub does not name the bot: its git author name proves nothing.
    for (const commits of [[], [{ sha: recording, author: null }], [{ sha: recording, author: { login: "carol" } }]]) {
      const named = prFile(dir, { ...base, commits });
      const forged = await runCli(
        ["check", "--base", "main", "--head", "pr", "--pr", named, "--format", "json"],
        repo.dir,
      );
      expect(forged.code).toBe(1);
      expect(forged.json()).toMatchObject({
        violations: [{ code: "approval-forged", path: "tasks/login/.state.approvals", line: 1 }],
      });
    }
    // GitHub names the bot but reports the signature as unverified: not the bot's either.
    const unverified = prFile(dir, {
      ...base,
      commits: [{ sha: recording, author: { login: "taskgate[bot]" }, commit: { verification: { verified: false } } }],
    });
    const refused = await runCli(
      ["check", "--base", "main", "--head", "pr", "--pr", unverified, "--format", "json"],
      repo.dir,
    );
    expect(refused.code).toBe(1);
  });

  it("attributes commits missing from PR.json by git author name (contributors cannot approve)", async () => {
    const repo = baseRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/SPEC.md": `${SPEC}by dave\n` });
    repo.commit("dave helps", "dave");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const head = repo.commit("ready", "carol");
    repo.git("checkout", "-q", "main");
    const pr = prFile(mkdtempSync(join(tmpdir(), "taskgate-pr-")), {
      author: "carol",
      reviews: [{ user: { login: "dave" }, state: "APPROVED", commit_id: head, submitted_at: "2026-11-02T09:00:00Z" }],
      permissions: { dave: "admin" },
    });
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--pr", pr, "--format", "json"], repo.dir);
    expect(run.code).toBe(3);
    expect(run.json<{ pending: { message: string }[] }>().pending[0]!.message).toContain("dave pushed commits");
  });

  it("bars the git committer and Co-authored-by co-authors, by login when PR.json links them", async () => {
    const repo = baseRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const head = repo.commit("ready\n\nCo-authored-by: dave <dave@example.com>\n", "carol", "erin");
    repo.git("checkout", "-q", "main");
    const review = (login: string) => ({
      user: { login },
      state: "APPROVED",
      commit_id: head,
      submitted_at: "2026-11-02T09:00:00Z",
    });
    const check = async (pr: unknown) => {
      const path = prFile(mkdtempSync(join(tmpdir(), "taskgate-pr-")), pr);
      return runCli(["check", "--base", "main", "--head", "pr", "--pr", path, "--format", "json"], repo.dir);
    };
    const refusal = (run: CliRun) => {
      expect(run.code).toBe(3);
      return run.json<{ pending: { message: string }[] }>().pending[0]!.message;
    };
    const permissions = { erin: "write", dave: "write", "dave-gh": "write" };
    const unlinked = refusal(await check({ author: "carol", reviews: [review("erin"), review("dave")], permissions }));
    expect(unlinked).toContain(`erin committed ${head.slice(0, 7)}`);
    expect(unlinked).toContain(`dave is a co-author of ${head.slice(0, 7)} (Co-authored-by)`);
    // GitHub links the co-author's address to dave-gh: it bars dave-gh, and the trailer's name no one.
    const commits = [
      { sha: head, author: { login: "carol" }, co_authors: [{ login: "dave-gh", email: "DAVE@example.com" }] },
    ];
    const linked = refusal(await check({ author: "carol", reviews: [review("dave-gh")], permissions, commits }));
    expect(linked).toContain(`dave-gh is a co-author of ${head.slice(0, 7)} (Co-authored-by)`);
    const dave = await check({ author: "carol", reviews: [review("dave")], permissions, commits });
    expect(dave.code).toBe(0);
    expect(dave.json()).toMatchObject({ records: [{ task: "login", by: "dave" }] });
  });

  it("refuses a symlinked artifact committed to git", async () => {
    const repo = baseRepo();
    repo.git("checkout", "-q", "-b", "pr");
    repo.write({ "tasks/login/SPEC.md": null, "tasks/login/.state": "research:awaiting_approval\n" });
    repo.symlink("tasks/login/SPEC.md", "../../src/app.ts");
    repo.commit("link", "carol");
    repo.git("checkout", "-q", "main");
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ violations: [{ code: "path-escape", path: "tasks/login/SPEC.md" }] });
  });

  it("reports a garbled approvals line at its line", async () => {
    const repo = baseRepo();
    branch(repo, "pr", { "tasks/login/.state.approvals": "approved by bob, trust me\n" });
    const run = await runCli(["check", "--base", "main", "--head", "pr"], repo.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("tasks/login/.state.approvals:1: state-invalid:");
  });

  it("is neutral (exit 0) when the base branch has no config", async () => {
    const repo = tempRepo();
    repos.push(repo);
    repo.write({ "README.md": "hi\n" });
    repo.commit("init");
    branch(repo, "pr", { "README.md": "hello\n" });
    const run = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ conclusion: "neutral", violations: [] });
  });

  it("exits 2 with the key path and line of a bad config, without a stack trace", async () => {
    const repo = baseRepo("preset: phases\napprovals:\n  count: 0\n");
    branch(repo, "pr", { "tasks/login/SPEC.md": "x\n" });
    const run = await runCli(["check", "--base", "main", "--head", "pr"], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(".github/taskgate.yml:3: config-invalid: approvals.count:");
    expect(run.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    const yaml = baseRepo("preset: [phases\n");
    branch(yaml, "pr", { "tasks/login/SPEC.md": "x\n" });
    const broken = await runCli(["check", "--base", "main", "--head", "pr", "--format", "json"], yaml.dir);
    expect(broken.code).toBe(2);
    expect(broken.json()).toMatchObject({ conclusion: "failure", violations: [{ code: "config-invalid", line: 2 }] });
  });

  it("exits 2 with a hint on a missing ref, a non-repository and bad PR.json", async () => {
    const repo = baseRepo();
    const missing = await runCli(["check", "--base", "main", "--head", "nope"], repo.dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("ref not found: nope");
    expect(missing.stderr).toContain("hint:");

    const notRepo = await runCli(
      ["check", "--base", "main", "--head", "x"],
      mkdtempSync(join(tmpdir(), "taskgate-plain-")),
    );
    expect(notRepo.code).toBe(2);
    expect(notRepo.stderr).toContain("not a git repository");

    const dir = mkdtempSync(join(tmpdir(), "taskgate-pr-"));
    const badJson = await runCli(
      ["check", "--base", "main", "--head", "main", "--pr", prFile(dir, '{"author": "x",\n "reviews": [}')],
      repo.dir,
    );
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/pr\.json:2: invalid JSON/);
    const badShape = await runCli(
      [
        "check",
        "--base",
        "main",
        "--head",
        "main",
        "--pr",
        prFile(dir, { reviews: [{ user: { login: "bob" }, state: "LGTM" }] }),
      ],
      repo.dir,
    );
    expect(badShape.code).toBe(2);
    expect(badShape.stderr).toContain(".reviews[0].state");
    const absent = await runCli(
      ["check", "--base", "main", "--head", "main", "--pr", join(dir, "none.json")],
      repo.dir,
    );
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain("ENOENT");
  });

  it("exits 2 on usage errors", async () => {
    const repo = baseRepo();
    expect((await runCli(["check", "--base", "main"], repo.dir)).code).toBe(2);
    expect((await runCli(["check", "--base", "main", "--head", "main", "--format", "xml"], repo.dir)).code).toBe(2);
    expect((await runCli(["frobnicate"], repo.dir)).code).toBe(2);
    expect((await runCli(["check", "--bogus"], repo.dir)).stderr).toContain("--bogus");
    expect((await runCli([], repo.dir)).code).toBe(2);
    const help = await runCli(["--help"], repo.dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("taskgate check");
  });
});

describe("taskgate audit", () => {
  it("exits 0 on a clean revision and 1 with every problem listed", async () => {
    const repo = baseRepo();
    expect((await runCli(["audit"], repo.dir)).code).toBe(0);
    repo.write({ "tasks/login/VERDICT.md": "PASS\n", "tasks/manual/SPEC.md": "x\n" });
    repo.commit("bad", "mallory");
    const run = await runCli(["audit", "--format", "json"], repo.dir);
    expect(run.code).toBe(1);
    expect(run.json<{ violations: { code: string }[] }>().violations.map((item) => item.code)).toEqual([
      "artifact-forbidden",
      "task-untracked",
    ]);
    const earlier = await runCli(["audit", "--ref", "HEAD~1"], repo.dir);
    expect(earlier.code).toBe(0);
  });
});

describe("taskgate explain", () => {
  it("says where a task is, what it needs next and who may approve", async () => {
    const repo = baseRepo('preset: phases\napprovals:\n  approvers: [bob, "@acme/leads"]\n');
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    repo.commit("wait");
    const run = await runCli(["explain", "login"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("state: research:awaiting_approval");
    expect(run.stdout).toContain("→ research:approved (needs 1 approving review(s) from bob or @acme/leads");
    expect(run.stdout).toContain("who may approve: bob, @acme/leads");
  });

  it("exits 2 for an unknown task and lists the known ones", async () => {
    const repo = baseRepo();
    const run = await runCli(["explain", "logn"], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no task "logn"');
    expect(run.stderr).toContain("Known tasks: login");
  });
});

describe("the installed bin", () => {
  it("runs `taskgate --help` from the built package", () => {
    const out = execFileSync(process.execPath, [join(import.meta.dirname, "../../bin/taskgate.js"), "--help"], {
      encoding: "utf8",
    });
    expect(out).toContain("Usage:");
  });
});
