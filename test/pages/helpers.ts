/** Shared checks of the page tests: hostile texts, and what no page may ever contain. */
import { expect } from "vitest";

/** A GitHub token as the secret scanner knows it (built, so no real-looking token sits in the source). */
export const TOKEN = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6".slice(0, 36);

/** Text that would run or break out of an attribute if it were not escaped. */
export const HOSTILE = `<script>alert(1)</script>"onerror="alert(2)' <img src=x onerror=alert(3)>&amp;`;
export const HOSTILE_ESCAPED =
  "&lt;script&gt;alert(1)&lt;/script&gt;&quot;onerror=&quot;alert(2)&#39; &lt;img src=x onerror=alert(3)&gt;&amp;amp;";

/** Every tag of a document, as written. */
export function tagsOf(html: string): string[] {
  return [...html.matchAll(/<[a-zA-Z][^>]*>/g)].map((match) => match[0]);
}

/** The attributes of one tag, as name and value (values are double-quoted, or bare words). */
export function attributesOf(tag: string): [string, string][] {
  const body = tag.replace(/^<[a-zA-Z0-9]+/, "").replace(/\/?>$/, "");
  const out: [string, string][] = [];
  for (const match of body.matchAll(/\s*([^\s=]+)(?:="([^"]*)")?/g)) out.push([match[1]!, match[2] ?? ""]);
  // Every character of the tag is accounted for: no stray quote lets text become an attribute.
  expect(body.replace(/\s*([^\s=]+)(?:="([^"]*)")?/g, ""), tag).toBe("");
  return out;
}

/** No script, no inline style, no event handler attribute, no URL of a scheme that runs code. */
export function expectSafe(html: string): void {
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toContain(TOKEN);
  for (const tag of tagsOf(html)) {
    for (const [name, value] of attributesOf(tag)) {
      expect(name, tag).not.toMatch(/^(style$|on)/i);
      if (/^(href|src|action)$/i.test(name)) expect(value, tag).not.toMatch(/^\s*(javascript|data):/i);
    }
  }
  // Only the tags the views write.
  const names = new Set(tagsOf(html).map((tag) => /^<([a-zA-Z0-9]+)/.exec(tag)![1]!.toLowerCase()));
  const known = new Set(
    "html head meta title link body a header nav ol ul li p h1 h2 h3 main section table caption thead tbody tr th td code span strong div figure figcaption svg defs marker path g rect text line form label select option input datalist button time blockquote".split(
      " ",
    ),
  );
  expect([...names].filter((name) => !known.has(name))).toEqual([]);
}

/** The `<svg …>…</svg>` elements of a document. */
export function svgsOf(html: string): string[] {
  return [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((match) => match[0]);
}

/** Every element opened in a fragment is closed in order (the SVG is written without void elements). */
export function expectBalanced(fragment: string): void {
  const stack: string[] = [];
  for (const match of fragment.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop(), `closing ${name}`).toBe(name);
    else stack.push(name!);
  }
  expect(stack).toEqual([]);
}
