import { describe, expect, it } from "vitest";
import { audit, evaluate } from "../../src/core/evaluate.js";
import { config, pullRequest, snapshot, task, type FileSpec } from "../helpers/memory.js";

const cfg = config();
const SPEC = { "SPEC.md": "spec\n" };

function check(base: Record<string, FileSpec>, head: Record<string, FileSpec>) {
  const b = snapshot(base);
  const h = snapshot(head);
  return evaluate(cfg, b, h, pullRequest(b, h));
}

describe("bad input ends in a violation with a hint", () => {
  it("refuses a binary or oversized .state", () => {
    for (const spec of [
      { kind: "binary", size: 10 },
      { kind: "oversized", size: 5_000_000 },
    ] as const) {
      const report = check(task("t", "new"), { "tasks/t/.state": spec });
      expect(report.violations).toEqual([
        expect.objectContaining({ code: "state-invalid", path: "tasks/t/.state", hint: expect.any(String) }),
      ]);
      expect(report.violations[0]!.message).toMatch(/binary|too large/);
    }
  });

  it("counts an oversized artifact as present but cannot read an oversized verdict", () => {
    const done = { ...SPEC, "BUG_REPORT.md": "b", "ADVERSARIAL_BUG_REPORT.md": "a", "DOC_REVIEW.md": "d" };
    const big = { kind: "oversized", size: 9_000_000 } as const;
    const report = check(
      task("t", "referee", done),
      task("t", "complete", { ...done, "BUG_REPORT.md": big, "VERDICT.md": big }),
    );
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "verdict-not-pass", path: "tasks/t/VERDICT.md" }),
    ]);
    expect(report.violations[0]!.message).toContain("too large to read");
  });

  it("never echoes control characters from a garbled state", () => {
    const report = check(task("t", "new"), { "tasks/t/.state": "\u001b[31mresearch\u0007\n" });
    expect(report.violations[0]!.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it("truncates a huge unknown state name in messages", () => {
    const report = check(task("t", "new"), { "tasks/t/.state": `${"x".repeat(10_000)}\n` });
    expect(report.violations[0]!.message.length).toBeLessThan(200);
  });

  it("flags a symlink placed directly in the tasks folder", () => {
    const report = audit(cfg, snapshot({ "tasks/evil": { kind: "symlink", target: "/etc" } }));
    expect(report.violations).toEqual([expect.objectContaining({ code: "path-escape", path: "tasks/evil" })]);
  });

  it("handles a BOM and CRLF line endings in .state and the approvals log", () => {
    const report = audit(
      cfg,
      snapshot({
        "tasks/t/.state": "\uFEFFdesign\r\n",
        "tasks/t/SPEC.md": "s",
        "tasks/t/.state.approvals": "research:approved|2026-01-01T00:00:00Z|bob\r\n",
      }),
    );
    expect(report.violations).toEqual([]);
  });
});
