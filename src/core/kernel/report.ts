/**
 * A report from a model's findings: ordered deterministically, deduplicated, with its conclusion,
 * and every string passed through the secret redactor. Shared by the pure entry points (judge.ts)
 * and the authoring commands' judgement (change.ts).
 */
import type { ConfigIssue } from "./config.js";
import type { Findings } from "./model.js";
import { redactDeep } from "./secrets.js";
import type { Conclusion, Report, Violation } from "./types.js";
import { violation } from "./violations.js";

/**
 * Orders findings deterministically and derives the conclusion. Every string of the report passes
 * the secret redactor: messages quote paths, ids, owners and review bodies that users wrote.
 */
export function buildReport(findings: Findings, what: string): Report {
  return redactDeep(orderedReport(findings, what));
}

function orderedReport(findings: Findings, what: string): Report {
  const violations = sortViolations(dedupe(findings.violations));
  const pending = sortViolations(findings.pending);
  const conclusion: Conclusion = violations.length > 0 ? "failure" : pending.length > 0 ? "action_required" : "success";
  const parts = [`${violations.length} violation(s)`, `${pending.length} pending approval(s)`];
  if (findings.records.length > 0) parts.push(`${findings.records.length} record(s) to commit`);
  return {
    conclusion,
    violations,
    pending,
    transitions: findings.transitions,
    records: findings.records,
    summary: `${conclusion}: ${what}; ${parts.join(", ")}`,
  };
}

export function neutralReport(reason: string): Report {
  return {
    conclusion: "neutral",
    violations: [],
    pending: [],
    transitions: [],
    records: [],
    summary: `neutral: ${reason}`,
  };
}

export function configReport(issues: readonly ConfigIssue[], path = ".github/taskgate.yml"): Report {
  return buildReport(
    {
      violations: issues.map((issue) =>
        violation("config-invalid", {
          path,
          ...(issue.line !== undefined && { line: issue.line }),
          message: `${issue.path ? `${issue.path}: ` : ""}${issue.message}`,
        }),
      ),
      pending: [],
      transitions: [],
      records: [],
    },
    "configuration",
  );
}

function sortViolations<T extends Violation>(items: readonly T[]): T[] {
  return [...items].sort(
    (a, b) =>
      (a.path ?? "").localeCompare(b.path ?? "") ||
      (a.line ?? 0) - (b.line ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}

function dedupe(items: readonly Violation[]): Violation[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.code}\u0000${item.path ?? ""}\u0000${item.line ?? ""}\u0000${item.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
