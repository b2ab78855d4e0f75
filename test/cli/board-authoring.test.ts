/**
 * The board's authoring commands against real git repositories. The property under test: what a
 * command writes is what the pull-request check accepts, and what it refuses the check refuses too,
 * with the same code, while the refused command leaves the work tree byte for byte as it was.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Definition, LedgerEntry } from "../../src/core/board/formats.js";
import { board, claimed, def, entry, step } from "../helpers/board.js";
import { runCli, tempRepo, type CliRun, type TempRepo } from "../helpers/git.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(ROOT, "bin/taskgate.js");
const CRASH = join(ROOT, "test/fixtures/crash-after-renames.cjs");

const CONFIG =
  "preset: board\nmaintainers: [mia]\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n  coordinator: [cora]\n";

const DEFS: Definition[] = [
  def("partner", { title: "Partner feed", external: true, paths: [] }),
  def("api", { title: "Build the API", outcome: "Serves the REST endpoints", paths: ["src/api/**"] }),
  def("ui", { title: "Build the UI", stage: "S2", depends_on: ["api"], paths: ["src/ui/**"] }),
  def("db", { title: "Database schema", paths: ["src/db/**"] }),
  def("guide", {
    title: "Write the guide",
    role: "qa",
    reviewer_role: "backend",
    stage: "S2",
    outcome: "A rest primer for users",
    paths: ["docs/guide/**"],
  }),
];

/** The external resolver waits for its release from the start. */
const WAITING = { partner: entry("blocked", { external_wait: true }) };

/** A GitHub token as the secret scanner knows it (never printed by a passing test). */
const TOKEN = `ghp_${"a1B2c3D4e5".repeat(3)}f6G7h8`;

const repos: TempRepo[] = [];
const scratchDirs: string[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-input-"));
  scratchDirs.push(dir);
  return dir;
}

interface Setup {
  readonly tasks?: Record<string, LedgerEntry>;
  readonly revision?: number;
  readonly files?: Record<string, string>;
  readonly config?: string;
  readonly defs?: Definition[];
}

interface Board {
  readonly repo: TempRepo;
  readonly dir: string;
  /** A folder outside the checkout, for the files handed to commands and the simulated pull requests. */
  readonly out: string;
  /** Writes a file outside the checkout and returns its absolute path. */
  input(name: string, content: string): string;
  cli(args: string[], env?: Record<string, string>): Promise<CliRun>;
  read(path: string): string;
  ledger(): { revision: number; tasks: Record<string, LedgerEntry> };
  definitions(): Definition[];
}

/** A board repository whose `main` holds the config, the definitions, the ledger and `files`. */
function boardRepo(setup: Setup = {}): Board {
  const repo = tempRepo();
  repos.push(repo);
  const out = scratch();
  repo.write({
    ".github/taskgate.yml": setup.config ?? CONFIG,
    ...(board(setup.defs ?? DEFS, setup.tasks ?? WAITING, setup.revision ?? 0) as Record<string, string>),
    "src/api/index.ts": "export const api = 1;\n",
    ...setup.files,
  });
  repo.commit("plan the board", "mia");
  const read = (path: string) => readFileSync(join(repo.dir, path), "utf8");
  return {
    repo,
    dir: repo.dir,
    out,
    input(name, content) {
      const path = join(out, name);
      writeFileSync(path, content);
      return path;
    },
    cli: (args, env = {}) => runCli(args, repo.dir, env),
    read,
    ledger: () => JSON.parse(read("state/tasks.json")),
    definitions: () => JSON.parse(read("planning/tasks.json")).tasks,
  };
}

/** Every file outside `.git`, by path, with a hash of its bytes. */
function treeHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string, prefix: string) => {
    for (const item of readdirSync(folder, { withFileTypes: true })) {
      if (prefix === "" && item.name === ".git") continue;
      const path = `${prefix}${item.name}`;
      if (item.isDirectory()) walk(join(folder, item.name), `${path}/`);
      else
        out[path] = createHash("sha256")
          .update(readFileSync(join(folder, item.name)))
          .digest("hex");
    }
  };
  walk(dir, "");
  return out;
}

interface Violation {
  readonly code: string;
  readonly message: string;
  readonly task?: string;
}

interface CheckJson {
  readonly conclusion: string;
  readonly violations: Violation[];
  readonly pending: { code: string; task?: string; approvers?: string[] }[];
}

interface RefusalJson {
  readonly ok: false;
  readonly written: string[];
  readonly violations: Violation[];
}

function codesOf(violations: readonly Violation[]): string[] {
  return [...new Set(violations.map((item) => item.code))].sort();
}

let branches = 0;

/** Commits the work tree on a new branch and runs the check of main...branch for a pull request by `author`. */
async function checkAs(b: Board, author: string): Promise<{ run: CliRun; report: CheckJson }> {
  const branch = `pr-${++branches}`;
  b.repo.git("checkout", "-q", "-b", branch);
  b.repo.commit(`work of ${author}`, author);
  const pr = join(b.out, `${branch}.json`);
  writeFileSync(pr, JSON.stringify({ author }));
  const run = await runCli(["check", "--base", "main", "--head", branch, "--pr", pr, "--json"], b.dir);
  return { run, report: run.json<CheckJson>() };
}

/** The check accepts the work tree as a pull request by `author`: no violation (approvals may be pending). */
async function expectAccepted(b: Board, author: string): Promise<CheckJson> {
  const { run, report } = await checkAs(b, author);
  expect(report.violations).toEqual([]);
  expect(["success", "action_required"]).toContain(report.conclusion);
  expect([0, 3]).toContain(run.code);
  return report;
}

/** `git status --porcelain -uall`, one entry per line, sorted. */
function porcelain(repo: TempRepo): string[] {
  return repo
    .git("status", "--porcelain", "-uall")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .sort();
}

