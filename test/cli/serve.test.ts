/**
 * `taskgate serve`: the App's pages for a local checkout, on 127.0.0.1 only, read afresh on every
 * request. The server runs in-process on port 0 over a temporary repository; the last test runs the
 * built CLI and stops it with SIGINT.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parsePort, startServer, type RunningServer } from "../../src/cli/serve.js";
import { CONTENT_SECURITY_POLICY, STYLESHEET_PATH } from "../../src/pages/layout.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const SPEC = "# Spec\nThe login form accepts email and password.\n";
const HOSTILE = '<img src=x onerror="alert(1)">';

function repository(): TempRepo {
  const repo = tempRepo();
  cleanup.push(() => repo.remove());
  return repo;
}

/** main: a phases config, one task at research and one at new; `feature` moves login to implement and edits CI. */
function phasesRepo(): TempRepo {
  const repo = repository();
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/login/.state": "research\n",
    "tasks/login/SPEC.md": SPEC,
    "tasks/signup/.state": "new\n",
    "src/app.ts": "export const app = 1;\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/login/.state": "implement\n", ".github/workflows/ci.yml": "on: push\n" });
  repo.commit("work on feature");
  repo.git("checkout", "-q", "main");
  return repo;
}

/** examples/board on main, with a hostile title on API-1. */
function boardRepo(): TempRepo {
  const repo = repository();
  cpSync(join(ROOT, "examples", "board"), repo.dir, { recursive: true });
  const path = join(repo.dir, "planning", "tasks.json");
  const plan = JSON.parse(readFileSync(path, "utf8")) as { tasks: { id: string; title: string }[] };
  plan.tasks[0]!.title = HOSTILE;
  writeFileSync(path, JSON.stringify(plan, null, 2));
  repo.commit("the board");
  return repo;
}

async function serveRepo(repo: TempRepo): Promise<RunningServer> {
  const running = await startServer({ repoDir: repo.dir, port: 0 });
  cleanup.push(() => running.close());
  return running;
}

async function get(running: RunningServer, path: string): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(new URL(path, running.url));
  return { status: response.status, body: await response.text(), headers: response.headers };
}

