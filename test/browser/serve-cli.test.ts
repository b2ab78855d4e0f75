/**
 * `taskgate serve` in a real browser: the built CLI on a local checkout (a board with hostile
 * titles and a `--pr` review with a hostile body; a phases repository; a task folder with a hostile
 * name; a board of more tasks than a page holds), its repository page and a pull request's page, the filters and paging without
 * JavaScript, every request on its own origin, the pages' policy on every document, hostile text as
 * text, and the pages' structure.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/pages/layout.js";
import { PAGE_SIZE } from "../../src/pages/repository.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";
import {
  BROWSER_TIMEOUT,
  ROOT,
  bodyText,
  expectAccessible,
  expectNothingInjected,
  keepLocal,
  launchChromium,
  offOrigin,
  recordDialogs,
  recordRequests,
  useBrowser,
} from "./browser.js";
import {
  BOARD_TASKS,
  HOSTILE_PIECES,
  HOSTILE_TITLES,
  SECRET_TEXT,
  TOKEN,
  boardRepository,
  largeBoard,
  phasesRepository,
} from "./fixtures.js";

const chromium = useBrowser();
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
}, BROWSER_TIMEOUT);

function repository(): TempRepo {
  const repo = tempRepo();
  cleanup.push(() => repo.remove());
  return repo;
}

/** `taskgate serve --port 0 [args]` from the build, in `dir`; its address once it prints it. Stopped with SIGINT. */
async function serveCli(dir: string, args: string[] = []): Promise<string> {
  if (!existsSync(join(ROOT, "dist/cli/main.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before the browser tests of `taskgate serve`");
  }
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [join(ROOT, "bin/taskgate.js"), "serve", "--port", "0", ...args],
    { cwd: dir, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } },
  );
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  cleanup.push(async () => {
    child.kill("SIGINT");
    await exited;
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((done, fail) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^taskgate serve: (http:\/\/127\.0\.0\.1:\d+)\/\n/.exec(stdout);
      if (match) done(match[1]!);
    });
    void exited.then((code) => fail(new Error(`taskgate serve exited ${code}: ${stdout}${stderr}`)));
  });
}

/** A `--pr` file (in a folder removed after the test): the author and one review. */
function prFile(author: string, review: { login: string; state: string; body: string; commit: string }): string {
  const folder = mkdtempSync(join(tmpdir(), "taskgate-pr-"));
  cleanup.push(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "pr.json");
  const { login, state, body, commit } = review;
  const reviews = [{ user: { login }, state, body, submitted_at: "2026-11-30T11:30:00Z", commit_id: commit }];
  writeFileSync(path, JSON.stringify({ author, reviews }));
  return path;
}

/** The task table's rows, each as its cells' text. */
function taskRows(page: Page): Promise<string[][]> {
  return page
    .locator('section[aria-labelledby="tasks"] table tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((cell) => cell.innerText.trim())));
}

describe("the browser tests", () => {
  it("fail, saying how to install Chromium, when it is missing", async () => {
    await expect(launchChromium("/nonexistent/chromium")).rejects.toThrow(
      "Chromium is missing at /nonexistent/chromium: the browser tests (test/browser/) drive Debian's chromium " +
        "package. Install it with `apt-get install chromium`",
    );
  });
});

describe("taskgate serve in the browser", { timeout: BROWSER_TIMEOUT }, () => {
  it("serves a board's pages from its own origin only, filters without script, hostile text as text", async () => {
    const repo = repository();
    boardRepository(repo, HOSTILE_TITLES);
    const body = `${HOSTILE_PIECES.join("\n")}\n${SECRET_TEXT}`;
    const pr = prFile("dave", { login: "mallory", state: "COMMENTED", body, commit: repo.git("rev-parse", "feature") });
    const url = await serveCli(repo.dir, ["--pr", pr]);
    const context = await chromium.context({ javaScriptEnabled: false });
    const page = await context.newPage();
    const aborted = await keepLocal(page, url);
    const seen = recordRequests(context);
    const dialogs = recordDialogs(page);
    const policies: string[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "document") {
        policies.push(response.headers()["content-security-policy"] ?? "(none)");
      }
    });

    expect((await page.goto(`${url}/`))?.status()).toBe(200);
    expect((await taskRows(page)).map((row) => row[0])).toEqual(BOARD_TASKS.map((task) => task.id));
    await expectNothingInjected(page);
    const text = await bodyText(page);
    for (const piece of HOSTILE_PIECES) expect(text).toContain(piece);
    expect(text).toContain(SECRET_TEXT.replace(TOKEN, "[redacted]"));

    await page.selectOption('select[name="state"]', "todo");
    await Promise.all([page.waitForURL(/state=todo/), page.getByRole("button", { name: "Filter" }).click()]);
    expect(new URL(page.url()).pathname).toBe("/");
    const todo = BOARD_TASKS.filter((task) => task.state === "todo").map((task) => task.id);
    expect((await taskRows(page)).map((row) => row[0])).toEqual(todo);

    expect((await page.goto(`${url}/pull?base=main&head=feature`))?.status()).toBe(200);
    expect(await page.locator("h1").innerText()).toMatch(/^Pull request #/);
    expect(await bodyText(page)).toContain("API-3\tin_progress\treview");
    await expectNothingInjected(page);
    expect(await page.locator("blockquote").innerText()).toBe(body.replace(TOKEN, "[redacted]"));
    expect(await page.content()).not.toContain(TOKEN.slice(4));
    await Promise.all([page.waitForURL(`${url}/`), page.locator("nav.crumbs a").click()]);

    expect(offOrigin(seen, url)).toEqual([]);
    expect(aborted).toEqual([]);
    expect(seen.filter((request) => request.type === "stylesheet").length).toBeGreaterThanOrEqual(3);
    expect(policies).toHaveLength(4);
    for (const policy of policies) expect(policy).toBe(CONTENT_SECURITY_POLICY);
    expect(dialogs).toEqual([]);
  });
});