/** The same change written by hand over main: the check's violation codes for a pull request by `author`. */
async function handWritten(b: Board, author: string, files: Record<string, string | null>): Promise<string[]> {
  b.repo.git("checkout", "-q", "main");
  b.repo.write(files);
  const { run, report } = await checkAs(b, author);
  expect(run.code).toBe(1);
  return codesOf(report.violations);
}

/** Runs a command that must be refused: exit 1, the codes, nothing written (every file byte-identical). */
async function expectRefused(b: Board, args: string[], env: Record<string, string> = {}): Promise<RefusalJson> {
  const before = treeHashes(b.dir);
  const run = await b.cli([...args, "--json"], env);
  expect(run.code).toBe(1);
  const refusal = run.json<RefusalJson>();
  expect(refusal.ok).toBe(false);
  expect(refusal.written).toEqual([]);
  expect(treeHashes(b.dir)).toEqual(before);
  return refusal;
}

/** The ledger written by hand: `tasks` over main's entries, revision as given. */
function ledgerFile(tasks: Record<string, LedgerEntry>, revision: number): Record<string, string> {
  return { "state/tasks.json": JSON.stringify({ revision, tasks: { ...WAITING, ...tasks } }, null, 2) };
}

/** The ledger after carol/a1's claim of `api` and a submit by `by`, written by hand. */
function submittedByHand(by: string, evidence = "state/evidence/ev.md"): Record<string, string> {
  const owned = claimed("carol/a1");
  const submit = step("submit", "in_progress", "review", by, { evidence, handoff: "state/handoffs/api.md" });
  return ledgerFile({ api: { ...owned, status: "review", history: [...owned.history, submit] } }, 2);
}

function spawnCli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { cwd, env, encoding: "utf8", timeout: 20_000 });
}

/** The environment of a child process that knows no login: empty HOME, no system git config. */
function anonymousEnv(): NodeJS.ProcessEnv {
  const home = scratch();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  delete env.TASKGATE_LOGIN;
  delete env.GIT_CONFIG_GLOBAL;
  delete env.GIT_CONFIG_SYSTEM;
  return env;
}

describe("list and next", () => {
  it("filters by role, stage, status, a case-insensitive query and a limit, in definition order", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });
    const ids = async (...args: string[]) => {
      const run = await b.cli(["list", ...args, "--json"]);
      expect(run.code).toBe(0);
      return run.json<{ tasks: { id: string }[] }>().tasks.map((row) => row.id);
    };
    expect(await ids()).toEqual(["partner", "api", "ui", "db", "guide"]);
    expect(await ids("--role", "qa")).toEqual(["guide"]);
    expect(await ids("--stage", "S2")).toEqual(["ui", "guide"]);
    expect(await ids("--status", "in_progress")).toEqual(["api"]);
    expect(await ids("--status", "blocked")).toEqual(["partner"]);
    expect(await ids("--status", "todo")).toEqual(["ui", "db", "guide"]);
    // The query matches id, title and outcome, ignoring case.
    expect(await ids("--query", "REST")).toEqual(["api", "guide"]);
    expect(await ids("--query", "Db")).toEqual(["db"]);
    expect(await ids("--query", "the ui")).toEqual(["ui"]);
    expect(await ids("--query", "nothing like it")).toEqual([]);
    expect(await ids("--limit", "2")).toEqual(["partner", "api"]);
    expect(await ids("--role", "backend", "--stage", "S1", "--status", "todo")).toEqual(["db"]);

    const full = await b.cli(["list", "--query", "api", "--json"]);
    expect(full.json()).toEqual({
      tasks: [
        {
          id: "api",
          title: "Build the API",
          role: "backend",
          stage: "S1",
          status: "in_progress",
          owner: "carol/a1",
          depends_on: [],
          external: false,
        },
      ],
    });
    const text = await b.cli(["list", "--stage", "S2"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("ui  todo  [backend · S2]  Build the UI\nguide  todo  [qa · S2]  Write the guide\n");
    expect((await b.cli(["list", "--query", "zzz"])).stdout).toBe("no task matches\n");

    for (const bad of [
      ["--status", "bogus"],
      ["--limit", "0"],
      ["--limit", "two"],
    ]) {
      const run = await b.cli(["list", ...bad]);
      expect(run.code, bad.join(" ")).toBe(2);
      expect(run.stderr).toContain(bad[1]);
    }
  });

  it("next picks the first todo task of the role whose dependencies are done, never a waiting external one", async () => {
    const next = async (b: Board, role: string) => {
      const run = await b.cli(["next", "--role", role, "--json"]);
      expect(run.code).toBe(0);
      return run.json<{ task: { id: string } | null }>().task?.id ?? null;
    };
    // partner comes first in the definitions but waits for its release.
    const fresh = boardRepo();
    expect(await next(fresh, "backend")).toBe("api");
    expect(await next(fresh, "qa")).toBe("guide");
    expect(await next(fresh, "nobody")).toBeNull();
    expect((await fresh.cli(["next", "--role", "backend"])).stdout).toBe("api  todo  [backend · S1]  Build the API\n");

    // api in progress: ui waits for it, db is next.
    const busy = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });
    expect(await next(busy, "backend")).toBe("db");

    // api done: ui, defined before db, is next.
    const done = entry("done", {
      history: [step("claim", "todo", "in_progress", "carol"), step("submit", "in_progress", "review", "carol")],
    });
    expect(await next(boardRepo({ tasks: { ...WAITING, api: done }, revision: 2 }), "backend")).toBe("ui");

    // Nothing claimable: JSON says null, text says so.
    const none = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1"), db: claimed("dave/d1") }, revision: 2 });
    expect((await none.cli(["next", "--role", "backend", "--json"])).json()).toEqual({ task: null });
    const text = await none.cli(["next", "--role", "backend"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("nothing to claim for role backend now\n");
  });
});

