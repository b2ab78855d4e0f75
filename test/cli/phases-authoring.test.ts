/**
 * The phases authoring commands on real git repositories: new, move, upgrade, can-edit, scope. What
 * they write, the pull-request check accepts; what they refuse, the check refuses with the same
 * code, and nothing is written.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

const AS = ["--as", "carol"];

function phasesRepo(files: Record<string, string> = {}, config = "preset: phases\n"): TempRepo {
  const repo = tempRepo();
  repos.push(repo);
  repo.write({ ".github/taskgate.yml": config, "src/app.ts": "export const app = 1;\n", ...files });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "work");
  return repo;
}

/** Every file outside .git with a hash of its bytes: to show a refusal wrote nothing. */
function tree(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix))) {
    if (name === ".git") continue;
    const path = prefix ? `${prefix}/${name}` : name;
    if (statSync(join(dir, path)).isDirectory()) Object.assign(out, tree(dir, path));
    else
      out[path] = createHash("sha256")
        .update(readFileSync(join(dir, path)))
        .digest("hex");
  }
  return out;
}

/** Commits the work tree and judges the branch as a pull request by `author`. */
async function checkWork(repo: TempRepo, author = "carol") {
  repo.commit("work", author);
  const pr = join(repo.dir, "..", `${repo.dir.split("/").pop()}-pr.json`);
  writeFileSync(pr, JSON.stringify({ author }));
  const run = await runCli(["check", "--base", "main", "--head", "work", "--pr", pr, "--json"], repo.dir);
  return run.json<{ conclusion: string; violations: { code: string }[]; pending: { code: string }[] }>();
}

describe("taskgate new", () => {
  it("creates the task at new with an empty approvals log, which the check accepts", async () => {
    const repo = phasesRepo();
    const run = await runCli(["new", "login", ...AS], repo.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("created login at new");
    expect(readFileSync(join(repo.dir, "tasks/login/.state"), "utf8")).toBe("new\n");
    expect(readFileSync(join(repo.dir, "tasks/login/.state.approvals"), "utf8")).toBe("");
    const report = await checkWork(repo);
    expect(report.violations).toEqual([]);
    expect(report.conclusion).toBe("success");
  });

  it("refuses an id in use and an invalid id, writing nothing", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "research\n", "tasks/login/SPEC.md": "s\n" });
    const before = tree(repo.dir);
    const reused = await runCli(["new", "login", ...AS, "--json"], repo.dir);
    expect(reused.code).toBe(1);
    expect(reused.json()).toMatchObject({
      ok: false,
      written: [],
      violations: [{ code: "id-reused", task: "login" }],
    });
    for (const id of ["../escape", "a b", ".hidden"]) {
      const invalid = await runCli(["new", id, ...AS], repo.dir);
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toContain("task-invalid-id");
    }
    expect(tree(repo.dir)).toEqual(before);
  });
});

