/**
 * The App's pages with its own renderer, over HTTP on this machine, GitHub faked behind nock: a
 * signed-in visitor who may read the repository sees the pull request's evaluation and the default
 * branch's tasks, read with the same requests as a check; the stylesheet is served beside them; a
 * visitor without access sees nothing of the repository.
 */
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { Octokit } from "@octokit/rest";
import { CONTENT_SECURITY_POLICY } from "../../src/app/pages/http.js";
import { webHostOf } from "../../src/app/pages/views.js";
import { evaluatePullRequest } from "../../src/github/pull-request.js";
import { STYLESHEET, STYLESHEET_PATH } from "../../src/pages/layout.js";
import { apiFor, kinds } from "../github/helpers.js";
import { board, def, entry, step } from "../helpers/board.js";
import { FakeGitHub, type RecordedRequest } from "../helpers/fake-github.js";
import { repositoryPage, useApp } from "../helpers/pages.js";
import { appSandbox } from "../helpers/probot.js";
import { importedRepo, phasesTasks, reviewBoard } from "../helpers/scale.js";
import type { TempRepo } from "../helpers/git.js";
import { expectSafe } from "../pages/helpers.js";

const sandbox = appSandbox();
beforeEach(() => nock.enableNetConnect("127.0.0.1"));