describe("identity", () => {
  it("acts as --as, else TASKGATE_LOGIN, else git config github.user, writing login/agent", async () => {
    const b = boardRepo();
    b.repo.git("config", "github.user", "mia");
    const ownerAfter = async (args: string[], env: Record<string, string>) => {
      const run = await b.cli(["claim", "api", "--agent", "a1", ...args, "--json"], env);
      expect(run.code).toBe(0);
      const owner = b.ledger().tasks.api!.owner;
      expect(run.json<{ owner: string }>().owner).toBe(owner);
      b.repo.git("checkout", "-q", "--", ".");
      return owner;
    };
    expect(await ownerAfter(["--as", "carol"], { TASKGATE_LOGIN: "dave" })).toBe("carol/a1");
    expect(await ownerAfter([], { TASKGATE_LOGIN: "dave" })).toBe("dave/a1");
    expect(await ownerAfter([], {})).toBe("mia/a1");
    // Without --agent the owner is the login itself.
    const plain = await b.cli(["claim", "api"], { TASKGATE_LOGIN: "dave" });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("api is in_progress, owned by dave");
    expect(b.ledger().tasks.api!.owner).toBe("dave");
    await expectAccepted(b, "dave");
  });

  it("cannot act for someone else past the check: an entry written --as dave fails in carol's pull request", async () => {
    const b = boardRepo();
    const run = await b.cli(["claim", "api", "--as", "dave", "--agent", "a1"]);
    expect(run.code).toBe(0);
    const { report } = await checkAs(b, "carol");
    expect(codesOf(report.violations)).toContain("owner-mismatch");
  });

  it("exits 2 when no login is known, naming the three ways to give one", async () => {
    const b = boardRepo();
    const before = treeHashes(b.dir);
    const run = spawnCli(["claim", "api", "--agent", "a1"], b.dir, anonymousEnv());
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--as");
    expect(run.stderr).toContain("TASKGATE_LOGIN");
    expect(run.stderr).toContain("github.user");
    expect(treeHashes(b.dir)).toEqual(before);
    // Read-only commands need no login.
    expect(spawnCli(["list", "--json"], b.dir, anonymousEnv()).status).toBe(0);
  });

  it("refuses a login that is not a GitHub login with exit 2", async () => {
    const b = boardRepo();
    const before = treeHashes(b.dir);
    const flag = await b.cli(["claim", "api", "--as", "bad login"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('"bad login" (from --as) is not a GitHub login');
    const env = await b.cli(["claim", "api"], { TASKGATE_LOGIN: "-dash" });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("TASKGATE_LOGIN");
    const agent = await b.cli(["claim", "api", "--as", "carol", "--agent", "a b"]);
    expect(agent.code).toBe(1);
    expect(agent.stdout).toContain("owner-mismatch");
    expect(treeHashes(b.dir)).toEqual(before);
  });
});

describe("claim", () => {
  it("writes todo → in_progress with one history entry, revision + 1, accepted by the check", async () => {
    const b = boardRepo({ revision: 7 });
    const run = await b.cli(["claim", "api", "--as", "carol", "--agent", "a1"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("taskgate claim: api is in_progress, owned by carol/a1\n  wrote state/tasks.json\n");
    const ledger = b.ledger();
    expect(ledger.revision).toBe(8);
    expect(ledger.tasks.api).toEqual({
      status: "in_progress",
      owner: "carol/a1",
      external_wait: false,
      blocked_by: [],
      history: [
        {
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          by: "carol/a1",
          action: "claim",
          from: "todo",
          to: "in_progress",
        },
      ],
    });
    expect(ledger.tasks.partner).toEqual(WAITING.partner);
    expect(porcelain(b.repo)).toEqual(["M state/tasks.json"]);
    const report = await expectAccepted(b, "carol");
    expect(report.conclusion).toBe("success");
  });

  it("refuses a task whose dependencies are not done (dependency-unmet), as the check does", async () => {
    const b = boardRepo();
    const refusal = await expectRefused(b, ["claim", "ui", "--as", "carol", "--agent", "a1"]);
    expect(codesOf(refusal.violations)).toEqual(["dependency-unmet"]);
    expect(refusal.violations[0]!.message).toBe("ui was claimed while api is not done");
    expect(await handWritten(b, "carol", ledgerFile({ ui: claimed("carol/a1") }, 1))).toEqual(["dependency-unmet"]);
  });

  it("refuses a second unfinished task for one owner (owner-limit), as the check does", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });
    const refusal = await expectRefused(b, ["claim", "db", "--as", "carol", "--agent", "a1"]);
    expect(codesOf(refusal.violations)).toEqual(["owner-limit"]);
    // Owners compare without regard to case, as GitHub logins do.
    const shouting = await expectRefused(b, ["claim", "db", "--as", "Carol", "--agent", "A1"]);
    expect(codesOf(shouting.violations)).toEqual(["owner-limit"]);
    const hand = ledgerFile({ api: claimed("carol/a1"), db: claimed("carol/a1") }, 2);
    expect(await handWritten(b, "carol", hand)).toEqual(["owner-limit"]);
    // Another agent of the same login may take it.
    b.repo.git("checkout", "-q", "main");
    expect((await b.cli(["claim", "db", "--as", "carol", "--agent", "a2"])).code).toBe(0);
  });

  it("refuses an owner that escalated before (agent-retired), as the check does", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });
    const escalated = await b.cli([
      "escalate",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--issue",
      b.input("issue.json", '{"blocker": "no schema"}\n'),
      "--handoff",
      b.input("handoff.md", "Stopped at the schema.\n"),
      "--resolver",
      "api-schema",
      "--definition",
      b.input(
        "def.json",
        JSON.stringify({ title: "Agree the schema", role: "backend", stage: "S1", reviewer_role: "qa" }),
      ),
    ]);
    expect(escalated.code).toBe(0);
    b.repo.commit("escalation merged", "carol");
    const ledger = b.read("state/tasks.json");

    const refusal = await expectRefused(b, ["claim", "db", "--as", "carol", "--agent", "a1"]);
    expect(codesOf(refusal.violations)).toEqual(["agent-retired"]);
    const resolver = await expectRefused(b, ["claim", "api-schema", "--as", "CAROL", "--agent", "A1"]);
    expect(codesOf(resolver.violations)).toEqual(["agent-retired"]);
    // Another agent of the same login is not retired.
    expect((await b.cli(["claim", "api-schema", "--as", "carol", "--agent", "a2"])).code).toBe(0);
    b.repo.git("checkout", "-q", "--", ".");
    const again = JSON.parse(ledger) as { revision: number; tasks: Record<string, LedgerEntry> };
    again.tasks.db = claimed("carol/a1");
    again.revision += 1;
    expect(await handWritten(b, "carol", { "state/tasks.json": JSON.stringify(again, null, 2) })).toEqual([
      "agent-retired",
    ]);
  });

  it("refuses a task that is not todo (illegal-transition) and names an unknown task", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: claimed("dave/d1") }, revision: 1 });
    const taken = await expectRefused(b, ["claim", "api", "--as", "dave", "--agent", "d2"]);
    expect(codesOf(taken.violations)).toContain("illegal-transition");
    const waiting = await expectRefused(b, ["claim", "partner", "--as", "carol"]);
    expect(codesOf(waiting.violations)).toContain("illegal-transition");

    const before = treeHashes(b.dir);
    const unknown = await b.cli(["claim", "apj", "--as", "carol"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("there is no task apj in planning/tasks.json");
    expect(unknown.stdout).toContain("Did you mean api?");
    expect(treeHashes(b.dir)).toEqual(before);
  });
});

