/**
 * The one layout of taskgate's pages: semantic HTML that reads without styles, one stylesheet
 * served from the same origin (GitHub's system fonts, colours and spacing, light and dark), and no
 * script at all, so the pages work under `Content-Security-Policy: default-src 'self'`.
 */
import { attr, escapeHtml, link, text } from "./html.js";

/** Where the server serves `STYLESHEET` (same origin, `text/css`). */
export const STYLESHEET_PATH = "/taskgate/-/taskgate.css";

/** The header every page is sent with: nothing from another origin, no script, no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Every style of the pages. */
export const STYLESHEET = `:root {
  color-scheme: light dark;
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --subtle: #f6f8fa; --border: #d1d9e0;
  --accent: #0969da; --success: #1a7f37; --danger: #d1242f; --attention: #9a6700; --done: #8250df;
  --path: #ddf4ff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #f0f6fc; --muted: #9198a1; --bg: #0d1117; --subtle: #151b23; --border: #3d444d;
    --accent: #4493f8; --success: #3fb950; --danger: #f85149; --attention: #d29922; --done: #ab7df8;
    --path: #0c2d6b;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; color: var(--fg); background: var(--bg);
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif,
    "Apple Color Emoji", "Segoe UI Emoji";
}
a { color: var(--accent); text-decoration: none; }
a:hover, a:focus { text-decoration: underline; }
code, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 16px; top: 8px; }
header.site { background: var(--subtle); border-bottom: 1px solid var(--border); padding: 16px 32px; }
header.site p { margin: 0; color: var(--muted); }
header.site h1 { margin: 4px 0 0; font-size: 20px; font-weight: 600; }
nav.crumbs ol { list-style: none; margin: 0; padding: 0; display: flex; gap: 4px; flex-wrap: wrap; }
nav.crumbs li + li::before { content: "/"; color: var(--muted); margin-right: 4px; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 32px; }
section { margin-bottom: 24px; }
h2 { font-size: 16px; font-weight: 600; padding-bottom: 8px; border-bottom: 1px solid var(--border); margin: 0 0 16px; }
h3 { font-size: 14px; font-weight: 600; margin: 16px 0 8px; }
table { border-collapse: collapse; width: 100%; border: 1px solid var(--border); border-radius: 6px; }
caption { text-align: left; font-weight: 600; padding: 8px 0; }
th, td { text-align: left; vertical-align: top; padding: 6px 12px; border-top: 1px solid var(--border); }
thead th { background: var(--subtle); font-weight: 600; }
ul.items { list-style: none; margin: 0; padding: 0; border: 1px solid var(--border); border-radius: 6px; }
ul.items > li { padding: 8px 16px; border-top: 1px solid var(--border); }
ul.items > li:first-child { border-top: 0; }
.muted { color: var(--muted); }
.label { display: inline-block; padding: 0 7px; border: 1px solid var(--border); border-radius: 2em; font-size: 12px; font-weight: 500; line-height: 18px; }
.state-success, .counted { color: var(--success); border-color: var(--success); }
.state-failure, .not-counted { color: var(--danger); border-color: var(--danger); }
.state-action_required { color: var(--attention); border-color: var(--attention); }
.state-neutral { color: var(--muted); }
.banner { border: 1px solid var(--border); border-radius: 6px; padding: 16px; background: var(--subtle); }
.banner strong { font-size: 16px; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin-bottom: 16px; }
form.filters label { display: flex; flex-direction: column; font-weight: 600; font-size: 12px; }
input, select, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: 4px 8px; }
button { background: var(--subtle); font-weight: 500; cursor: pointer; }
nav.pages ul { list-style: none; padding: 0; display: flex; gap: 4px; flex-wrap: wrap; }
nav.pages a, nav.pages span { display: inline-block; min-width: 32px; padding: 4px 8px; text-align: center; border-radius: 6px; }
nav.pages [aria-current] { background: var(--accent); color: #ffffff; }
figure { margin: 0 0 16px; overflow-x: auto; }
figcaption { color: var(--muted); font-size: 12px; }
svg.diagram { font: 12px -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
svg.diagram rect { fill: var(--subtle); stroke: var(--border); }
svg.diagram text { fill: var(--fg); }
svg.diagram line, svg.diagram path { stroke: var(--muted); fill: none; }
svg.diagram .taken rect { fill: var(--path); stroke: var(--accent); stroke-width: 2; }
svg.diagram line.taken { stroke: var(--accent); stroke-width: 2; }
svg.diagram marker path { fill: var(--muted); stroke: none; }
details summary { cursor: pointer; }
blockquote { margin: 4px 0; padding: 0 12px; color: var(--muted); border-left: 3px solid var(--border); white-space: pre-wrap; }
`;

/** One breadcrumb: an already built href (or none for the current page) and its text. */
export interface Crumb {
  readonly label: string;
  readonly href?: string;
}

export interface PageFrame {
  /** The document's title (plain text). */
  readonly title: string;
  /** What the page is about, above the heading (plain text). */
  readonly kicker: string;
  readonly crumbs: readonly Crumb[];
  /** The page's body: sections already rendered. */
  readonly body: string;
}

/** The whole document around a page's sections. */
export function layout(frame: PageFrame): string {
  const crumbs = frame.crumbs
    .map((crumb) =>
      crumb.href ? `<li>${link(crumb.href, crumb.label)}</li>` : `<li aria-current="page">${text(crumb.label)}</li>`,
    )
    .join("");
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${text(frame.title)} · taskgate</title>`,
    `<link rel="stylesheet" ${attr("href", STYLESHEET_PATH)}>`,
    "</head>",
    "<body>",
    '<a class="skip" href="#main">Skip to content</a>',
    '<header class="site">',
    `<nav class="crumbs" aria-label="Breadcrumb"><ol>${crumbs}</ol></nav>`,
    `<p>${text(frame.kicker)}</p>`,
    `<h1>${text(frame.title)}</h1>`,
    "</header>",
    `<main id="main">${frame.body}</main>`,
    "</body>",
    "</html>",
  ].join("\n");
}

/** A section with its heading (`h2`), labelled by it. */
export function section(id: string, heading: string, content: string): string {
  const safe = escapeHtml(id);
  return `<section aria-labelledby="${safe}"><h2 id="${safe}">${text(heading)}</h2>${content}</section>`;
}

/** A table with a caption and column headers (`th scope="col"`); cells are already escaped HTML. */
export function dataTable(caption: string, headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = headers.map((header) => `<th scope="col">${text(header)}</th>`).join("");
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("\n");
  return `<table><caption>${text(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A list of items (already escaped HTML), or a muted sentence when there is none. */
export function itemList(items: readonly string[], empty: string): string {
  if (items.length === 0) return `<p class="muted">${text(empty)}</p>`;
  return `<ul class="items">${items.map((item) => `<li>${item}</li>`).join("\n")}</ul>`;
}
