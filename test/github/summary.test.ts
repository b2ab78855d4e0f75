/**
 * What reaches GitHub from a report is redacted as a whole before it is shortened: a token the cut
 * would split is never left half-visible, in the check run's summary, its annotations or the comment.
 */
import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/core/evaluate.js";
import type { Violation } from "../../src/core/kernel/types.js";
import { violation } from "../../src/core/kernel/violations.js";
import { GITHUB_TEXT_LIMIT, checkOutput, commentBody } from "../../src/github/summary.js";

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const TOKEN = `ghp_${Array.from({ length: 36 }, (_, index) => ALNUM[(index * 7) % ALNUM.length]).join("")}`;

/** Every 8-character piece of the token: none may appear in what taskgate writes. */
function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 7 }, (_, index) => secret.slice(index, index + 8));
}

describe("redaction on the final text", () => {
  it("redacts a token whole even where shortening to GitHub's limit cuts through it", () => {
    // Enough findings to pass the limit, each naming the token, so that one sits across the cut.
    const violations: Violation[] = Array.from({ length: 700 }, (_, index) =>
      violation("out-of-scope", { path: `src/f${index}.ts`, message: `${"x".repeat(index % 50)} ${TOKEN} leaked` }),
    );
    const report = buildReport({ violations, pending: [], transitions: [], records: [] }, "big");
    const output = checkOutput(report);
    const comment = commentBody(report, "a".repeat(40));
    for (const text of [output.summary, comment, ...output.annotations.map((item) => item.message)]) {
      expect(text.length).toBeLessThanOrEqual(GITHUB_TEXT_LIMIT);
      for (const piece of pieces(TOKEN)) expect(text).not.toContain(piece);
    }
    expect(output.summary).toContain("Cut short");
    expect(output.summary).toContain("redacted");
  });
});

describe("the link to the pull request's page", () => {
  const PAGE = "https://taskgate.example.com/taskgate/acme/web/pull/7";
  const LINK = `[See this pull request on taskgate's page](${PAGE})`;
  const pending = buildReport(
    {
      violations: [violation("out-of-scope", { path: "src/a.ts", message: "outside the task" })],
      pending: [],
      transitions: [],
      records: [],
    },
    "one problem",
  );

  it("ends the summary and the comment when the page's URL is given, and is absent without it", () => {
    expect(checkOutput(pending, undefined, PAGE).summary.trimEnd().endsWith(LINK)).toBe(true);
    expect(commentBody(pending, "a".repeat(40), undefined, PAGE).trimEnd().endsWith(LINK)).toBe(true);
    const clear = buildReport({ violations: [], pending: [], transitions: [], records: [] }, "ok");
    expect(commentBody(clear, "a".repeat(40), undefined, PAGE).trimEnd().endsWith(LINK)).toBe(true);
    expect(checkOutput(pending).summary).not.toContain("taskgate's page");
    expect(commentBody(pending, "a".repeat(40))).not.toContain("taskgate's page");
  });

  it("changes the summary's fingerprint, so a run written before the pages were on is rewritten", () => {
    expect(checkOutput(pending, undefined, PAGE).fingerprint).not.toBe(checkOutput(pending).fingerprint);
  });

  it("survives the cut to GitHub's limit", () => {
    const violations: Violation[] = Array.from({ length: 700 }, (_, index) =>
      violation("out-of-scope", { path: `src/f${index}.ts`, message: `${"x".repeat(200)} ${index}` }),
    );
    const big = buildReport({ violations, pending: [], transitions: [], records: [] }, "big");
    for (const text of [checkOutput(big, undefined, PAGE).summary, commentBody(big, "a".repeat(40), undefined, PAGE)]) {
      expect(text).toContain("Cut short");
      expect(text.length).toBeLessThanOrEqual(GITHUB_TEXT_LIMIT);
      expect(text.trimEnd().endsWith(LINK)).toBe(true);
    }
  });

  it("gives no link for anything but an http(s) URL, and cannot be closed early", () => {
    expect(checkOutput(pending, undefined, "javascript:alert(1)").summary).not.toContain("taskgate's page");
    expect(checkOutput(pending, undefined, "not a url").summary).not.toContain("taskgate's page");
    const odd = checkOutput(pending, undefined, "https://x.example/taskgate/a/b/pull/1?q=)(<x>").summary;
    expect(odd).toContain("(https://x.example/taskgate/a/b/pull/1?q=%29%28%3Cx%3E)");
  });
});