describe("submit", () => {
  const base = (): Setup => ({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });

  it("never writes through a symlinked evidence folder to a place outside the checkout", async () => {
    const b = boardRepo(base());
    const elsewhere = scratch();
    b.repo.symlink("state/evidence", elsewhere);
    const ledger = b.read("state/tasks.json");
    const run = await b.cli([
      "submit",
      "api",
      "--as",
      "carol",
      "--evidence",
      b.input("run.md", "ok\n"),
      "--handoff",
      b.input("h.md", "h\n"),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("symlink");
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(b.read("state/tasks.json")).toBe(ledger);
    expect(existsSync(join(b.dir, "state/handoffs/api.md"))).toBe(false);
  });

  it("copies evidence and handoff from outside the checkout to their places, accepted by the check", async () => {
    const b = boardRepo(base());
    const evidence = b.input("api-tests.md", "npm test: 40 passed\n");
    const handoff = b.input("notes.md", "The API is at /v1.\n");
    const run = await b.cli([
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      evidence,
      "--handoff",
      handoff,
      "--json",
    ]);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      command: "submit",
      ok: true,
      task: "api",
      owner: "carol/a1",
      status: "review",
      evidence: "state/evidence/api-tests.md",
      handoff: "state/handoffs/api.md",
      written: ["state/evidence/api-tests.md", "state/handoffs/api.md", "state/tasks.json"],
      pending: [{ code: "approval-required", task: "api", approvers: ["role:qa"] }],
    });
    expect(b.read("state/evidence/api-tests.md")).toBe("npm test: 40 passed\n");
    expect(b.read("state/handoffs/api.md")).toBe("The API is at /v1.\n");
    const ledger = b.ledger();
    expect(ledger.revision).toBe(2);
    expect(ledger.tasks.api).toMatchObject({ status: "review", owner: "carol/a1" });
    expect(ledger.tasks.api!.history.at(-1)).toMatchObject({
      by: "carol/a1",
      action: "submit",
      from: "in_progress",
      to: "review",
      evidence: "state/evidence/api-tests.md",
      handoff: "state/handoffs/api.md",
    });
    const report = await expectAccepted(b, "carol");
    expect(report.conclusion).toBe("action_required");
    expect(report.pending).toMatchObject([{ code: "approval-required", task: "api", approvers: ["role:qa"] }]);
  });

  it("references evidence already under state/evidence/ instead of copying it", async () => {
    const b = boardRepo(base());
    b.repo.write({ "state/evidence/run.log": "all green\n", "state/handoffs/api.md": "done\n" });
    const run = await b.cli([
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      join(b.dir, "state/evidence/run.log"),
      "--handoff",
      join(b.dir, "state/handoffs/api.md"),
      "--json",
    ]);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ evidence: "state/evidence/run.log", written: ["state/tasks.json"] });
    expect(readdirSync(join(b.dir, "state/evidence"))).toEqual(["run.log"]);
    expect(b.ledger().tasks.api!.history.at(-1)).toMatchObject({ evidence: "state/evidence/run.log" });
    await expectAccepted(b, "carol");
  });

  it("never overwrites evidence of the same name with other content", async () => {
    const b = boardRepo({ ...base(), files: { "state/evidence/api-tests.md": "an older run\n" } });
    const refusal = await expectRefused(b, [
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      b.input("api-tests.md", "a newer run\n"),
      "--handoff",
      b.input("notes.md", "done\n"),
    ]);
    expect(codesOf(refusal.violations)).toEqual(["evidence-missing"]);
    expect(refusal.violations[0]!.message).toContain("state/evidence/api-tests.md exists with other content");
  });

  it("refuses a submit by someone who does not own the task (owner-mismatch), as the check does", async () => {
    const b = boardRepo(base());
    const args = ["--evidence", b.input("ev.md", "ok\n"), "--handoff", b.input("ho.md", "done\n")];
    const refusal = await expectRefused(b, ["submit", "api", "--as", "dave", ...args]);
    expect(codesOf(refusal.violations)).toEqual(["owner-mismatch"]);
    const hand = submittedByHand("dave");
    const codes = await handWritten(b, "dave", {
      ...hand,
      "state/evidence/ev.md": "ok\n",
      "state/handoffs/api.md": "done\n",
    });
    expect(codes).toContain("owner-mismatch");
  });

  it("refuses a handoff holding a secret (secret-detected) and never prints the secret", async () => {
    const b = boardRepo(base());
    const handoff = b.input("ho.md", `Deployed with\nGH=${TOKEN}\n`);
    const args = [
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      b.input("ev.md", "ok\n"),
      "--handoff",
      handoff,
    ];
    const before = treeHashes(b.dir);
    for (const json of [[], ["--json"]]) {
      const run = await b.cli([...args, ...json]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("secret-detected");
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
      expect(run.stdout + run.stderr).not.toContain(TOKEN.slice(4, 24));
    }
    expect(treeHashes(b.dir)).toEqual(before);
    const hand = submittedByHand("carol/a1");
    const codes = await handWritten(b, "carol", {
      ...hand,
      "state/evidence/ev.md": "ok\n",
      "state/handoffs/api.md": readFileSync(handoff, "utf8"),
    });
    expect(codes).toEqual(["secret-detected"]);
  });

  it("refuses empty evidence (evidence-missing) and evidence above the size limit, as the check does", async () => {
    const config = `${CONFIG}limits: { max_file_bytes: 1000 }\n`;
    const b = boardRepo({ ...base(), config });
    const handoff = b.input("ho.md", "done\n");
    const empty = await expectRefused(b, [
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      b.input("empty.md", ""),
      "--handoff",
      handoff,
    ]);
    expect(codesOf(empty.violations)).toEqual(["evidence-missing"]);

    const big = "x".repeat(2000);
    const oversized = await expectRefused(b, [
      "submit",
      "api",
      "--as",
      "carol",
      "--agent",
      "a1",
      "--evidence",
      b.input("big.log", big),
      "--handoff",
      handoff,
    ]);
    expect(oversized.violations.length).toBeGreaterThan(0);
    const submitEntry = (evidence: string) => submittedByHand("carol/a1", evidence);
    const byHand = await handWritten(b, "carol", {
      ...submitEntry("state/evidence/big.log"),
      "state/evidence/big.log": big,
      "state/handoffs/api.md": "done\n",
    });
    expect(codesOf(oversized.violations)).toEqual(byHand);
    b.repo.git("checkout", "-q", "main");
    const emptyByHand = await handWritten(b, "carol", {
      ...submitEntry("state/evidence/empty.md"),
      "state/evidence/empty.md": "",
      "state/handoffs/api.md": "done\n",
    });
    expect(emptyByHand).toEqual(["evidence-missing"]);
  });
});

