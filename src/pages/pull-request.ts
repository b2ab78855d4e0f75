/**
 * The page of one pull request's evaluation at its head: the conclusion, each task's move, the
 * problems linked to their file and line on GitHub, the gates waiting for approval and who may
 * approve them, each review and whether it counted, what the bot records, and each moved task's
 * path through the workflow as a diagram. A pure function of the data a server has read.
 */
import type { BotRecord, Pending, Report, Transition, Violation } from "../core/index.js";
import { blobUrl, component, githubBase, link, segments, text, userUrl, type RepositoryRef } from "./html.js";
import { dataTable, itemList, layout, section } from "./layout.js";
import { notesOf } from "./repository.js";
import type { ReviewView, WorkflowGraph } from "./data.js";
import { pathThrough, workflowDiagram } from "./svg.js";

/** At most this many workflow diagrams on one page (one per moved task). */
export const MAX_DIAGRAMS = 20;

export interface PullRequestPageInput extends RepositoryRef {
  readonly number: number;
  /** The commit evaluated: problems link to their file at it. */
  readonly headSha: string;
  readonly title?: string;
  /** The core's report of the evaluation at `headSha`. */
  readonly report: Report;
  /** Every review with whether it counted (`reviewViews(pr.reviews, report)`). */
  readonly reviews: readonly ReviewView[];
  /** The config's workflow (`workflowGraph(config)`), for the diagrams. */
  readonly workflow: WorkflowGraph;
  /**
   * The logins each role or team among the approvers stands for (`approverLogins(config, report,
   * pr.teams)`), so the page names people, not only roles.
   */
  readonly approvers?: Readonly<Record<string, readonly string[]>>;
  /** Why the bot did not commit the report's records, when it did not. */
  readonly withheld?: string;
  /** The repository page's path on this server; default `/taskgate/<owner>/<repo>`. */
  readonly repositoryHref?: string;
  /**
   * `false`: the repository is not on GitHub (a checkout without a GitHub `origin`): files, commits,
   * people and the pull request are named as plain text, never linked. Default `true`.
   */
  readonly githubLinks?: boolean;
  /** Sentences on the teams among the approvers: whose members could not be listed, or why teams stay by name. */
  readonly teamNotes?: readonly string[];
}

const CONCLUSION_WORDS: Readonly<Record<Report["conclusion"], string>> = {
  success: "Every move is legal",
  failure: "Problems to fix",
  action_required: "Waiting for approval",
  neutral: "Nothing judged",
};

export function pullRequestPage(input: PullRequestPageInput): string {
  const report = input.report;
  const repositoryHref = input.repositoryHref ?? `/taskgate/${segments(input.owner, input.repo)}`;
  const pullUrl = onGitHub(input) ? `${githubBase(input)}/pull/${component(String(input.number))}` : undefined;
  const body = [
    conclusionSection(input, pullUrl),
    section("moves", `Moves (${report.transitions.length})`, movesContent(input)),
    section("problems", `Problems (${report.violations.length})`, problemsContent(input)),
    section("pending", `Waiting for approval (${report.pending.length})`, pendingContent(input)),
    section("reviews", `Reviews (${input.reviews.length})`, reviewsContent(input)),
    section("records", `What taskgate records (${report.records.length})`, recordsContent(input)),
  ].join("\n");
  return layout({
    title: `Pull request #${input.number}${input.title ? `: ${input.title}` : ""}`,
    kicker: `${input.owner}/${input.repo} at ${input.headSha.slice(0, 7)}`,
    crumbs: [{ label: `${input.owner}/${input.repo}`, href: repositoryHref }, { label: `#${input.number}` }],
    body,
  });
}

/** Whether the page may link to GitHub: the repository lives there. */
function onGitHub(input: PullRequestPageInput): boolean {
  return input.githubLinks !== false;
}

/** A link to GitHub, or the label alone when the repository is not on GitHub. */
function gitHubLink(input: PullRequestPageInput, href: string, label: string): string {
  return onGitHub(input) ? link(href, label) : text(label);
}

function conclusionSection(input: PullRequestPageInput, pullUrl: string | undefined): string {
  const conclusion = input.report.conclusion;
  const withheld = input.withheld && input.report.records.length > 0 ? `<p>${text(input.withheld)}</p>` : "";
  return section(
    "conclusion",
    "Conclusion",
    `<div class="banner"><p><strong class="label state-${conclusion}">${text(conclusion)}</strong> ` +
      `${text(CONCLUSION_WORDS[conclusion])}</p><p>${text(input.report.summary)}</p>${withheld}` +
      `<p>${pullUrl ? `${link(pullUrl, "The pull request on GitHub")} · ` : ""}evaluated at ` +
      `${gitHubLink(input, `${githubBase(input)}/commit/${component(input.headSha)}`, input.headSha.slice(0, 7))}</p></div>`,
  );
}

