/**
 * What the browser tests share: Debian's Chromium driven by playwright-core (one browser per test
 * file; never a downloaded one), the App's pages served on 127.0.0.1 against the fake GitHub, the
 * fake GitHub's sign-in page answered to the browser, a record of every request the browser makes,
 * and the checks run in the real DOM (nothing of a hostile text became an element; the page is
 * usable with a screen reader and without styles).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
  type Request,
} from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { WEB } from "../helpers/fake-github.js";
export { useApp } from "../helpers/pages.js";

/** Debian's Chromium (`apt-get install chromium`). */
export const CHROMIUM = "/usr/bin/chromium";
/** Every browser test and hook may take this long on a loaded machine. */
export const BROWSER_TIMEOUT = 60_000;
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Where the screenshots go (git-ignored). */
export const SCREENSHOTS = join(ROOT, "test-output", "screenshots");

/** Chromium, or an error that says how to install it: the browser tests never skip. */
export async function launchChromium(executablePath = CHROMIUM): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is missing at ${executablePath}: the browser tests (test/browser/) drive Debian's chromium package. ` +
        "Install it with `apt-get install chromium` (as root, or with sudo); .ci/run installs it in CI.",
    );
  }
  return chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: BROWSER_TIMEOUT });
}

export interface BrowserSession {
  /** A new context (closed after the test), with generous timeouts. */
  context(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/** One Chromium for the test file, launched before its tests; each test's contexts closed after it. */
export function useBrowser(): BrowserSession {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  }, BROWSER_TIMEOUT);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  }, BROWSER_TIMEOUT);
  afterAll(async () => {
    await browser?.close();
  }, BROWSER_TIMEOUT);
  return {
    async context(options = {}) {
      if (!browser) throw new Error("Chromium did not start (see the first failure of this file)");
      const context = await browser.newContext(options);
      context.setDefaultTimeout(BROWSER_TIMEOUT / 2);
      context.setDefaultNavigationTimeout(BROWSER_TIMEOUT / 2);
      contexts.push(context);
      return context;
    },
  };
}

/** GitHub's sign-in page, as the browser asks for it. */
export const AUTHORIZE = `${WEB}/login/oauth/authorize`;

/** What the DevTools protocol says of a request it holds (`Fetch.requestPaused`). */
interface PausedRequest {
  readonly requestId: string;
  readonly request: { readonly url: string };
  readonly resourceType: string;
}

/**
 * Keeps the page on this machine: a navigation to GitHub's authorize URL is answered by the fake
 * GitHub (nock, through Node's fetch: its 302 back to the App's callback with a code and the state),
 * and any other request to another origin is aborted; requests to the App go on untouched. Through
 * the DevTools protocol's `Fetch` domain: the browser reaches GitHub's authorize URL by following
 * the App's redirect, and Playwright's own routes never see a redirect's target. Returns the URLs
 * aborted (a test expects none).
 */
export async function keepLocal(page: Page, appOrigin: string): Promise<string[]> {
  const aborted: string[] = [];
  const cdp = await page.context().newCDPSession(page);
  const answer = async (event: PausedRequest): Promise<void> => {
    const url = new URL(event.request.url);
    const requestId = event.requestId;
    if (url.origin === appOrigin) {
      await cdp.send("Fetch.continueRequest", { requestId });
    } else if (`${url.origin}${url.pathname}` === AUTHORIZE && event.resourceType === "Document") {
      const reply = await fetch(url, { redirect: "manual" });
      await cdp.send("Fetch.fulfillRequest", {
        requestId,
        responseCode: reply.status,
        responseHeaders: [...reply.headers].map(([name, value]) => ({ name, value })),
        body: Buffer.from(await reply.arrayBuffer()).toString("base64"),
      });
    } else {
      aborted.push(url.href);
      await cdp.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" });
    }
  };
  cdp.on("Fetch.requestPaused", (event) => {
    answer(event).catch((error: Error) => {
      // Said in the list the test checks, and the request ends rather than waits for a timeout.
      aborted.push(`${event.request.url} (${error.message})`);
      cdp.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "Failed" }).catch(() => undefined);
    });
  });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return aborted;
}