describe("taskgate serve", () => {
  it("serves the repository page at / with every task, and filters by ?state=", async () => {
    const running = await serveRepo(phasesRepo());
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const all = await get(running, "/");
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(all.body).toContain("login");
    expect(all.body).toContain("signup");
    expect(all.body).toContain("Tasks (2 of 2)");
    expect(all.body).toContain('action="/"');
    const filtered = await get(running, "/?state=research");
    expect(filtered.body).toContain("Tasks (1 of 2)");
    expect(filtered.body).toContain("<code>login</code>");
    expect(filtered.body).not.toContain("<code>signup</code>");
  });

  it("reads the checkout afresh on each request", async () => {
    const repo = phasesRepo();
    const running = await serveRepo(repo);
    expect((await get(running, "/")).body).toContain("Tasks (2 of 2)");
    repo.write({ "tasks/logout/.state": "new\n" });
    repo.commit("another task");
    expect((await get(running, "/")).body).toContain("Tasks (3 of 3)");
  });

  it("serves a pull request's page for ?base=&head=: the move and a violation with its hint", async () => {
    const repo = phasesRepo();
    const running = await serveRepo(repo);
    const page = await get(running, "/pull?base=main&head=feature");
    const check = await runCli(["check", "--base", "main", "--head", "feature", "--json"], repo.dir);
    const report = check.json() as { violations: { code: string }[] };
    expect(page.status).toBe(200);
    expect(page.body).toContain("Problems to fix");
    expect(page.body).toContain("research");
    expect(page.body).toContain("implement");
    expect(report.violations.length).toBeGreaterThan(0);
    for (const violation of report.violations) expect(page.body).toContain(violation.code);
    expect(page.body).toContain(`Problems (${report.violations.length})`);
    expect(page.body).toContain('href="/"');
  });

  it("shows the reviews of --pr on the pull request's page, their bodies as text", async () => {
    const repo = phasesRepo();
    const review = {
      user: { login: "bob" },
      state: "APPROVED",
      body: HOSTILE,
      submitted_at: "2026-01-02T03:04:05Z",
      commit_id: repo.git("rev-parse", "feature"),
    };
    const running = await startServer({ repoDir: repo.dir, port: 0, pr: { author: "carol", reviews: [review] } });
    cleanup.push(() => running.close());
    const page = await get(running, "/pull?base=main&head=feature");
    expect(page.body).toContain("Reviews (1)");
    expect(page.body).toContain("bob");
    expect(page.body).not.toContain(HOSTILE);
  });

  it("serves the stylesheet as text/css, and every answer with the App's headers", async () => {
    const running = await serveRepo(phasesRepo());
    const css = await get(running, STYLESHEET_PATH);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.body).toContain("color-scheme: light dark");
    for (const path of ["/", STYLESHEET_PATH, "/pull?base=main&head=feature", "/nowhere"]) {
      const { headers } = await get(running, path);
      expect(headers.get("content-security-policy"), path).toBe(CONTENT_SECURITY_POLICY);
      expect(headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(headers.get("cache-control"), path).toBe("no-store");
    }
  });

  it("answers 404 to an unknown path, and a page with the message and a hint to a bad ref", async () => {
    const running = await serveRepo(phasesRepo());
    const missing = await get(running, "/taskgate/local/repo");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("Not found");
    const bad = await get(running, "/pull?base=main&head=no-such-branch");
    expect(bad.status).toBe(404);
    expect(bad.body).toContain("ref not found: no-such-branch");
    expect(bad.body).toContain("Hint:");
    expect(bad.body).not.toMatch(/\bat .*\.(ts|js):\d+/);
    const none = await get(running, "/pull?base=main");
    expect(none.status).toBe(400);
    expect(none.body).toContain("needs base and head");
  });

  it("shows a hostile task title as text", async () => {
    const running = await serveRepo(boardRepo());
    const page = await get(running, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain("API-1");
    expect(page.body).not.toContain(HOSTILE);
    expect(page.body).toContain("&lt;img src=x onerror=");
  });

  it("names the repository as origin does, and links its files on GitHub", async () => {
    const repo = phasesRepo();
    repo.git("remote", "add", "origin", "git@github.com:acme/widgets.git");
    const running = await serveRepo(repo);
    expect((await get(running, "/")).body).toContain("Tasks of acme/widgets");
    expect((await get(running, "/pull?base=main&head=feature")).body).toContain("https://github.com/acme/widgets/");
  });

  it("links nowhere without an origin on GitHub: no remote, or a remote elsewhere", async () => {
    for (const remote of [
      undefined,
      "git@gitlab.example.com:acme/widgets.git",
      "https://git.example.org/acme/widgets",
    ]) {
      const repo = phasesRepo();
      if (remote) repo.git("remote", "add", "origin", remote);
      const running = await serveRepo(repo);
      for (const path of ["/", "/pull?base=main&head=feature"]) {
        const page = await get(running, path);
        expect(page.status, `${remote} ${path}`).toBe(200);
        expect(page.body, `${remote} ${path}`).not.toMatch(/href="https?:/);
        expect(page.body, `${remote} ${path}`).not.toContain("undefined");
      }
      const home = (await get(running, "/")).body;
      expect(home).toContain(remote ? "Tasks of acme/widgets" : "Tasks of local/");
      expect((await get(running, "/pull?base=main&head=feature")).body).toContain("tasks/login/.state");
    }
  });

  it("says that teams stay by name, since serve reads no GitHub", async () => {
    const repo = phasesRepo();
    repo.write({ ".github/taskgate.yml": 'preset: phases\napprovals:\n  approvers: ["@acme/leads", "lee"]\n' });
    repo.commit("a team approves");
    repo.git("checkout", "-q", "feature");
    repo.git("merge", "-q", "--no-edit", "main");
    repo.write({ "tasks/signup/.state": "research:awaiting_approval\n", "tasks/signup/SPEC.md": SPEC });
    repo.write({ "tasks/signup/RESEARCH.md": "r\n" });
    repo.commit("signup waits");
    const running = await serveRepo(repo);
    const home = (await get(running, "/")).body;
    expect(home).toContain("@acme/leads");
    expect(home).toContain("taskgate serve reads no GitHub: a team is shown by its name, not by its members.");
    const pull = (await get(running, "/pull?base=main&head=feature")).body;
    expect(pull).toContain("taskgate serve reads no GitHub");
  });

  it("listens on 127.0.0.1 only", async () => {
    const running = await serveRepo(phasesRepo());
    const address = running.server.address();
    expect(address).toMatchObject({ address: "127.0.0.1", family: "IPv4" });
  });

  it("validates --port: 0 to 65535", async () => {
    expect(parsePort(undefined)).toBe(0);
    expect(parsePort("0")).toBe(0);
    expect(parsePort("8080")).toBe(8080);
    for (const bad of ["65536", "-1", "abc", "8080x", ""]) expect(() => parsePort(bad), bad).toThrow(/--port/);
    const repo = phasesRepo();
    const run = await runCli(["serve", "--port", "70000"], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--port must be a number from 1 to 65535");
  });

  it("prints one line at start and stops cleanly on SIGINT (the built CLI)", async () => {
    if (!existsSync(join(ROOT, "dist/cli/main.js"))) throw new Error("dist/ is missing: run `npm run build`");
    const repo = phasesRepo();
    const child = spawn(process.execPath, [join(ROOT, "bin/taskgate.js"), "serve", "--port", "0"], {
      cwd: repo.dir,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
    });
    cleanup.push(() => void child.kill("SIGKILL"));
    let stdout = "";
    const url = await new Promise<string>((done, fail) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^taskgate serve: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout);
        if (match) done(match[1]!);
      });
      child.once("exit", (code) => fail(new Error(`exited ${code}: ${stdout}`)));
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("login");
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stdout).toBe(`taskgate serve: ${url}\n`);
  });
});