function movesContent(input: PullRequestPageInput): string {
  const moves = input.report.transitions;
  if (moves.length === 0) return `<p class="muted">${text("The pull request moves no task.")}</p>`;
  const rows = moves.map((move) => [
    `<code>${text(move.task)}</code>`,
    text(move.from ?? "(new)"),
    text(move.to ?? "(deleted)"),
  ]);
  const diagrams = moves.slice(0, MAX_DIAGRAMS).map((move, index) => moveDiagram(input.workflow, move, index));
  const more =
    moves.length > MAX_DIAGRAMS
      ? `<p class="muted">${text(`Diagrams of the first ${MAX_DIAGRAMS} moves only.`)}</p>`
      : "";
  return (
    dataTable("Each task the pull request touches, from → to", ["task", "from", "to"], rows) + diagrams.join("") + more
  );
}

/** The path a move takes through the workflow: the cheapest by number of steps. */
export function movePath(workflow: WorkflowGraph, move: Transition): string[] {
  const from = move.from ?? workflow.states[0];
  const to = move.to ?? from;
  if (from === undefined || to === undefined) return [];
  return pathThrough(workflow.edges, from, to) ?? [from, to].filter((state) => workflow.states.includes(state));
}

function moveDiagram(workflow: WorkflowGraph, move: Transition, index: number): string {
  const path = movePath(workflow, move);
  const caption = `${move.task}: ${path.length > 0 ? path.join(" → ") : "no path through the workflow"}`;
  return (
    `<figure>${workflowDiagram(workflow.states, path, `The path of ${move.task} through the workflow`, `arrow-${index}`)}` +
    `<figcaption>${text(caption)}</figcaption></figure>`
  );
}

function where(input: PullRequestPageInput, item: Violation): string {
  if (!item.path) return text(item.task ? `task ${item.task}` : "(pull request)");
  const label = item.line !== undefined ? `${item.path}:${item.line}` : item.path;
  return gitHubLink(input, blobUrl(input, input.headSha, item.path, item.line), label);
}

function problemsContent(input: PullRequestPageInput): string {
  return itemList(
    input.report.violations.map(
      (item) =>
        `${where(input, item)} <code>${text(item.code)}</code><p>${text(item.message)}</p>` +
        `<p><strong>How to fix:</strong> ${text(item.hint)}</p>`,
    ),
    "No problems.",
  );
}

/** One approver principal, with the people it stands for when known. */
function approver(input: PullRequestPageInput, principal: string): string {
  const logins = input.approvers && Object.hasOwn(input.approvers, principal) ? input.approvers[principal] : undefined;
  const people =
    logins === undefined
      ? ""
      : logins.length === 0
        ? ` (${text("nobody")})`
        : ` (${logins.map((login) => (login.startsWith("@") ? text(login) : gitHubLink(input, userUrl(input.host, login), login))).join(", ")})`;
  return `<span class="mono">${text(principal)}</span>${people}`;
}

function pendingContent(input: PullRequestPageInput): string {
  return (
    itemList(
      input.report.pending.map(
        (item: Pending) =>
          `${where(input, item)}<p>${text(item.message)}</p>` +
          `<p><strong>Who may approve:</strong> ${item.approvers.map((who) => approver(input, who)).join(", ")}</p>` +
          `<p class="muted">${text(item.hint)}</p>`,
      ),
      "No gate waits for approval.",
    ) + (input.report.pending.length > 0 ? notesOf(input.teamNotes) : "")
  );
}

function reviewsContent(input: PullRequestPageInput): string {
  if (input.reviews.length === 0) return `<p class="muted">${text("No reviews yet.")}</p>`;
  const rows = input.reviews.map((review) => [
    review.login === null
      ? text("(deleted account)")
      : gitHubLink(input, userUrl(input.host, review.login), review.login),
    text(review.state),
    review.submittedAt ? `<time datetime="${text(review.submittedAt)}">${text(review.submittedAt)}</time>` : "",
    review.commit ? `<code>${text(review.commit.slice(0, 7))}</code>` : "",
    `<span class="label ${review.counted ? "counted" : "not-counted"}">${review.counted ? "counted" : "not counted"}</span> ${text(review.why)}` +
      (review.body ? `<blockquote>${text(review.body)}</blockquote>` : ""),
  ]);
  return dataTable("Each review and whether it counted", ["reviewer", "state", "submitted", "commit", "counted"], rows);
}

function recordsContent(input: PullRequestPageInput): string {
  const records = input.report.records;
  if (records.length === 0) return `<p class="muted">${text("Nothing to record.")}</p>`;
  const rows = records.map((record: BotRecord) => [
    `<code>${text(record.task)}</code>`,
    text(record.from),
    text(record.to),
    text(record.by),
    text(record.kind),
    text(record.at ?? ""),
  ]);
  return dataTable("The decisions taskgate records on the branch", ["task", "from", "to", "by", "kind", "at"], rows);
}