/** One request the browser made. */
export interface Seen {
  readonly url: string;
  readonly method: string;
  readonly type: string;
  /** A navigation of the page's main frame (what the address bar shows). */
  readonly topLevel: boolean;
}

/** Every request made in the context from now on, in order. */
export function recordRequests(context: BrowserContext): Seen[] {
  const seen: Seen[] = [];
  context.on("request", (request: Request) => {
    let topLevel = false;
    try {
      topLevel = request.isNavigationRequest() && request.frame() === request.frame().page().mainFrame();
    } catch {
      // A request of no frame (a worker's): not a navigation.
    }
    seen.push({ url: request.url(), method: request.method(), type: request.resourceType(), topLevel });
  });
  return seen;
}

/** The requests that went anywhere but `origin`. */
export function offOrigin(seen: readonly Seen[], origin: string): Seen[] {
  return seen.filter((request) => new URL(request.url).origin !== origin);
}

/** A visitor who never sees a dialog: every `alert`/`confirm`/`prompt` is recorded and dismissed. */
export function recordDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return dialogs;
}

/** The little of the DOM the checks read (the project's types have no DOM library). */
export interface DomElement {
  readonly tagName: string;
  readonly outerHTML: string;
  readonly textContent: string | null;
  readonly attributes: ArrayLike<{ readonly name: string }> & Iterable<{ readonly name: string }>;
  readonly classList: { contains(name: string): boolean };
  readonly parentElement: DomElement | null;
  readonly caption?: DomElement | null;
  readonly type?: string;
  readonly labels?: Iterable<DomElement> | null;
  readonly lang: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & { readonly length: number };
}

export interface Dom {
  readonly documentElement: DomElement;
  readonly scripts: { readonly length: number };
  readonly styleSheets: Iterable<{ disabled: boolean; readonly href: string | null }>;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & { readonly length: number };
  readonly defaultView: { getComputedStyle(element: DomElement): Record<string, string> };
  readonly activeElement: DomElement | null;
}

/** What the DOM holds that only an injected text could have put there. */
export interface Injected {
  readonly scripts: number;
  readonly images: string[];
  /** SVG elements outside the pages' own diagrams (`svg.diagram`). */
  readonly strangeSvgs: string[];
  /** Elements with an event handler attribute (`on…`). */
  readonly handlers: string[];
  /** Links and forms to a URL of a scheme that runs code. */
  readonly scriptUrls: string[];
  readonly iframes: number;
}

/**
 * Runs `read` on the page's document. The functions given run in the browser: the project's types
 * have no DOM, so the document is reached through the root element (typed by Playwright).
 */
export function inDocument<T>(page: Page, read: (root: { ownerDocument: unknown }) => T): Promise<T> {
  return page.locator(":root").evaluate(read as never) as Promise<T>;
}

export function injected(page: Page): Promise<Injected> {
  return inDocument(page, (root) => {
    const document = root.ownerDocument as never as Dom;
    const all = [...document.querySelectorAll("*")];
    const describe = (element: DomElement) => element.outerHTML.slice(0, 120);
    return {
      scripts: document.scripts.length,
      images: [...document.querySelectorAll("img, image")].map(describe),
      strangeSvgs: [...document.querySelectorAll("svg")]
        .filter((svg) => !(svg.classList.contains("diagram") && svg.parentElement?.tagName === "FIGURE"))
        .map(describe),
      handlers: all.filter((element) => [...element.attributes].some((a) => /^on/i.test(a.name))).map(describe),
      scriptUrls: [...document.querySelectorAll("[href], [src], [action], [formaction]")]
        .filter((element) =>
          ["href", "src", "action", "formaction"].some((name) =>
            /^\s*(javascript|data|vbscript):/i.test(element.getAttribute(name) ?? ""),
          ),
        )
        .map(describe),
      iframes: document.querySelectorAll("iframe, object, embed, frame").length,
    };
  });
}

