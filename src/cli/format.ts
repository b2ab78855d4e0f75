/** Text output for people: one line per problem (file:line, code, message), its hint, then a summary. */
import type { Explanation, Pending, Report, Violation } from "../core/index.js";

function location(item: Violation): string {
  if (!item.path) return item.task ? `task ${item.task}` : "(pull request)";
  return item.line !== undefined ? `${item.path}:${item.line}` : item.path;
}

/** One line per problem: where, the code, what is wrong, how to fix it (and who may approve). */
export function formatItem(item: Violation | Pending): string {
  const who = "approvers" in item ? ` [approvers: ${item.approvers.join(", ")}]` : "";
  return `${location(item)}: ${item.code}: ${item.message} (hint: ${item.hint})${who}`;
}

export function formatReport(report: Report, title: string): string {
  const out: string[] = [`taskgate ${title}`];
  for (const item of report.violations) out.push(formatItem(item));
  if (report.pending.length > 0) {
    out.push("pending:");
    for (const item of report.pending) out.push(formatItem(item));
  }
  for (const move of report.transitions) {
    out.push(`moved: ${move.task} ${move.from ?? "(created)"} → ${move.to ?? "(deleted)"}`);
  }
  for (const record of report.records) {
    // An adoption does not move the task: it records where the task already is.
    const what = record.kind === "adopt" ? `at ${record.to}` : `${record.from} → ${record.to}`;
    out.push(`to record: ${record.task} ${what} (${record.kind} by ${record.by})`);
  }
  out.push(
    `${report.conclusion}: ${report.violations.length} violation(s), ${report.pending.length} pending approval(s)` +
      (report.records.length > 0 ? `, ${report.records.length} record(s) for the bot` : ""),
  );
  return `${out.join("\n")}\n`;
}

export function formatExplanation(explanation: Explanation): string {
  const out: string[] = [`task ${explanation.task}`];
  for (const [label, value] of explanation.facts) out.push(`  ${label}: ${value}`);
  if (explanation.next.length === 0) out.push("  next: none (final state)");
  else {
    out.push("  next:");
    for (const step of explanation.next) {
      out.push(`    → ${step.to}${step.needs.length > 0 ? ` (needs ${step.needs.join("; ")})` : ""}`);
    }
  }
  if (explanation.approvers.length > 0) out.push(`  who may approve: ${explanation.approvers.join(", ")}`);
  if (explanation.problems.length > 0) {
    out.push("  problems:");
    for (const problem of explanation.problems) out.push(`    ${formatItem(problem)}`);
  } else out.push("  problems: none");
  return `${out.join("\n")}\n`;
}

/**
 * The JSON contract of the checking commands (`check`, `audit`, `hook run`): exactly these keys. A
 * check that did not run (`undefined`) is neutral and empty.
 */
export function reportJson(report: Report | undefined) {
  return {
    conclusion: report?.conclusion ?? "neutral",
    violations: report?.violations ?? [],
    pending: report?.pending ?? [],
    transitions: report?.transitions ?? [],
    records: (report?.records ?? []).map(({ task, from, to, by, kind }) => ({ task, from, to, by, kind })),
  };
}