describe("taskgate move", () => {
  it("moves along legal edges and leaves the gate to a review: written states pass the check", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "new\n" });
    expect((await runCli(["move", "login", "research", ...AS], repo.dir)).code).toBe(0);
    writeFileSync(join(repo.dir, "tasks/login/SPEC.md"), "# Spec\n");
    const waiting = await runCli(["move", "login", "research:awaiting_approval", ...AS, "--json"], repo.dir);
    expect(waiting.code).toBe(0);
    expect(waiting.json()).toMatchObject({
      ok: true,
      from: "research",
      to: "research:awaiting_approval",
      written: ["tasks/login/.state"],
      pending: [{ code: "approval-required", task: "login" }],
    });
    const before = tree(repo.dir);
    const gate = await runCli(["move", "login", "research:approved", ...AS], repo.dir);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain("refused, nothing written");
    expect(gate.stdout).toContain("Approval comes from a PR review");
    expect(tree(repo.dir)).toEqual(before);

    const report = await checkWork(repo);
    expect(report.violations).toEqual([]);
    expect(report.conclusion).toBe("action_required");
  });

  it("refuses what the check refuses, with the same code: a missing artifact", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "research\n" });
    const refused = await runCli(["move", "login", "research:awaiting_approval", ...AS, "--json"], repo.dir);
    expect(refused.code).toBe(1);
    const codes = refused.json<{ violations: { code: string }[] }>().violations.map((item) => item.code);
    expect(codes).toContain("artifact-missing");
    expect(readFileSync(join(repo.dir, "tasks/login/.state"), "utf8")).toBe("research\n");
    // The same move written by hand: the check reports the same code.
    repo.write({ "tasks/login/.state": "research:awaiting_approval\n" });
    const report = await checkWork(repo);
    expect(report.violations.map((item) => item.code)).toContain("artifact-missing");
  });

  it("refuses an unknown state (suggesting the near one), an unknown task, the same state and a skipped gate", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "research\n", "tasks/login/SPEC.md": "s\n" });
    const before = tree(repo.dir);
    const typo = await runCli(["move", "login", "reserch", ...AS], repo.dir);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toContain("state-invalid");
    expect(typo.stdout).toContain("Did you mean research?");
    const unknown = await runCli(["move", "logn", "research", ...AS], repo.dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("Did you mean login?");
    const same = await runCli(["move", "login", "research", ...AS], repo.dir);
    expect(same.code).toBe(1);
    expect(same.stdout).toContain("already at research");
    const jump = await runCli(["move", "login", "implement", ...AS, "--json"], repo.dir);
    expect(jump.code).toBe(1);
    expect(jump.json<{ violations: { code: string; hint: string }[] }>().violations[0]).toMatchObject({
      code: "illegal-transition",
      hint: expect.stringContaining("Approval comes from a PR review"),
    });
    expect(tree(repo.dir)).toEqual(before);
  });

  it("proposes a human_intervention exit, which waits for an approval", async () => {
    const repo = phasesRepo({
      "tasks/fix/.state": "human_intervention\n",
      "tasks/fix/.state.approvals": "research:approved|2026-11-01T10:00:00Z|quinn\n",
      "tasks/fix/SPEC.md": "s\n",
      "tasks/fix/BUG_REPORT.md": "b\n",
      "tasks/fix/ADVERSARIAL_BUG_REPORT.md": "a\n",
      "tasks/fix/DOC_REVIEW.md": "d\n",
      "tasks/fix/VERDICT.md": "FAIL: the tests do not run\n",
    });
    const run = await runCli(["move", "fix", "implement", ...AS, "--json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ pending: [{ code: "approval-required", task: "fix" }] });
  });

  it("writes through a lock: a held lock refuses the move with the holder and the unlock hint", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "new\n" });
    writeFileSync(
      join(repo.dir, ".taskgate.lock"),
      JSON.stringify({
        pid: process.pid,
        host: (await import("node:os")).hostname(),
        at: "2026-11-30T10:00:00Z",
        command: "move",
      }),
    );
    const run = await runCli(["move", "login", "research", ...AS], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(String(process.pid));
    expect(run.stderr).toContain("unlock");
    expect(readFileSync(join(repo.dir, "tasks/login/.state"), "utf8")).toBe("new\n");
  });
});

