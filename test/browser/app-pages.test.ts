/**
 * The App's pages in a real browser (Debian's Chromium, driven by playwright-core): signing in
 * through GitHub's OAuth web flow (the fake GitHub answers the authorize page the browser is sent
 * to and, behind nock, the App's own calls), the 404 of a visitor without access, hostile repository
 * text shown as text, every request on the App's origin, the filters without JavaScript, the pages'
 * structure for assistive technology and their look, light and dark (screenshots in
 * test-output/screenshots/).
 */
import nock from "nock";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/app/pages/http.js";
import { STYLESHEET_PATH } from "../../src/pages/layout.js";
import type { FakeGitHub } from "../helpers/fake-github.js";
import { appSandbox } from "../helpers/probot.js";
import {
  AUTHORIZE,
  BROWSER_TIMEOUT,
  type Dom,
  keepLocal,
  bodyText,
  expectAccessible,
  expectInOrder,
  expectNothingInjected,
  inDocument,
  offOrigin,
  recordDialogs,
  recordRequests,
  screenshot,
  SCREENSHOTS,
  useApp,
  useBrowser,
} from "./browser.js";
import {
  BOARD_TASKS,
  HOSTILE_PIECES,
  HOSTILE_TITLES,
  SECRET_TEXT,
  TOKEN,
  boardRepository,
  boardReviews,
  phasesRepository,
} from "./fixtures.js";

const sandbox = appSandbox();
beforeEach(() => nock.enableNetConnect("127.0.0.1"));
const chromium = useBrowser();
const serveApp = useApp();

/** The board's repository behind the fake GitHub; its pull request is `feature` by dave. */
function boardFake(titles: Readonly<Record<string, string>> = {}): FakeGitHub {
  const repo = sandbox.repo();
  boardRepository(repo, titles);
  return sandbox.github(repo, { head: "feature", author: "dave" });
}

interface Visit {
  readonly url: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests to other origins that were aborted (none may be). */
  readonly aborted: string[];
}

/** The App in front of `fake`, and a browser context whose sign-in the fake GitHub answers. */
async function visit(fake: FakeGitHub, options: Parameters<typeof chromium.context>[0] = {}): Promise<Visit> {
  const url = await serveApp(fake);
  const context = await chromium.context(options);
  const page = await context.newPage();
  return { url, context, page, aborted: await keepLocal(page, url) };
}

