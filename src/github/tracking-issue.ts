/**
 * The audit's tracking issue: ONE issue of taskgate's on the repository, created when the audit of
 * the default branch finds something wrong, updated in place, closed when the branch is clean. Which
 * issue is taskgate's is decided by what GitHub enforces (the App's id, or the token's login under
 * the Action); the label and the marker only pick among those. An issue anyone else opened, marker
 * or not, is never taken for it, never edited and never closed.
 */
import type { Report } from "../core/index.js";
import type { GitHubApi, IssueData } from "./api.js";
import { writtenBy, type Self } from "./identity.js";
import { finalText, inertPlain } from "./inert.js";
import { auditIssueBody } from "./summary.js";
import type { WriteResult } from "./writes.js";

export const AUDIT_LABEL = "taskgate-audit";
export const AUDIT_MARKER = "<!-- taskgate:audit -->";
/** GitHub refuses an issue title above this many characters. */
const TITLE_LIMIT = 256;

export interface TrackedIssue {
  readonly number: number;
  readonly open: boolean;
  readonly body: string;
}

/** Is this issue taskgate's tracking issue: its own (by the App's id or the token's login), with the marker? */
export function isTrackingIssue(issue: IssueData, self: Self): boolean {
  return Boolean(issue.body?.includes(AUDIT_MARKER)) && writtenBy(issue, self);
}

/**
 * The tracking issue taskgate keeps, among the issues with the label: its own open one (the oldest
 * when there are several), else its most recent closed one.
 */
export async function findTrackingIssue(api: GitHubApi, self: Self): Promise<TrackedIssue | undefined> {
  const mine = (await api.labelledIssues(AUDIT_LABEL))
    .filter((issue) => isTrackingIssue(issue, self))
    .sort((a, b) => a.number - b.number);
  const issue = mine.find((item) => item.state === "open") ?? mine.at(-1);
  if (!issue) return undefined;
  return { number: issue.number, open: issue.state === "open", body: issue.body ?? "" };
}

/** The issue's title for a report: the number of problems, or that the branch is clean. */
function titleOf(report: Report, branch: string): string {
  const text =
    report.violations.length === 0
      ? `taskgate audit: ${branch} is clean`
      : `taskgate audit: ${report.violations.length} problem(s) on ${branch}`;
  return finalText(inertPlain(text), TITLE_LIMIT);
}

/**
 * Brings the tracking issue in line with an audit's report: created when something is wrong and
 * none exists, updated (and reopened) when its text changed, closed when the branch is clean.
 */
export async function trackIssue(
  api: GitHubApi,
  input: { branch: string; sha: string; report: Report; self: Self },
): Promise<WriteResult | "closed"> {
  const existing = await findTrackingIssue(api, input.self);
  const clean = input.report.violations.length === 0;
  const body = auditIssueBody(input.report, input.branch, input.sha);
  const title = titleOf(input.report, input.branch);
  if (!existing) {
    if (clean) return "none";
    await api.createIssue({ title, body, labels: [AUDIT_LABEL] });
    return "created";
  }
  if (clean && !existing.open) return "unchanged";
  if (existing.body === body && existing.open === !clean) return "unchanged";
  await api.updateIssue(existing.number, { body, title, state: clean ? "closed" : "open" });
  return clean ? "closed" : "updated";
}