describe("taskgate upgrade", () => {
  it("tracks folders without .state at the phase of their latest artifact; the audit is then clean", async () => {
    const repo = phasesRepo({
      "tasks/empty/notes.txt": "ideas\n",
      "tasks/spec/SPEC.md": "# Spec\n",
      "tasks/done/.state": "new\n",
    });
    const run = await runCli(["upgrade", ...AS, "--json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      tasks: [
        { task: "empty", state: "new", from: "no artifact" },
        { task: "spec", state: "research", from: "SPEC.md" },
      ],
      written: ["tasks/empty/.state", "tasks/spec/.state"],
    });
    expect(readFileSync(join(repo.dir, "tasks/spec/.state"), "utf8")).toBe("research\n");
    const report = await checkWork(repo);
    expect(report.violations).toEqual([]);
    const audit = await runCli(["audit", "--json"], repo.dir);
    expect(audit.json<{ violations: unknown[] }>().violations).toEqual([]);
  });

  it("places a folder past a gate where its artifacts show, as an adoption waiting for one review", async () => {
    const repo = phasesRepo({
      "tasks/spec/SPEC.md": "# Spec\n",
      "tasks/far/SPEC.md": "# Spec\n",
      "tasks/far/DESIGN.md": "# Design\n",
    });
    const run = await runCli(["upgrade", ...AS, "--json"], repo.dir);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      ok: true,
      tasks: [
        { task: "far", state: "design", from: "DESIGN.md", adopted: true, gates: ["research"] },
        { task: "spec", state: "research", from: "SPEC.md", adopted: false, gates: [] },
      ],
      written: ["tasks/far/.state", "tasks/spec/.state"],
      pending: [{ code: "approval-required", approvers: ["anyone with write permission"] }],
    });
    expect(readFileSync(join(repo.dir, "tasks/far/.state"), "utf8")).toBe("design\n");
    const report = await checkWork(repo);
    expect(report.violations).toEqual([]);
    expect(report.conclusion).toBe("action_required");
  });

  it("refuses, writing nothing, a folder whose artifacts fit no state, and a tracked task", async () => {
    const repo = phasesRepo({
      "tasks/spec/SPEC.md": "# Spec\n",
      "tasks/gap/SPEC.md": "# Spec\n",
      "tasks/gap/TEST_PLAN.md": "# Plan without a design\n",
    });
    const before = tree(repo.dir);
    const run = await runCli(["upgrade", ...AS, "--json"], repo.dir);
    expect(run.code).toBe(1);
    const result = run.json<{ violations: { task: string; code: string; path: string }[] }>();
    expect(result.violations).toEqual([
      expect.objectContaining({ task: "gap", code: "artifact-missing", path: "tasks/gap/DESIGN.md" }),
    ]);
    expect(tree(repo.dir)).toEqual(before);
    // One folder at a time works for the others.
    const one = await runCli(["upgrade", "spec", ...AS], repo.dir);
    expect(one.code).toBe(0);
    expect(readFileSync(join(repo.dir, "tasks/spec/.state"), "utf8")).toBe("research\n");
    // A tracked task is not upgraded again.
    const again = await runCli(["upgrade", "spec", ...AS], repo.dir);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("already has a .state file");
  });
});

describe("taskgate can-edit and scope", () => {
  const files = {
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": "s\n",
    "tasks/api/.state": "implement\n",
    "tasks/api/SPEC.md": "s\n",
  };

  it.each([
    ["src/app.ts", "login", false, "out-of-scope"],
    ["src/app.ts", "api", true, undefined],
    ["tasks/login/SPEC.md", "login", true, undefined],
    ["tasks/api/SPEC.md", "login", false, "out-of-scope"],
    ["tasks/login/.state.approvals", "login", false, "approval-forged"],
    [".github/workflows/ci.yml", "api", false, "out-of-scope"],
    [".github/taskgate.yml", "api", false, "out-of-scope"],
    ["tasks/README.md", "api", false, "out-of-scope"],
    ["docs/status/matrix.md", "login", true, undefined],
  ])("%s for task %s: allowed %s", async (path, task, allowed, code) => {
    const repo = phasesRepo(files);
    const run = await runCli(["can-edit", path, "--task", task, "--json"], repo.dir);
    expect(run.code).toBe(allowed ? 0 : 1);
    expect(run.json()).toMatchObject({ path, task, allowed, ...(code && { code }) });
  });

  it("agrees with the check: a project file is refused where the task does not edit project files", async () => {
    const repo = phasesRepo(files);
    expect((await runCli(["can-edit", "src/app.ts", "--task", "login"], repo.dir)).code).toBe(1);
    repo.write({ "tasks/login/SPEC.md": "s, more\n", "src/app.ts": "export const app = 2;\n" });
    const report = await checkWork(repo);
    expect(report.violations.map((item) => item.code)).toContain("out-of-scope");
  });

  it("without a task: project files are editable while some task is in an editing phase", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "research\n", "tasks/login/SPEC.md": "s\n" });
    const none = await runCli(["can-edit", "src/app.ts"], repo.dir);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("no task is in a phase that edits project files");
    repo.write({ "tasks/api/.state": "implement\n", "tasks/api/SPEC.md": "s\n" });
    const some = await runCli(["can-edit", "src/app.ts", "--json"], repo.dir);
    expect(some.code).toBe(0);
    expect(some.json()).toMatchObject({ allowed: true, task: null, kind: "project" });
  });

  it("refuses paths that leave the checkout and files outside it", async () => {
    const repo = phasesRepo(files);
    const outside = await runCli(["can-edit", "../elsewhere.txt"], repo.dir);
    expect(outside.code).toBe(1);
    expect(outside.stdout).toContain("lies outside the repository");
    expect(outside.stdout).toContain("(path-escape)");
  });

  it("scope lists what the task may edit now and what it never may", async () => {
    const repo = phasesRepo(files);
    const research = await runCli(["scope", "login", "--json"], repo.dir);
    expect(research.code).toBe(0);
    expect(research.json()).toMatchObject({
      task: "login",
      state: "research",
      projectFiles: false,
      editable: ["tasks/login/**"],
      rendered: "docs/status/**",
    });
    expect(research.json<{ outOfScope: string[] }>().outOfScope).toContain(".github/**");
    const implement = await runCli(["scope", "api"], repo.dir);
    expect(implement.stdout).toContain("project files");
    expect(implement.stdout).toContain("task api at implement");
  });
});