describe("taskgate serve's pages for assistive technology", { timeout: BROWSER_TIMEOUT }, () => {
  it("serves a phases checkout's pages, each usable with assistive technology", async () => {
    const repo = repository();
    phasesRepository(repo);
    const url = await serveCli(repo.dir);
    const context = await chromium.context();
    const page = await context.newPage();
    const aborted = await keepLocal(page, url);
    const seen = recordRequests(context);

    expect((await page.goto(`${url}/`))?.status()).toBe(200);
    expect((await taskRows(page)).map((row) => [row[0], row[2]])).toEqual([
      ["a", "research"],
      ["b", "research"],
      ["c", "implement"],
      ["d", "new"],
    ]);
    await expectAccessible(page);

    expect((await page.goto(`${url}/pull?base=main&head=feature`))?.status()).toBe(200);
    await expectAccessible(page);
    const text = await bodyText(page);
    expect(text).toContain("a\tresearch\tresearch:awaiting_approval");
    expect(text).toContain("names an unknown state");
    expect(await page.getByRole("img", { name: "The path of a through the workflow" }).count()).toBe(1);

    expect(offOrigin(seen, url)).toEqual([]);
    expect(aborted).toEqual([]);
  });
});

describe("a hostile task folder on taskgate serve's pull request page", { timeout: BROWSER_TIMEOUT }, () => {
  it("keeps its name as text in the problem's link and message", async () => {
    const repo = repository();
    const name = `"><svg onload=alert(1)><img src=x onerror=alert(2)>`;
    repo.write({ ".github/taskgate.yml": "preset: phases\n", [`tasks/${name}/.state`]: "research\n" });
    repo.commit("base", "alice");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({ [`tasks/${name}/.state`]: "done\n" });
    repo.commit("moves", "carol");
    // On GitHub, so the problem links its file there.
    repo.git("remote", "add", "origin", "https://github.com/acme/web.git");
    const url = await serveCli(repo.dir);
    const context = await chromium.context({ bypassCSP: true });
    const page = await context.newPage();
    const aborted = await keepLocal(page, url);
    const dialogs = recordDialogs(page);
    expect((await page.goto(`${url}/pull?base=main&head=feature`))?.status()).toBe(200);
    await expectNothingInjected(page);
    const problem = page.locator("section[aria-labelledby=problems] li");
    expect(await problem.locator("a").innerText()).toBe(`tasks/${name}`);
    const href = new URL((await problem.locator("a").getAttribute("href"))!);
    expect([href.origin, href.pathname.endsWith(`/tasks/${encodeURIComponent(name)}`)]).toEqual([
      "https://github.com",
      true,
    ]);
    expect(await problem.innerText()).toContain(`"${name}" is not a valid task id`);
    expect(dialogs).toEqual([]);
    expect(aborted).toEqual([]);
  });
});

describe("taskgate serve's paging in the browser", { timeout: BROWSER_TIMEOUT }, () => {
  it("pages through more tasks than fit on a page without script, keeping the filter", async () => {
    const repo = repository();
    largeBoard(repo, PAGE_SIZE + 7);
    const url = await serveCli(repo.dir);
    const context = await chromium.context({ javaScriptEnabled: false });
    const page = await context.newPage();
    const aborted = await keepLocal(page, url);
    await page.goto(`${url}/`);
    await page.selectOption('select[name="state"]', "todo");
    await Promise.all([page.waitForURL(/state=todo/), page.getByRole("button", { name: "Filter" }).click()]);
    const first = await taskRows(page);
    expect(first).toHaveLength(PAGE_SIZE);
    expect(first[0]![0]).toBe("T-003");
    expect(first.every((row) => row[2] === "todo")).toBe(true);

    await Promise.all([page.waitForURL(/page=2/), page.getByRole("link", { name: "Page 2" }).click()]);
    const query = new URL(page.url()).searchParams;
    expect([query.get("state"), query.get("page")]).toEqual(["todo", "2"]);
    const second = await taskRows(page);
    expect(second.map((row) => row[0])).toEqual(["T-203", "T-204", "T-205", "T-206", "T-207"]);
    expect(await page.locator('nav.pages [aria-current="page"]').innerText()).toBe("2");
    expect(await page.locator("section[aria-labelledby=tasks] caption").innerText()).toBe(
      `Tasks ${PAGE_SIZE + 1}–${PAGE_SIZE + 5} of ${PAGE_SIZE + 5}`,
    );
    expect(aborted).toEqual([]);
  });
});