/** The task table's rows, each as its cells' text. */
function taskRows(page: Page): Promise<string[][]> {
  return page
    .locator('section[aria-labelledby="tasks"] table tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((cell) => cell.innerText.trim())));
}

/** The ids of the board's tasks that match. */
function idsWhere(match: (task: (typeof BOARD_TASKS)[number]) => boolean): string[] {
  return BOARD_TASKS.filter(match).map((task) => task.id);
}

describe("signing in with GitHub, in the browser", { timeout: BROWSER_TIMEOUT }, () => {
  it("takes a signed-out visitor to GitHub's authorize page and back through the callback to the page", async () => {
    const fake = boardFake();
    const { url, context, page } = await visit(fake);
    const seen = recordRequests(context);
    const response = await page.goto(`${url}/taskgate/acme/web?state=todo`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${url}/taskgate/acme/web?state=todo`);

    // The address bar went: the page, the App's sign-in, GitHub's authorize page, the callback, the page.
    const steps = seen.filter((request) => request.topLevel).map((request) => new URL(request.url));
    expect(steps.map((step) => `${step.origin}${step.pathname}`)).toEqual([
      `${url}/taskgate/acme/web`,
      `${url}/taskgate/login`,
      AUTHORIZE,
      `${url}/taskgate/callback`,
      `${url}/taskgate/acme/web`,
    ]);
    expect(steps[1]!.searchParams.get("next")).toBe("/taskgate/acme/web?state=todo");
    expect(steps[2]!.searchParams.get("client_id")).toBe(fake.oauth.clientId);
    expect(steps[2]!.searchParams.get("redirect_uri")).toBe(`${url}/taskgate/callback`);
    expect(steps[3]!.searchParams.get("state")).toBe(steps[2]!.searchParams.get("state"));

    // Signed in as dana, whose token stays on the server, sealed in an HttpOnly cookie.
    expect(fake.requests.filter((request) => request.path === "/login/oauth/access_token")).toHaveLength(1);
    const access = fake.requests.filter((request) => request.path === "/repos/acme/web");
    expect(access.map((request) => request.headers?.authorization)).toEqual(["Bearer ghu_dana"]);
    const cookies = await context.cookies(url);
    expect(cookies.map((cookie) => cookie.name)).toEqual(["taskgate-session"]);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect(cookies[0]!.value).not.toContain("ghu_dana");

    await expect.poll(() => page.locator("h1").innerText()).toBe("Tasks of acme/web");
    expect((await taskRows(page)).map((row) => row[0])).toEqual(idsWhere((task) => task.state === "todo"));
    expect(await bodyText(page)).toContain("Deploy to staging");

    // Signed in, the next page opens at once.
    const before = seen.length;
    expect((await page.goto(`${url}/taskgate/acme/web/pull/${fake.number}`))?.status()).toBe(200);
    expect(seen.slice(before).filter((request) => request.topLevel)).toHaveLength(1);
    expect(await page.locator("h1").innerText()).toBe(`Pull request #${fake.number}`);
  });

  it("shows a signed-in visitor who may not read the repository a 404 with no task data", async () => {
    const fake = boardFake();
    fake.oauth.readers.clear();
    const { url, page } = await visit(fake);
    for (const path of ["/taskgate/acme/web", `/taskgate/acme/web/pull/${fake.number}`]) {
      const response = await page.goto(`${url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(page.url()).toBe(`${url}${path}`);
      const text = await bodyText(page);
      expect(text).toContain("Not found");
      for (const task of BOARD_TASKS) {
        expect(text).not.toContain(task.id);
        expect(text).not.toContain(task.title);
      }
      expect(text).not.toMatch(/dave|carol|erin|quinn/);
      await expectAccessible(page, false);
    }
  });
});

describe("hostile text in the repository", { timeout: BROWSER_TIMEOUT }, () => {
  /**
   * The pages' policy forbids every script, so a script that slipped through would not run anyway:
   * these contexts bypass the policy, to show that escaping alone keeps the text inert.
   */
  const unprotected = { bypassCSP: true } as const;

  it("shows hostile titles and a hostile review body as text on both pages, and a secret redacted", async () => {
    const fake = boardFake(HOSTILE_TITLES);
    const body = `${HOSTILE_PIECES.join("\n")}\n${SECRET_TEXT}`;
    boardReviews(fake, body);
    const { url, page } = await visit(fake, unprotected);
    const dialogs = recordDialogs(page);

    expect((await page.goto(`${url}/taskgate/acme/web`))?.status()).toBe(200);
    await expectNothingInjected(page);
    const titles = (await taskRows(page)).map((row) => row[1]);
    expect(titles).toEqual([
      ...HOSTILE_PIECES.slice(0, 4),
      SECRET_TEXT.replace(TOKEN, "[redacted]"),
      HOSTILE_PIECES[4],
    ]);
    const text = await bodyText(page);
    for (const piece of HOSTILE_PIECES) expect(text).toContain(piece);
    expect(text).toContain("deploy with [redacted] now");
    expect(text).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN.slice(4));
    expect(await page.locator("svg.diagram").count()).toBe(1);

    expect((await page.goto(`${url}/taskgate/acme/web/pull/${fake.number}`))?.status()).toBe(200);
    await expectNothingInjected(page);
    const quoted = await page.locator("section[aria-labelledby=reviews] blockquote").allInnerTexts();
    expect(quoted).toHaveLength(2);
    expect(quoted[1]).toBe(body.replace(TOKEN, "[redacted]"));
    expect(await bodyText(page)).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN.slice(4));
    expect(dialogs).toEqual([]);
  });
});

describe("what the browser asks for", { timeout: BROWSER_TIMEOUT }, () => {
  it("only this origin, from signing in to both pages and their links; GitHub's sign-in only as the address", async () => {
    const fake = boardFake();
    boardReviews(fake);
    const { url, context, page, aborted } = await visit(fake);
    const seen = recordRequests(context);
    const documents: { url: string; policy: string | undefined }[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "document" && new URL(response.url()).origin === url) {
        documents.push({ url: response.url(), policy: response.headers()["content-security-policy"] });
      }
    });
    await page.goto(`${url}/taskgate/acme/web`);
    await page.selectOption('select[name="state"]', "review");
    await Promise.all([page.waitForURL(/state=review/), page.getByRole("button", { name: "Filter" }).click()]);
    await page.goto(`${url}/taskgate/acme/web/pull/${fake.number}`);
    await Promise.all([
      page.waitForURL(`${url}/taskgate/acme/web`),
      page.getByRole("link", { name: "acme/web" }).click(),
    ]);

    // The one request elsewhere: the sign-in's top-level navigation to GitHub's authorize page,
    // which a browser must make (GitHub asks the visitor there). Nothing else leaves the origin.
    const elsewhere = offOrigin(seen, url);
    expect(elsewhere.map((request) => `${new URL(request.url).origin}${new URL(request.url).pathname}`)).toEqual([
      AUTHORIZE,
    ]);
    expect(elsewhere[0]).toMatchObject({ topLevel: true, method: "GET", type: "document" });
    expect(aborted).toEqual([]);
    // Each page loaded its stylesheet, from this origin, and nothing else besides documents.
    const kinds = new Set(seen.filter((request) => !request.topLevel).map((request) => request.type));
    expect([...kinds]).toEqual(["stylesheet"]);
    expect(seen.filter((request) => request.type === "stylesheet").map((request) => request.url)).toContain(
      `${url}${STYLESHEET_PATH}`,
    );
    const border = await inDocument(page, (root) => {
      const document = root.ownerDocument as Dom;
      return document.defaultView.getComputedStyle(document.querySelector("header.site")!).borderBottomStyle;
    });
    expect(border).toBe("solid");
    // Every document of the App came with the pages' policy.
    expect(documents.length).toBeGreaterThanOrEqual(6);
    for (const document of documents) expect(document.policy, document.url).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe("the filters without JavaScript", { timeout: BROWSER_TIMEOUT }, () => {
  it("submits state, owner and role as a plain GET form, and lists only the matching tasks", async () => {
    const fake = boardFake();
    const { url, page } = await visit(fake, { javaScriptEnabled: false });
    await page.goto(`${url}/taskgate/acme/web`);
    expect((await taskRows(page)).map((row) => row[0])).toEqual(idsWhere(() => true));

    await page.selectOption('select[name="state"]', "todo");
    await Promise.all([page.waitForURL(/\?/), page.getByRole("button", { name: "Filter" }).click()]);
    expect(new URL(page.url()).searchParams.get("state")).toBe("todo");
    expect((await taskRows(page)).map((row) => row[0])).toEqual(idsWhere((task) => task.state === "todo"));
    expect(await page.locator('select[name="state"]').inputValue()).toBe("todo");

    await page.selectOption('select[name="state"]', "");
    await page.selectOption('select[name="role"]', "frontend");
    await Promise.all([page.waitForURL(/role=frontend/), page.getByRole("button", { name: "Filter" }).click()]);
    expect((await taskRows(page)).map((row) => row[0])).toEqual(idsWhere((task) => task.role === "frontend"));

    await page.selectOption('select[name="role"]', "");
    await page.getByLabel("Owner").fill("dave");
    await Promise.all([page.waitForURL(/owner=dave/), page.getByRole("button", { name: "Filter" }).click()]);
    const query = new URL(page.url()).searchParams;
    expect([query.get("state"), query.get("owner"), query.get("role")]).toEqual(["", "dave", ""]);
    const rows = await taskRows(page);
    expect(rows.map((row) => row[0])).toEqual(["API-3"]);
    expect(rows[0]![3]).toBe("dave/agent-1");

    await Promise.all([
      page.waitForURL(`${url}/taskgate/acme/web`),
      page.getByRole("link", { name: "Clear filters" }).click(),
    ]);
    expect(await taskRows(page)).toHaveLength(BOARD_TASKS.length);
  });
});

/** The screenshots saved by this file; their folder is printed once, after them. */
const saved: string[] = [];
afterAll(() => {
  if (saved.length > 0) console.log(`taskgate pages: ${saved.length} screenshots in ${SCREENSHOTS}`);
});

/** Each page in each colour scheme: the page's own colours applied, nothing wider than the window. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const [scheme, background] of [
    ["light", "rgb(255, 255, 255)"],
    ["dark", "rgb(13, 17, 23)"],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const look = await inDocument(page, (root) => {
      const document = root.ownerDocument as Dom;
      const html = document.documentElement as unknown as { scrollWidth: number; clientWidth: number };
      const body = document.querySelector("body")!;
      return {
        background: document.defaultView.getComputedStyle(body).backgroundColor,
        overflow: html.scrollWidth - html.clientWidth,
      };
    });
    expect(look, `${name} ${scheme}`).toEqual({ background, overflow: 0 });
    saved.push(await screenshot(page, `${name}-${scheme}`));
  }
}

describe("how the pages look and read", { timeout: BROWSER_TIMEOUT }, () => {
  it("a board's pages: screenshots light and dark; one h1, landmarks, headers, labels, named graphics; in order unstyled", async () => {
    const fake = boardFake();
    boardReviews(fake);
    const { url, page } = await visit(fake, { viewport: { width: 1280, height: 800 } });
    const unstyled = () =>
      inDocument(page, (root) =>
        [...(root.ownerDocument as Dom).styleSheets].map((sheet) => ((sheet.disabled = true), sheet.href)),
      );
    await page.goto(`${url}/taskgate/acme/web`);
    await shoot(page, "board-repository");
    await expectAccessible(page);
    expect(await page.getByRole("navigation", { name: "Breadcrumb" }).count()).toBe(1);
    expect(await page.getByRole("search", { name: "Filter tasks" }).count()).toBe(1);
    expect(await page.getByRole("img", { name: "Who waits on whom" }).count()).toBe(1);
    expect(await page.getByRole("combobox", { name: "State" }).count()).toBe(1);
    await page.keyboard.press("Tab");
    expect(await page.locator(":focus").innerText()).toBe("Skip to content");
    // Without its stylesheet the page reads top to bottom in a sensible order.
    expect(await unstyled()).toEqual([`${url}${STYLESHEET_PATH}`]);
    expectInOrder(await bodyText(page), [
      "Skip to content",
      "acme/web",
      "main at",
      "Tasks of acme/web",
      "Filter",
      "State",
      "Tasks (6 of 6)",
      "id\ttitle\tstate\towner\trole\tstage",
      "API-1\tList the notes\tdone",
      "OPS-1\tDeploy to staging\ttodo",
      "Who waits on whom",
      "UI-2 (erin) waits on API-3 (dave/agent-1) in_progress",
      "Waiting for review",
      "API-2 (carol/agent-1) Paginate the notes",
      "May review: quinn",
    ]);

    await page.goto(`${url}/taskgate/acme/web/pull/${fake.number}`);
    await shoot(page, "board-pull-request");
    await expectAccessible(page);
    expect(await page.getByRole("img", { name: "The path of API-3 through the workflow" }).count()).toBe(1);
    expect(await page.getByRole("table", { name: "Each review and whether it counted" }).count()).toBe(1);
    expect(await unstyled()).toHaveLength(1);
    expectInOrder(await bodyText(page), [
      "Skip to content",
      `Pull request #${fake.number}`,
      "Conclusion",
      "Moves (1)",
      "API-3\tin_progress\treview",
      "Problems (",
      "Waiting for approval (",
      "Reviews (1)",
      "quinn\tAPPROVED",
      "What taskgate records (",
    ]);
  });

  it("a phases repository's pages: screenshots light and dark, and the same structure", async () => {
    const repo = sandbox.repo();
    phasesRepository(repo);
    const fake = sandbox.github(repo, { head: "feature" });
    fake.review("erin", "COMMENTED", fake.sha("feature"), "2026-11-30T09:00:00Z", "The spec reads well.");
    const { url, page } = await visit(fake, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}/taskgate/acme/web`);
    await shoot(page, "phases-repository");
    await expectAccessible(page);
    await page.goto(`${url}/taskgate/acme/web/pull/${fake.number}`);
    await shoot(page, "phases-pull-request");
    await expectAccessible(page);
  });
});