/** Nothing of a hostile text became an element. */
export async function expectNothingInjected(page: Page): Promise<void> {
  expect(await injected(page)).toEqual({
    scripts: 0,
    images: [],
    strangeSvgs: [],
    handlers: [],
    scriptUrls: [],
    iframes: 0,
  });
}

/** What an assistive technology relies on, read from the DOM. */
interface Structure {
  readonly lang: string;
  readonly h1: number;
  readonly mains: number;
  readonly navs: string[];
  readonly headingLevels: number[];
  readonly tablesWithoutHeaders: string[];
  readonly headersWithoutScope: number;
  readonly unlabelledControls: string[];
  readonly unnamedGraphics: string[];
}

function structureOf(page: Page): Promise<Structure> {
  return inDocument(page, (root) => {
    const document = root.ownerDocument as never as Dom;
    const describe = (element: DomElement) => element.outerHTML.slice(0, 120);
    const named = (element: DomElement) =>
      !!element.getAttribute("aria-label")?.trim() ||
      !!element.getAttribute("aria-labelledby")?.trim() ||
      !!element.querySelector(":scope > title")?.textContent?.trim();
    const labelled = (control: DomElement) => {
      if (control.type === "hidden") return true;
      if (control.getAttribute("aria-label")?.trim()) return true;
      if (control.tagName === "BUTTON" && control.textContent?.trim()) return true;
      return [...(control.labels ?? [])].some((label) => label.textContent?.trim());
    };
    return {
      lang: document.documentElement.lang,
      h1: document.querySelectorAll("h1").length,
      mains: document.querySelectorAll("main").length,
      navs: [...document.querySelectorAll("nav")].map((nav) => nav.getAttribute("aria-label") ?? ""),
      headingLevels: [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => Number(h.tagName[1])),
      tablesWithoutHeaders: [...document.querySelectorAll("table")]
        .filter((table) => table.querySelectorAll("thead th").length === 0 || !table.caption?.textContent?.trim())
        .map(describe),
      headersWithoutScope: document.querySelectorAll("th:not([scope])").length,
      unlabelledControls: [...document.querySelectorAll("input, select, textarea, button")]
        .filter((control) => !labelled(control))
        .map(describe),
      unnamedGraphics: [...document.querySelectorAll("svg, img")]
        .filter((element) => (element.tagName === "IMG" ? !element.getAttribute("alt") : !named(element)))
        .map(describe),
    };
  });
}

/**
 * A page a screen reader can use: a language, one h1, a main landmark and labelled navigation,
 * headings that do not skip a level, tables with captions and column headers, every form control
 * labelled, every graphic named. `navigation`: whether the page has nav landmarks (the short
 * message pages have none).
 */
export async function expectAccessible(page: Page, navigation = true): Promise<void> {
  const found = await structureOf(page);
  expect(found.lang).toBe("en");
  expect(found.h1).toBe(1);
  expect(found.mains).toBe(1);
  if (navigation) expect(found.navs.length).toBeGreaterThan(0);
  expect(found.navs.filter((label) => !label.trim())).toEqual([]);
  expect(found.headingLevels[0]).toBe(1);
  found.headingLevels.forEach((level, index) => {
    if (index > 0) expect(level - found.headingLevels[index - 1]!, "a heading skips a level").toBeLessThanOrEqual(1);
  });
  expect(found.tablesWithoutHeaders).toEqual([]);
  expect(found.headersWithoutScope).toBe(0);
  expect(found.unlabelledControls).toEqual([]);
  expect(found.unnamedGraphics).toEqual([]);
}

/** `page.innerText` of the body: what a visitor reads, in the order a visitor without styles reads it. */
export function bodyText(page: Page): Promise<string> {
  return page.locator("body").innerText();
}

/** Each text appears in `text`, in this order. */
export function expectInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    expect(at, `"${part}" after position ${from} of:\n${text.slice(0, 2000)}`).toBeGreaterThanOrEqual(0);
    from = at + part.length;
  }
}

/** Saves a full-page PNG under `SCREENSHOTS`; the file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
