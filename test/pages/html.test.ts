import { describe, expect, it } from "vitest";
import { attr, blobUrl, escapeHtml, link, queryString, text, userUrl } from "../../src/pages/html.js";
import { CONTENT_SECURITY_POLICY, STYLESHEET, STYLESHEET_PATH, layout } from "../../src/pages/layout.js";
import { HOSTILE, HOSTILE_ESCAPED, TOKEN, expectSafe } from "./helpers.js";

describe("escaping", () => {
  it("escapes the five characters HTML gives meaning to", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(text(HOSTILE)).toBe(HOSTILE_ESCAPED);
  });

  it("redacts a secret before escaping, in texts and in attribute values", () => {
    expect(text(`token ${TOKEN}`)).toBe("token [redacted]");
    expect(attr("title", `"${TOKEN}`)).toBe('title="&quot;[redacted]"');
    expect(text(null)).toBe("");
  });

  it("builds links with an escaped href and label", () => {
    expect(link(`/x?a=1&b="2"`, "<b>")).toBe('<a href="/x?a=1&amp;b=&quot;2&quot;">&lt;b&gt;</a>');
  });
});

describe("GitHub URLs", () => {
  it("links a file and line at a commit, each path segment encoded", () => {
    expect(blobUrl({ owner: "acme", repo: "site" }, "abc123", "tasks/t 1/#PLAN?.md", 7)).toBe(
      "https://github.com/acme/site/blob/abc123/tasks/t%201/%23PLAN%3F.md#L7",
    );
    expect(blobUrl({ owner: "acme", repo: "site" }, "abc", "a.md")).toBe("https://github.com/acme/site/blob/abc/a.md");
  });

  it("uses the GitHub Enterprise host when one is given", () => {
    expect(blobUrl({ owner: "o", repo: "r", host: "https://ghe.example.com/" }, "s", "p", 2)).toBe(
      "https://ghe.example.com/o/r/blob/s/p#L2",
    );
    expect(userUrl("ghe.example.com", "a/b")).toBe("https://ghe.example.com/a%2Fb");
  });

  it("builds a query string from the parameters that are set", () => {
    expect(queryString({ state: "to do", owner: undefined, role: "", page: 2 })).toBe("?state=to%20do&page=2");
    expect(queryString({})).toBe("");
  });
});

describe("layout", () => {
  const page = layout({
    title: HOSTILE,
    kicker: "k",
    crumbs: [{ label: HOSTILE, href: `/x"${HOSTILE}` }, { label: "here" }],
    body: "<p>body</p>",
  });

  it("is a whole, accessible document with one same-origin stylesheet and no script", () => {
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`);
    expect(page).toContain('<main id="main"><p>body</p></main>');
    expect(page).toContain(`<h1>${HOSTILE_ESCAPED}</h1>`);
    expect(page).toContain('<li aria-current="page">here</li>');
    expectSafe(page);
  });

  it("serves a stylesheet aware of dark mode and a policy that forbids other origins and scripts", () => {
    expect(STYLESHEET).toContain("@media (prefers-color-scheme: dark)");
    expect(STYLESHEET).not.toMatch(/url\(|@import|https?:/);
    expect(STYLESHEET_PATH.startsWith("/taskgate/")).toBe(true);
    expect(CONTENT_SECURITY_POLICY).toMatch(/^default-src 'self'/);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'none'");
  });
});