const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>`;

/** The App on 127.0.0.1, with its pages on and its own renderer. */
const serve = useApp();

/** A browser that keeps the cookies the server sets. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async get(url: string): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      if (/Max-Age=0/.test(line)) this.cookies.delete(pair!.slice(0, at));
      else this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  }

  /** Signs in through the fake GitHub's authorize page. */
  async signIn(base: string): Promise<void> {
    const login = await this.get(`${base}/taskgate/login`);
    const authorize = await this.get(login.headers.get("location")!);
    const back = await this.get(authorize.headers.get("location")!);
    expect(back.status).toBe(302);
  }
}

/**
 * A phases repository whose pull request moves task `a` to awaiting approval (legal) and task `b`
 * from research straight to done (a problem at its state file).
 */
function phasesPull(): FakeGitHub {
  const repo = sandbox.repo();
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/a/.state": "research\n",
    "tasks/a/SPEC.md": "s\n",
    "tasks/b/.state": "research\n",
    "tasks/b/SPEC.md": "s\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/a/.state": "research:awaiting_approval\n", "tasks/b/.state": "done\n" });
  repo.commit("moves", "carol");
  return sandbox.github(repo, { head: "feature" });
}

/** A board on the default branch: one task with a hostile title waiting for review, one blocked by it. */
function boardRepository(): FakeGitHub {
  const repo = sandbox.repo();
  repo.write({
    ".github/taskgate.yml": "preset: board\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n",
    ...(board(
      [def("t1", { title: HOSTILE }), def("t2", { title: "Second task", depends_on: ["t1"] })],
      {
        t1: entry("review", {
          owner: "carol",
          history: [
            step("claim", "todo", "in_progress", "carol"),
            step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/t1.md" }),
          ],
        }),
        t2: entry("todo"),
      },
      3,
      { "state/evidence/t1.md": "ok\n" },
    ) as Record<string, string>),
  });
  repo.commit("board", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.commit("nothing", "carol");
  return sandbox.github(repo, { head: "feature" });
}

/** What reading the page itself cost: every request but the visitor's access check and the App's installation. */
function pageReads(requests: readonly RecordedRequest[]): string[] {
  return kinds(
    requests.filter(
      (request) =>
        !request.path.includes("/access_tokens") &&
        !request.path.endsWith("/installation") &&
        request.headers?.authorization !== "Bearer ghu_dana",
    ),
  );
}

describe("the pull request's page", () => {
  it("shows the evaluation at the head: each move, each problem linked to GitHub, who may approve", async () => {
    const fake = phasesPull();
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const head = fake.sha("feature");
    fake.reviews.push({
      user: { login: "erin", type: "User" },
      state: "APPROVED",
      commit_id: head,
      submitted_at: "2026-11-30T09:00:00Z",
      body: HOSTILE,
    } as never);
    const before = fake.requests.length;
    const page = await browser.get(`${url}/taskgate/acme/web/pull/${fake.number}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    const html = await page.text();
    expectSafe(html);
    expect(html).toContain(`acme/web at ${head.slice(0, 7)}`);
    expect(html).toMatch(/research[\s\S]{0,200}research:awaiting_approval/);
    expect(html).toContain(`href="https://github.com/acme/web/blob/${head}/tasks/b/.state#L1"`);
    expect(html).toContain("names an unknown state &quot;done&quot;");
    expect(html).toContain("anyone with write permission");
    expect(html).toContain("Reviews (1)");
    expect(html).toContain('href="https://github.com/erin"');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`);
    expect(html).toContain("<svg");

    // The same requests as the evaluation a check makes, and nothing more.
    const served = pageReads(fake.requests.slice(before));
    fake.requests.length = 0;
    const evaluation = await evaluatePullRequest(apiFor(fake), fake.number);
    expect(evaluation?.report.violations.length).toBeGreaterThan(0);
    expect(served).toEqual(pageReads(fake.requests));
    expect(served.length).toBeGreaterThan(0);
    expect(fake.schemaErrors).toEqual([]);
  });

  it("names the members of a team that may approve, read in one batch more than the evaluation's", async () => {
    const repo = sandbox.repo();
    repo.write({
      ".github/taskgate.yml": 'preset: phases\napprovals:\n  approvers: ["@acme/leads", "@acme/gone", "lee"]\n',
      "tasks/a/.state": "research\n",
      "tasks/a/SPEC.md": "s\n",
    });
    repo.commit("base", "alice");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ "tasks/a/.state": "research:awaiting_approval\n", "tasks/a/RESEARCH.md": "r\n" });
    repo.commit("moves", "carol");
    const fake = sandbox.github(repo, { head: "feature" });
    fake.teams["@acme/leads"] = ["lena", "lou"];
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const before = fake.requests.length;
    const html = await (await browser.get(`${url}/taskgate/acme/web/pull/${fake.number}`)).text();
    expect(html).toContain(
      '<span class="mono">@acme/leads</span> (<a href="https://github.com/lena">lena</a>, <a href="https://github.com/lou">lou</a>)',
    );
    expect(html).toContain('<span class="mono">@acme/gone</span>,');
    expect(html).toContain("The members of @acme/gone could not be listed");
    expect(fake.teamQueries).toBe(2);
    const served = pageReads(fake.requests.slice(before));
    fake.requests.length = 0;
    await evaluatePullRequest(apiFor(fake), fake.number);
    expect(served).toEqual([...pageReads(fake.requests), "Batch"]);
  });

  it("is a 404 for a pull request that does not exist", async () => {
    const fake = phasesPull();
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    fake.missingPulls.add(fake.number + 100);
    const page = await browser.get(`${url}/taskgate/acme/web/pull/${fake.number + 100}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("tasks/");
  });
});

