/**
 * What a report looks like on GitHub: the check run's title, summary (a table of tasks and moves, a
 * Mermaid diagram of them, the problems with their fixes) and annotations, and the sticky comment.
 * Pure functions of the report, kept under GitHub's limits with a visible note when cut. Every text
 * that came from the repository (ids, paths, messages, owners, review bodies) is made inert first:
 * no live mention, link, image, reference or HTML (`inert.ts`); secrets are redacted on the final
 * text, before it is shortened.
 */
import { fingerprint, mermaidLabel, redactDeep, table } from "../core/index.js";
import type { Pending, Report, Violation } from "../core/index.js";
import { finalText, inertMarkdown as cell, inertPlain } from "./inert.js";

/** GitHub refuses a check run summary or a comment body above this many characters. */
export const GITHUB_TEXT_LIMIT = 65_535;
/** GitHub takes at most this many annotations per request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** The hidden marker of taskgate's one comment on a pull request. */
export const COMMENT_MARKER = "<!-- taskgate:sticky-comment -->";

export type CheckConclusion = "success" | "failure" | "action_required" | "neutral";

export interface Annotation {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly annotation_level: "failure" | "warning" | "notice";
  readonly title: string;
  readonly message: string;
}

export interface CheckOutput {
  readonly conclusion: CheckConclusion;
  readonly title: string;
  readonly summary: string;
  readonly annotations: readonly Annotation[];
  /** Names the result: the same report gives the same fingerprint, so an unchanged check is not rewritten. */
  readonly fingerprint: string;
}

/** Why the bot did not commit a report's records, when it did not. */
export interface Withheld {
  readonly reason: string;
}

export function checkName(baseRef: string): string {
  return `taskgate: ${baseRef}`;
}

/** The check run for a report (redacted again: nothing a user wrote reaches GitHub unfiltered). */
export function checkOutput(raw: Report, withheld?: Withheld, pageUrl?: string): CheckOutput {
  const report = redactDeep(raw);
  const conclusion: CheckConclusion =
    withheld && report.records.length > 0 && report.conclusion === "success" ? "action_required" : report.conclusion;
  const title = titleOf(report, conclusion);
  const body = [
    `**${cell(title)}**`,
    "",
    ...(withheld && report.records.length > 0 ? [`> ${withheld.reason}`, ""] : []),
    ...sections(report),
  ].join("\n");
  const link = pageLink(pageUrl);
  const print = fingerprint(`${conclusion}\n${body}${link}`);
  return {
    conclusion,
    title,
    summary: fit(`<!-- taskgate:fingerprint ${print} -->\n${body}`, GITHUB_TEXT_LIMIT - link.length) + link,
    annotations: annotations(report),
    fingerprint: print,
  };
}

function titleOf(report: Report, conclusion: CheckConclusion): string {
  if (conclusion === "neutral") return report.summary.replace(/^neutral: /, "");
  const parts: string[] = [];
  if (report.violations.length > 0) parts.push(`${report.violations.length} problem(s)`);
  if (report.pending.length > 0) parts.push(`${report.pending.length} approval(s) pending`);
  if (report.records.length > 0) parts.push(`${report.records.length} decision(s) to record`);
  if (parts.length === 0) parts.push(report.transitions.length > 0 ? "every move is legal" : "nothing to judge");
  return parts.join(", ");
}

function sections(report: Report): string[] {
  const out: string[] = [];
  if (report.transitions.length > 0) {
    out.push("### Moves", "");
    out.push(
      table(
        ["task", "from", "to"],
        report.transitions.map((move) => [cell(move.task), cell(move.from ?? "(new)"), cell(move.to ?? "(deleted)")]),
      ),
      "",
      "```mermaid",
      "flowchart LR",
    );
    report.transitions.forEach((move, index) => {
      const from = mermaidLabel(`${move.task}: ${move.from ?? "new task"}`);
      const to = mermaidLabel(`${move.task}: ${move.to ?? "deleted"}`);
      out.push(`  m${index}a[${from}] --> m${index}b[${to}]`);
    });
    out.push("```", "");
  }
  if (report.violations.length > 0) {
    out.push(`### Problems (${report.violations.length})`, "");
    out.push(table(["where", "code", "what is wrong", "how to fix it"], report.violations.map(problemRow)), "");
  }
  if (report.pending.length > 0) {
    out.push(`### Waiting for approval (${report.pending.length})`, "");
    out.push(
      table(
        ["task", "what waits", "who may approve"],
        report.pending.map((item: Pending) => [cell(item.task), cell(item.message), cell(item.approvers.join(", "))]),
      ),
      "",
    );
  }
  if (report.records.length > 0) {
    out.push("### Decisions to record", "");
    out.push(
      table(
        ["task", "from", "to", "by", "kind"],
        report.records.map((record) => [
          cell(record.task),
          cell(record.from),
          cell(record.to),
          cell(record.by),
          cell(record.kind),
        ]),
      ),
      "",
    );
  }
  return out;
}