/** The files an escalation of api by carol/a1 hands over. */
function escalation(b: Board, resolver: string, definition: unknown, extra: string[] = []): string[] {
  return [
    "escalate",
    "api",
    "--as",
    "carol",
    "--agent",
    "a1",
    "--issue",
    b.input("issue.json", '{"blocker": "the schema is not agreed"}\n'),
    "--handoff",
    b.input("handoff.md", "Stopped before the endpoints; see the issue.\n"),
    "--resolver",
    resolver,
    "--definition",
    b.input("resolver.json", typeof definition === "string" ? definition : JSON.stringify(definition)),
    ...extra,
  ];
}

const RESOLVER = {
  title: "Agree the schema",
  role: "backend",
  stage: "S1",
  reviewer_role: "qa",
  paths: ["src/schema/**"],
};

describe("escalate", () => {
  const base = (): Setup => ({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });

  it("writes the resolver, the blocked entry, the issue report and the handoff in one change", async () => {
    const b = boardRepo(base());
    const run = await b.cli(escalation(b, "api-schema", RESOLVER));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("api is blocked until api-schema is done; carol/a1 is retired");
    expect(run.stdout).toMatch(/^resolution_task: api-schema$/m);
    expect(run.stdout).toMatch(/^agent_must_exit: true$/m);
    expect(b.definitions().map((item) => item.id)).toEqual([...DEFS.map((item) => item.id), "api-schema"]);
    expect(b.definitions().at(-1)).toEqual(def("api-schema", { ...RESOLVER, outcome: "" }));
    const ledger = b.ledger();
    expect(ledger.revision).toBe(2);
    expect(ledger.tasks.api).toMatchObject({ status: "blocked", owner: null, blocked_by: ["api-schema"] });
    expect(ledger.tasks.api!.history.at(-1)).toMatchObject({
      by: "carol/a1",
      action: "escalate",
      from: "in_progress",
      to: "blocked",
    });
    expect(ledger.tasks["api-schema"]).toBeUndefined();
    expect(b.read("state/issues/api-a1.json")).toBe('{"blocker": "the schema is not agreed"}\n');
    expect(b.read("state/handoffs/api.md")).toBe("Stopped before the endpoints; see the issue.\n");
    expect(porcelain(b.repo)).toEqual([
      "?? state/handoffs/api.md",
      "?? state/issues/api-a1.json",
      "M planning/tasks.json",
      "M state/tasks.json",
    ]);
    await expectAccepted(b, "carol");
  });

  it("gives an external resolver a waiting ledger entry and says so in JSON", async () => {
    const b = boardRepo(base());
    const run = await b.cli(
      escalation(b, "vendor-fix", { ...RESOLVER, title: "Vendor fix", external: true }, ["--json"]),
    );
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      command: "escalate",
      ok: true,
      task: "api",
      status: "blocked",
      resolution_task: "vendor-fix",
      agent_must_exit: true,
      issue: "state/issues/api-a1.json",
      handoff: "state/handoffs/api.md",
    });
    expect(b.ledger().tasks["vendor-fix"]).toEqual({
      status: "blocked",
      owner: null,
      external_wait: true,
      blocked_by: [],
      history: [],
    });
    await expectAccepted(b, "carol");
  });

  it("refuses an existing id as resolver (id-reused), as the check does", async () => {
    const b = boardRepo(base());
    const refusal = await expectRefused(b, escalation(b, "db", { ...RESOLVER, title: "Redo db" }));
    expect(codesOf(refusal.violations)).toEqual(["id-reused"]);

    const blocked = claimed("carol/a1");
    const defs = [...DEFS, def("db", { ...RESOLVER, title: "Redo db" })];
    const codes = await handWritten(b, "carol", {
      "planning/tasks.json": JSON.stringify({ tasks: defs }, null, 2),
      ...ledgerFile(
        {
          api: {
            ...blocked,
            status: "blocked",
            owner: null,
            blocked_by: ["db"],
            history: [...blocked.history, step("escalate", "in_progress", "blocked", "carol/a1")],
          },
        },
        2,
      ),
      "state/issues/api-a1.json": "{}\n",
      "state/handoffs/api.md": "stopped\n",
    });
    expect(codes).toContain("id-reused");
  });

  it("refuses a resolver definition that is not JSON, lacks a title or names another id, and an issue that is not JSON", async () => {
    const b = boardRepo(base());
    const cases: [string, string[]][] = [
      ["not json", escalation(b, "fix", "{ title: nope")],
      ["no title", escalation(b, "fix", { role: "backend", stage: "S1", reviewer_role: "qa" })],
      ["other id", escalation(b, "fix", { ...RESOLVER, id: "other" })],
      ["an array", escalation(b, "fix", "[]")],
    ];
    for (const [what, args] of cases) {
      const refusal = await expectRefused(b, args);
      expect(codesOf(refusal.violations), what).toEqual(["state-invalid"]);
    }
    const issue = escalation(b, "fix", RESOLVER);
    issue[issue.indexOf("--issue") + 1] = b.input("issue.txt", "the schema is not agreed\n");
    const refusal = await expectRefused(b, issue);
    expect(codesOf(refusal.violations)).toEqual(["evidence-missing"]);
    expect(refusal.violations[0]!.message).toContain("not JSON");
  });
});