describe("the repository page", () => {
  it("lists every task of the default branch, a hostile title as text, with the audit's reads", async () => {
    const fake = boardRepository();
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const before = fake.requests.length;
    const page = await browser.get(`${url}/taskgate/acme/web`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expectSafe(html);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("t1");
    expect(html).toContain("t2");
    expect(html).toContain("Second task");
    expect(html).toContain("quinn");
    // The default branch's head, then one listing of folders (the root, .github, planning and state
    // at once) and one batch of blobs: the config with the board's two files.
    expect(pageReads(fake.requests.slice(before))).toEqual([
      "DefaultBranch",
      "GET /git/trees/<sha> recursive",
      "Batch",
    ]);
  });

  it("filters by the query string", async () => {
    const fake = boardRepository();
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const html = await (await browser.get(`${url}/taskgate/acme/web?state=todo`)).text();
    expect(html).toContain("Second task");
    expect(html).not.toContain("&lt;script&gt;");
  });

  it("says so when the default branch has no config, and shows no tasks", async () => {
    const repo = sandbox.repo();
    repo.write({ "tasks/a/.state": "research\n", "README.md": "r\n" });
    repo.commit("base", "alice");
    repo.git("checkout", "-q", "-b", "feature");
    repo.commit("nothing", "carol");
    const fake = sandbox.github(repo, { head: "feature" });
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const page = await browser.get(`${url}/taskgate/acme/web`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("taskgate is not configured on main.");
    expect(html).not.toContain("tasks/a");
  });

  it("links to the GitHub the installation talks to: github.com, or an Enterprise host", () => {
    expect(webHostOf(new Octokit() as never)).toBe("github.com");
    expect(webHostOf(new Octokit({ baseUrl: "https://ghe.example.com/api/v3" }) as never)).toBe("ghe.example.com");
  });
});

describe("what every visitor gets", () => {
  it("the stylesheet, as text/css under the same policy, without signing in", async () => {
    const fake = phasesPull();
    const url = await serve(fake);
    const answer = await fetch(`${url}${STYLESHEET_PATH}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/css/);
    expect(answer.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(await answer.text()).toBe(STYLESHEET);
    expect((await fetch(`${url}/taskgate/-/other.css`)).status).toBe(404);
  });

  it("a 404 with no task data for a visitor who may not read the repository, and no reads of it", async () => {
    const fake = boardRepository();
    fake.oauth.readers.clear();
    const url = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const before = fake.requests.length;
    for (const path of ["/taskgate/acme/web", `/taskgate/acme/web/pull/${fake.number}`]) {
      const page = await browser.get(`${url}${path}`);
      expect(page.status, path).toBe(404);
      const html = await page.text();
      expect(html).not.toContain("t1");
      expect(html).not.toContain("Second task");
      expect(html).not.toContain("alert");
    }
    expect(pageReads(fake.requests.slice(before))).toEqual([]);
  });
});

/** A read-only repository of `files`, removed after the test. */
function imported(files: ReadonlyMap<string, string>): TempRepo {
  const repo = importedRepo(files);
  sandbox.repos.push(repo);
  return repo;
}

/** A board of `count` tasks, a fifth of them waiting for review by role qa (a login and a team). */
function boardOf(count: number, qa?: string): Map<string, string> {
  return reviewBoard(count, qa);
}

/** A phases store of `count` tasks (`test/helpers/scale.ts`), with a gate approved by a role with a team. */
function phasesOf(count: number, tasksDir = "tasks"): Map<string, string> {
  const files = new Map<string, string>();
  for (const [path, text] of phasesTasks(count)) files.set(path.replace(/^tasks\//, `${tasksDir}/`), text);
  files.set(`${tasksDir}/a/.state`, "research:awaiting_approval\n");
  files.set(`${tasksDir}/a/SPEC.md`, "s\n");
  files.set(
    ".github/taskgate.yml",
    `preset: phases\n${tasksDir === "tasks" ? "" : `workflow:\n  tasks_dir: ${tasksDir}\n`}roles:\n  leads: [lee, "@acme/leads"]\napprovals:\n  approvers: ["role:leads"]\n`,
  );
  return files;
}

/** The repository page of the fake's repository, through the App's renderer; and what it cost. */
async function repositoryPageOf(fake: FakeGitHub): Promise<{ html: string; reads: string[] }> {
  const before = fake.requests.length;
  const html = await repositoryPage(fake);
  return { html: html!, reads: kinds(fake.requests.slice(before)) };
}

describe("the repository page's reads", () => {
  it("a board: the head, one recursive listing, one batch, and the team's members in one more", async () => {
    const fake = sandbox.github(imported(boardOf(100)), { head: "main" });
    fake.teams["@acme/qa"] = ["rita", "dev0"];
    const { html, reads } = await repositoryPageOf(fake);
    expect(reads).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch"]);
    expect(fake.teamQueries).toBe(1);
    // t0 is dev0's: dev0 never reviews it, rita and quinn may.
    expect(html).toMatch(
      /<code>t0<\/code> \(dev0\)[\s\S]*?May review:<\/strong> <span class="mono">quinn<\/span>, <span class="mono">rita<\/span><\/p>/,
    );
    expect(html).not.toContain("@acme/qa");
    expect(fake.schemaErrors).toEqual([]);
  });

  it("a phases store: the head, one recursive listing, one batch, and the team's members in one more", async () => {
    const fake = sandbox.github(imported(phasesOf(100)), { head: "main" });
    fake.teams["@acme/leads"] = ["lena"];
    const { html, reads } = await repositoryPageOf(fake);
    expect(reads).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch"]);
    expect(html).toContain("t00042");
    expect(html).toMatch(
      /<code>a<\/code>[\s\S]*?May review:<\/strong> <span class="mono">lee<\/span>, <span class="mono">lena<\/span>/,
    );
  });

  /** The repository page of a generated repository of `count` tasks, in a fake of its own. */
  async function readsAt(files: (count: number) => Map<string, string>, count: number): Promise<string[]> {
    const fake = sandbox.github(imported(files(count)), { head: "main", name: `${files.name}-${count}` });
    fake.teams[files === boardOf ? "@acme/qa" : "@acme/leads"] = ["rita"];
    const page = await repositoryPageOf(fake);
    expect(page.html).toContain(`of ${files === boardOf ? count : count + 1})`);
    expect(page.html).toContain("rita");
    nock.cleanAll(); // the next repository's fake answers alone
    return page.reads;
  }

  it("a board of 10,000 tasks costs the requests a board of 100 costs", async () => {
    const small = await readsAt(boardOf, 100);
    expect(small).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch"]);
    expect(await readsAt(boardOf, 10_000)).toEqual(small);
  }, 60_000);

  it("a phases store of 10,000 tasks reads its blobs in the one batch 100 tasks take", async () => {
    const small = await readsAt(phasesOf, 100);
    expect(small).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch"]);
    const large = await readsAt(phasesOf, 10_000);
    // Only the state files are read, and tasks share their contents: one batch as for 100 tasks.
    expect(large.filter((kind) => kind === "Batch")).toEqual(["Batch", "Batch"]);
    // GitHub cuts a recursive listing past 7 MB (10,000 task folders, 55,000 entries): the folders it
    // left out are listed 200 to a request, as a check lists them.
    expect(large.slice(0, 2)).toEqual(small.slice(0, 2));
    // The store's own recursive listing is cut too; what neither holds whole is listed by folders.
    expect(large.slice(2, -2).filter((kind) => kind !== "Folders")).toEqual(["GET /git/trees/<sha> recursive"]);
    expect(large.length).toBeLessThan(30);
  }, 120_000);

  it("a store the config moves costs one more batch: the listing of the root holds it", async () => {
    const fake = sandbox.github(imported(phasesOf(50, "work/tasks")), { head: "main" });
    const { html, reads } = await repositoryPageOf(fake);
    // The one listing holds the moved store too: only its batch is one more.
    expect(reads).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch", "Batch"]);
    expect(html).toContain("t00042");
  });

  it("names a team GitHub does not show, and says its members could not be listed", async () => {
    const fake = sandbox.github(imported(boardOf(10)), { head: "main" });
    fake.organizations.add("acme");
    const { html, reads } = await repositoryPageOf(fake);
    expect(reads).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch", "Batch"]);
    expect(html).toContain('<span class="mono">@acme/qa</span>');
    expect(html).toContain("The members of @acme/qa could not be listed");
  });

  it("reads no team when no reviewer names one", async () => {
    const fake = sandbox.github(imported(boardOf(10, "[quinn]")), { head: "main" });
    const { reads } = await repositoryPageOf(fake);
    expect(reads).toEqual(["DefaultBranch", "GET /git/trees/<sha> recursive", "Batch"]);
    expect(fake.teamQueries).toBe(0);
  });
});