describe("the command line of the authoring commands", () => {
  it("refuses board commands in a phases repository, options that do not apply, and missing arguments", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "new\n" });
    const board = await runCli(["claim", "login", ...AS], repo.dir);
    expect(board.code).toBe(2);
    expect(board.stderr).toContain("board preset");
    const option = await runCli(["move", "login", "research", "--evidence", "x"], repo.dir);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("--evidence does not apply to `move`");
    const missing = await runCli(["move", "login"], repo.dir);
    expect(missing.code).toBe(2);
    const json = await runCli(["move", "login", "--json"], repo.dir);
    expect(json.code).toBe(2);
    expect(json.json()).toMatchObject({ error: { message: expect.stringContaining("a task id and a state") } });
  });

  it("says when taskgate is not configured", async () => {
    const repo = tempRepo();
    repos.push(repo);
    repo.write({ "README.md": "hi\n" });
    repo.commit("init");
    const run = await runCli(["new", "login"], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not configured");
  });

  it("keeps its lock and journal out of git", async () => {
    const repo = phasesRepo();
    await runCli(["new", "login", ...AS], repo.dir);
    const exclude = readFileSync(join(repo.dir, ".git/info/exclude"), "utf8");
    for (const line of ["/.taskgate.lock", "/.taskgate.journal.json", "/.taskgate.unlock.log", "*.taskgate.tmp"]) {
      expect(exclude.split("\n")).toContain(line);
    }
    writeFileSync(join(repo.dir, ".taskgate.unlock.log"), "x\n");
    expect(repo.git("status", "--porcelain")).not.toContain(".taskgate");
  });

  it("never acts on a journal that came with a checkout, and the check refuses committing one", async () => {
    const repo = phasesRepo({ "tasks/api/.state": "implement\n", "tasks/api/SPEC.md": "s\n" });
    const planted = JSON.stringify({
      version: 1,
      command: "move",
      at: "2026-11-30T10:00:00Z",
      files: [{ path: "src/app.ts", before: "export const app = 1;\n", after: "steal();\n" }],
    });
    repo.write({ ".taskgate.journal.json": planted, "tasks/api/SPEC.md": "s, more\n" });
    const report = await checkWork(repo, "mallory");
    expect(report.violations).toContainEqual(
      expect.objectContaining({ code: "out-of-scope", path: ".taskgate.journal.json" }),
    );
    for (const args of [["list"], ["move", "api", "bug_find", ...AS], ["scope", "api"]]) {
      const run = await runCli(args, repo.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(".taskgate.journal.json is committed to the repository");
    }
    expect(readFileSync(join(repo.dir, "src/app.ts"), "utf8")).toBe("export const app = 1;\n");
    expect(existsSync(join(repo.dir, ".taskgate.journal.json"))).toBe(true);
  });

  it("--json is --format json on check, audit, explain and render", async () => {
    const repo = phasesRepo({ "tasks/login/.state": "new\n" });
    for (const args of [["audit"], ["explain", "login"], ["render", "--check"]]) {
      const a = await runCli([...args, "--json"], repo.dir);
      const b = await runCli([...args, "--format", "json"], repo.dir);
      expect(a.code).toBe(b.code);
      expect(a.stdout).toBe(b.stdout);
      expect(() => a.json()).not.toThrow();
    }
    const clash = await runCli(["audit", "--json", "--format", "text"], repo.dir);
    expect(clash.code).toBe(2);
  });
});