function where(item: Violation): string {
  if (!item.path) return cell(item.task ? `task ${item.task}` : "(pull request)");
  return cell(item.line !== undefined ? `${item.path}:${item.line}` : item.path);
}

function problemRow(item: Violation): string[] {
  return [where(item), `\`${item.code}\``, cell(item.message), cell(item.hint)];
}

function annotations(report: Report): Annotation[] {
  const out: Annotation[] = [];
  for (const item of [...report.violations, ...report.pending]) {
    if (!item.path) continue;
    const line = item.line ?? 1;
    out.push({
      path: item.path,
      start_line: line,
      end_line: line,
      annotation_level: item.code === "approval-required" ? "notice" : "failure",
      title: item.code,
      message: finalText(inertPlain(`${item.message}\nHow to fix: ${item.hint}`), 64_000, "…"),
    });
  }
  return out;
}

/**
 * Cuts a text to GitHub's limit at a line boundary, saying so at the end; secrets are redacted in
 * the whole text before it is cut, so a token across the cut goes whole.
 */
export function fit(text: string, limit: number): string {
  return finalText(
    text,
    limit,
    "\n\n_Cut short: GitHub shows at most 65,535 characters here. Run `taskgate check` locally for every finding._\n",
  );
}

/** The sticky comment: what is wrong and how to fix it, or an all-clear once everything is fixed. */
export function commentBody(raw: Report, headSha: string, withheld?: Withheld, pageUrl?: string): string {
  const report = redactDeep(raw);
  const link = pageLink(pageUrl);
  const out = [COMMENT_MARKER, `<!-- taskgate:head ${headSha} -->`];
  if (report.violations.length === 0 && report.pending.length === 0 && !(withheld && report.records.length > 0)) {
    out.push(`✅ **taskgate**: every problem found earlier is fixed (checked at ${headSha.slice(0, 7)}).`);
    return out.join("\n") + link;
  }
  out.push(`**taskgate** checked ${headSha.slice(0, 7)}:`, "");
  if (withheld && report.records.length > 0) out.push(`> ${withheld.reason}`, "");
  if (report.violations.length > 0) {
    out.push(`#### Problems (${report.violations.length})`, "");
    for (const item of report.violations) {
      out.push(`- ${where(item)} \`${item.code}\`: ${cell(item.message)}  `, `  _How to fix:_ ${cell(item.hint)}`);
    }
    out.push("");
  }
  if (report.pending.length > 0) {
    out.push(`#### Waiting for approval (${report.pending.length})`, "");
    for (const item of report.pending)
      out.push(`- ${cell(item.message)}  `, `  _Who may approve:_ ${cell(item.approvers.join(", "))}`);
    out.push("");
  }
  return fit(out.join("\n"), GITHUB_TEXT_LIMIT - link.length) + link;
}

/**
 * The last lines of the summary and the comment when the pages are on: a link to the pull request's
 * page. The URL is the App's own (its `TASKGATE_URL` and the event's repository), never repository
 * text; anything but an http(s) URL gives no link, and parentheses and spaces are encoded so the
 * link cannot end early.
 */
export function pageLink(pageUrl: string | undefined): string {
  if (!pageUrl) return "";
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return "";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "";
  const href = url.href.replace(/[()<>\s[\]]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `\n\n[See this pull request on taskgate's page](${href})\n`;
}

/** The tracking issue of the scheduled audit: every problem with its fix, and the audited commit. */
export function auditIssueBody(raw: Report, branch: string, sha: string): string {
  const report = redactDeep(raw);
  const head = [
    "<!-- taskgate:audit -->",
    `<!-- taskgate:audited ${sha} -->`,
    `**taskgate audit** of ${cell(branch)} at ${sha.slice(0, 7)}: ${report.violations.length} problem(s).`,
    "",
  ];
  if (report.violations.length === 0) {
    head.push("✅ Everything is in order: every task follows the workflow and every change went through a check.");
    return head.join("\n");
  }
  head.push(
    "This issue is kept up to date by each audit and closed once the branch is clean.",
    "",
    table(["where", "code", "what is wrong", "how to fix it"], report.violations.map(problemRow)),
    "",
  );
  if (report.records.length > 0) {
    head.push("### Follow-ups taskgate will record", "");
    head.push(
      table(
        ["task", "from", "to", "kind"],
        report.records.map((r) => [cell(r.task), cell(r.from), cell(r.to), cell(r.kind)]),
      ),
      "",
    );
  }
  return fit(head.join("\n"), GITHUB_TEXT_LIMIT);
}