describe("reassign", () => {
  const base = (): Setup => ({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });

  it("refuses a reassignment by a non-maintainer (owner-mismatch), as the check does", async () => {
    const b = boardRepo(base());
    const refusal = await expectRefused(b, ["reassign", "api", "--as", "dave", "--owner", "dave", "--agent", "d9"]);
    expect(codesOf(refusal.violations)).toEqual(["owner-mismatch"]);
    const taken = claimed("carol/a1");
    const codes = await handWritten(
      b,
      "dave",
      ledgerFile(
        {
          api: {
            ...taken,
            owner: "dave/d9",
            history: [...taken.history, step("reassign", "in_progress", "in_progress", "dave/d9")],
          },
        },
        2,
      ),
    );
    expect(codes).toEqual(["owner-mismatch"]);
  });

  it("writes a maintainer's reassignment, accepted by the check with the maintainer as author", async () => {
    const b = boardRepo(base());
    const run = await b.cli(["reassign", "api", "--as", "mia", "--owner", "dave", "--agent", "d9", "--json"]);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      task: "api",
      owner: "dave/d9",
      previous_owner: "carol/a1",
      status: "in_progress",
    });
    const ledger = b.ledger();
    expect(ledger.revision).toBe(2);
    expect(ledger.tasks.api).toMatchObject({ status: "in_progress", owner: "dave/d9" });
    expect(ledger.tasks.api!.history.at(-1)).toMatchObject({
      by: "dave/d9",
      action: "reassign",
      from: "in_progress",
      to: "in_progress",
    });
    await expectAccepted(b, "mia");
  });

  it("exits 2 for an --owner that is not a login", async () => {
    const b = boardRepo(base());
    const run = await b.cli(["reassign", "api", "--as", "mia", "--owner", "not a login"]);
    expect(run.code).toBe(2);
  });
});

describe("release-external", () => {
  it("proposes the release of a waiting external resolver, pending the coordinator's approval", async () => {
    const b = boardRepo();
    const run = await b.cli(["release-external", "partner", "--as", "cora", "--json"]);
    expect(run.code).toBe(0);
    const done = run.json<{ written: string[]; pending: { code: string; task: string; approvers: string[] }[] }>();
    expect(done.written).toEqual(["state/tasks.json"]);
    expect(done.pending).toMatchObject([
      { code: "approval-required", task: "partner", approvers: ["role:coordinator"] },
    ]);
    expect(b.ledger().tasks.partner).toMatchObject({ status: "todo", owner: null, external_wait: false });
    expect(b.ledger().tasks.partner!.history).toMatchObject([
      { by: "cora", action: "release", from: "blocked", to: "todo" },
    ]);
    const report = await expectAccepted(b, "cora");
    expect(report.conclusion).toBe("action_required");
    expect(report.pending).toMatchObject([{ task: "partner", approvers: ["role:coordinator"] }]);
  });

  it("refuses to release a task that is no waiting external resolver", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: entry("blocked", { blocked_by: ["db"] }) }, revision: 0 });
    for (const id of ["api", "db"]) {
      const refusal = await expectRefused(b, ["release-external", id, "--as", "cora"]);
      expect(codesOf(refusal.violations), id).toEqual(["illegal-transition"]);
    }
  });
});

