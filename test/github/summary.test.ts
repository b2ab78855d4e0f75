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