describe("packet", () => {
  const setup = (): Setup => {
    const done = entry("done", {
      history: [step("claim", "todo", "in_progress", "carol"), step("submit", "in_progress", "review", "carol")],
    });
    return {
      tasks: { ...WAITING, api: done },
      revision: 2,
      files: { "state/handoffs/api.md": `The API is at /v1.\nUse GH_KEY=${TOKEN} for the staging deploy.\n` },
    };
  };

  it("writes the definition, the dependencies' handoffs and the scope to --output, secrets redacted", async () => {
    const b = boardRepo(setup());
    const target = join(b.out, "ui-packet.md");
    const before = treeHashes(b.dir);
    const run = await b.cli(["packet", "ui", "--output", target]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`taskgate packet: wrote ${target}\n`);
    expect(treeHashes(b.dir)).toEqual(before);
    const packet = readFileSync(target, "utf8");
    expect(packet.startsWith("# ui: Build the UI\n")).toBe(true);
    expect(packet).toContain("- Role: backend · stage: S2 · reviewed by: qa");
    expect(packet).toContain("- Status: todo");
    expect(packet).toContain("## Scope");
    expect(packet).toContain("- src/ui/**");
    expect(packet).toContain("state/handoffs/ui.md");
    expect(packet).toContain("### api: Build the API (done)");
    expect(packet).toContain("The API is at /v1.");
    expect(packet).not.toContain(TOKEN);
    expect(packet).toContain("[redacted]");

    const printed = await b.cli(["packet", "ui"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(packet);
    const json = await b.cli(["packet", "ui", "--json"]);
    expect(json.json()).toEqual({ task: "ui", packet });
  });

  it("never writes its --output over a file of the task store", async () => {
    const b = boardRepo(setup());
    const before = treeHashes(b.dir);
    const run = await b.cli(["packet", "ui", "--output", join(b.dir, "state/tasks.json")]);
    expect(run.code).toBe(2);
    expect(treeHashes(b.dir)).toEqual(before);
    expect(b.ledger().tasks.api!.status).toBe("done");
  });

  it("refuses an unknown task with exit 1", async () => {
    const b = boardRepo(setup());
    const run = await b.cli(["packet", "nope"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("there is no task nope");
  });
});

describe("the lock", () => {
  it("refuses to write while a live process holds the lock, and unlock refuses to remove it", async () => {
    const b = boardRepo();
    const lock = { pid: process.pid, host: hostname(), at: "2026-11-01T09:00:00.000Z", command: "claim" };
    writeFileSync(join(b.dir, ".taskgate.lock"), `${JSON.stringify(lock)}\n`);
    const before = treeHashes(b.dir);
    const run = await b.cli(["claim", "api", "--as", "carol", "--agent", "a1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`locked by pid ${process.pid}`);
    expect(run.stderr).toContain("taskgate unlock --reason");
    expect(treeHashes(b.dir)).toEqual(before);

    const unlock = await b.cli(["unlock", "--reason", "x"]);
    expect(unlock.code).toBe(2);
    expect(unlock.stderr).toContain(`pid ${process.pid}`);
    expect(unlock.stderr).toContain("still running");
    expect(treeHashes(b.dir)).toEqual(before);
    expect(existsSync(join(b.dir, ".taskgate.unlock.log"))).toBe(false);
  });
});

describe("crash safety", () => {
  /** A child's environment that crashes after the `point`-th rename when the fixture is loaded. */
  function crashEnv(point: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, TASKGATE_CRASH_AFTER_RENAMES: point };
    delete env.TASKGATE_LOGIN;
    return env;
  }

  /** The files of a work tree with every history time replaced, so two runs at different times compare equal. */
  function contents(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const path of Object.keys(treeHashes(dir))) {
      out[path] = readFileSync(join(dir, path), "utf8").replace(/"at": "[^"]+"/g, '"at": "<time>"');
    }
    return out;
  }

  it("a run killed after two of four renames is completed by the next command after unlock", async () => {
    const setup: Setup = { tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 };
    const crashed = boardRepo(setup);
    const reference = boardRepo(setup);
    const original = contents(crashed.dir);

    const env = crashEnv("2");
    const killed = spawnCli(escalation(crashed, "api-schema", RESOLVER), crashed.dir, env, ["--require", CRASH]);
    expect(killed.signal).toBe("SIGKILL");
    expect(killed.stdout).toBe("");

    // Half written: the journal and the dead process's lock are left, two of the four files are new.
    const journal = JSON.parse(crashed.read(".taskgate.journal.json")) as { files: { path: string }[] };
    expect(journal.files.map((file) => file.path).sort()).toEqual([
      "planning/tasks.json",
      "state/handoffs/api.md",
      "state/issues/api-a1.json",
      "state/tasks.json",
    ]);
    expect(porcelain(crashed.repo).join("\n")).not.toContain(".taskgate");
    const lock = JSON.parse(crashed.read(".taskgate.lock")) as { pid: number };
    expect(lock.pid).toBe(killed.pid);
    const half = contents(crashed.dir);
    expect(half["planning/tasks.json"]).toContain('"id": "api-schema"');
    expect(half["state/issues/api-a1.json"]).toBe('{"blocker": "the schema is not agreed"}\n');
    expect(half["state/handoffs/api.md"]).toBeUndefined();
    expect(half["state/tasks.json"]).toBe(original["state/tasks.json"]);

    // The lock of the dead process blocks everyone until it is unlocked.
    const blocked = await crashed.cli(["list", "--json"]);
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toContain(`pid ${killed.pid}`);

    const unlock = spawnCli(["unlock", "--reason", "crashed"], crashed.dir, env);
    expect(unlock.status).toBe(0);
    expect(unlock.stdout).toContain(`removed the lock of pid ${killed.pid}`);
    expect(existsSync(join(crashed.dir, ".taskgate.lock"))).toBe(false);
    expect(crashed.read(".taskgate.unlock.log")).toContain('reason: "crashed"');

    // The next command completes the journal before it reads anything.
    const list = spawnCli(["list", "--json"], crashed.dir, env);
    expect(list.status).toBe(0);
    expect(list.stderr).toContain("completed an interrupted change");
    const rows = (JSON.parse(list.stdout) as { tasks: { id: string; status: string }[] }).tasks;
    expect(rows.find((row) => row.id === "api")?.status).toBe("blocked");
    expect(rows.map((row) => row.id)).toContain("api-schema");

    const complete = await reference.cli(escalation(reference, "api-schema", RESOLVER));
    expect(complete.code).toBe(0);
    const expected = contents(reference.dir);
    const recovered = contents(crashed.dir);
    delete recovered[".taskgate.unlock.log"];
    expect(recovered).toEqual(expected);
    expect(existsSync(join(crashed.dir, ".taskgate.journal.json"))).toBe(false);
    expect(existsSync(join(crashed.dir, ".taskgate.lock"))).toBe(false);
    expect(readdirSync(crashed.dir).filter((name) => name.includes(".taskgate.tmp"))).toEqual([]);
    expect(porcelain(crashed.repo).join("\n")).not.toContain(".taskgate");
    await expectAccepted(crashed, "carol");
  });

  it("ends in the complete escalation whichever rename the crash follows", async () => {
    const setup: Setup = { tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 };
    const reference = boardRepo(setup);
    expect((await reference.cli(escalation(reference, "api-schema", RESOLVER))).code).toBe(0);
    const expected = contents(reference.dir);
    for (const point of ["1", "3", "4"]) {
      const crashed = boardRepo(setup);
      const env = crashEnv(point);
      const killed = spawnCli(escalation(crashed, "api-schema", RESOLVER), crashed.dir, env, ["--require", CRASH]);
      expect(killed.signal, point).toBe("SIGKILL");
      expect(existsSync(join(crashed.dir, ".taskgate.journal.json")), point).toBe(true);
      expect(contents(crashed.dir), point).not.toEqual(expected);
      expect(spawnCli(["unlock", "--reason", "crashed"], crashed.dir, env).status, point).toBe(0);
      const next = await crashed.cli(["next", "--role", "backend", "--json"]);
      expect(next.code, point).toBe(0);
      expect(next.stderr, point).toContain("completed an interrupted change");
      // api is blocked now; the resolver is the first backend task that can be claimed.
      expect(next.json(), point).toMatchObject({ task: { id: "db" } });
      const recovered = contents(crashed.dir);
      delete recovered[".taskgate.unlock.log"];
      expect(recovered, point).toEqual(expected);
    }
  });
});

describe("local files stay out of git", () => {
  it("lists the lock, the journal and the unlock log in .git/info/exclude after the first write", async () => {
    const b = boardRepo();
    const exclude = join(b.dir, ".git/info/exclude");
    const listed = () => (existsSync(exclude) ? readFileSync(exclude, "utf8").split("\n") : []);
    expect(listed()).not.toContain("/.taskgate.lock");
    expect((await b.cli(["claim", "api", "--as", "carol", "--agent", "a1"])).code).toBe(0);
    expect(listed()).toEqual(
      expect.arrayContaining(["/.taskgate.lock", "/.taskgate.journal.json", "/.taskgate.unlock.log"]),
    );
    const once = readFileSync(exclude, "utf8");
    expect((await b.cli(["claim", "db", "--as", "dave"])).code).toBe(0);
    expect(readFileSync(exclude, "utf8")).toBe(once);

    b.repo.write({ ".taskgate.lock": "{}\n", ".taskgate.journal.json": "{}\n", ".taskgate.unlock.log": "x\n" });
    expect(porcelain(b.repo)).toEqual(["M state/tasks.json"]);
  });
});

describe("usage errors", () => {
  it("exit 2 for options that do not apply, phases commands, missing options and arguments", async () => {
    const b = boardRepo({ tasks: { ...WAITING, api: claimed("carol/a1") }, revision: 1 });
    const ev = b.input("ev.md", "ok\n");
    const before = treeHashes(b.dir);
    const cases: [string[], string][] = [
      [["claim", "api", "--as", "carol", "--evidence", ev], "--evidence does not apply to `claim`"],
      [["list", "--as", "carol"], "--as does not apply to `list`"],
      [["move", "api", "done", "--as", "carol"], "`move` is a command of the phases preset"],
      [["new", "t1", "--as", "carol"], "`new` is a command of the phases preset"],
      [["submit", "api", "--as", "carol", "--handoff", ev], "submit needs --evidence FILE"],
      [["submit", "api", "--as", "carol", "--evidence", ev], "submit needs --handoff FILE"],
      [
        ["escalate", "api", "--as", "carol", "--issue", ev, "--handoff", ev, "--definition", ev],
        "escalate needs --resolver ID",
      ],
      [
        ["escalate", "api", "--as", "carol", "--issue", ev, "--handoff", ev, "--resolver", "x"],
        "escalate needs --definition FILE",
      ],
      [["claim", "--as", "carol"], "claim needs exactly one task id"],
      [["claim", "api", "db", "--as", "carol"], "claim needs exactly one task id"],
      [["next"], "next needs --role ROLE"],
      [["unlock"], "unlock needs --reason"],
      [["submit", "api", "--as", "carol", "--evidence", join(b.out, "missing.md"), "--handoff", ev], "cannot read"],
    ];
    for (const [args, message] of cases) {
      const run = await b.cli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain(message);
      const json = await b.cli([...args, "--json"]);
      expect(json.code, args.join(" ")).toBe(2);
      expect(json.json<{ error: { message: string } }>().error.message).toContain(message);
    }
    expect(treeHashes(b.dir)).toEqual(before);
  });

  it("an unknown option is a usage error, answered in JSON under --json", async () => {
    const b = boardRepo();
    const text = await b.cli(["claim", "api", "--as", "carol", "--bogus"]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain("--bogus");
    const json = await b.cli(["claim", "api", "--as", "carol", "--bogus", "--json"]);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe("");
    expect(json.json<{ error: { message: string } }>().error.message).toContain("--bogus");
  });
});
