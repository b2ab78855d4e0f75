/**
 * The page of a repository's default branch: every task with its state (on a board its owner, role
 * and stage too), paged and counted by state; the tasks that wait on others, as a list and as a
 * graph; and the tasks waiting for review with who may review them. Filters by state, owner and
 * role are a plain GET form and links, so they work without script. A pure function of the data.
 */
import { attr, githubBase, link, queryString, segments, text, type RepositoryRef } from "./html.js";
import { dataTable, itemList, layout, section } from "./layout.js";
import type { TaskView } from "./data.js";
import { waitsOnGraph, type Edge } from "./svg.js";

/** Tasks per page of the task list. */
export const PAGE_SIZE = 200;
/** At most this many entries in the waiting lists and edges in the graph; the rest are counted. */
export const MAX_LISTED = 200;
export const MAX_GRAPH_EDGES = 120;

export interface RepositoryPageInput extends RepositoryRef {
  /** The branch shown (the default branch) and the commit read, when known. */
  readonly branch: string;
  readonly sha?: string;
  readonly preset: "phases" | "board";
  /** Every task at that commit (`repositoryTasks(config, snapshot, teams)`). */
  readonly tasks: readonly TaskView[];
  /** This page's path on the server, for filter links and the form; default `/taskgate/<owner>/<repo>`. */
  readonly href?: string;
  /**
   * `false`: the repository is not on GitHub (a checkout without a GitHub `origin`), so the page
   * links nothing there and names the repository as plain text. Default `true`.
   */
  readonly githubLinks?: boolean;
  /** Sentences on the teams among who may review: whose members could not be listed, or why teams stay by name. */
  readonly teamNotes?: readonly string[];
}

/** The query string's filters; unknown parameters are ignored. */
export interface RepositoryQuery {
  readonly state?: string;
  readonly owner?: string;
  readonly role?: string;
  /** 1-based; out of range shows the nearest page. */
  readonly page?: string | number;
}

/** Reads the filters from a query string or its parsed form. */
export function parseQuery(query: URLSearchParams | string | RepositoryQuery | undefined): RepositoryQuery {
  if (query === undefined) return {};
  const params =
    typeof query === "string" ? new URLSearchParams(query) : query instanceof URLSearchParams ? query : undefined;
  if (!params) return query as RepositoryQuery;
  const read = (key: string) => params.get(key)?.trim() || undefined;
  return { state: read("state"), owner: read("owner"), role: read("role"), page: read("page") };
}

function ownerMatches(owner: string | null | undefined, wanted: string): boolean {
  if (!owner) return wanted === "(none)";
  const key = wanted.toLowerCase();
  return owner.toLowerCase() === key || owner.split("/")[0]!.toLowerCase() === key;
}

/** The tasks a query selects, in the order given. */
export function filterTasks(tasks: readonly TaskView[], query: RepositoryQuery): TaskView[] {
  return tasks.filter(
    (task) =>
      (query.state === undefined || task.state === query.state) &&
      (query.role === undefined || task.role === query.role) &&
      (query.owner === undefined || ownerMatches(task.owner, query.owner)),
  );
}

/** One page of rows: the page number clamped to the pages there are. */
export function pageOf<T>(
  rows: readonly T[],
  page: string | number | undefined,
): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const asked = Number.parseInt(String(page ?? "1"), 10);
  const current = Math.min(pages, Math.max(1, Number.isFinite(asked) ? asked : 1));
  return { rows: rows.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE), page: current, pages };
}

export function repositoryPage(
  input: RepositoryPageInput,
  rawQuery?: URLSearchParams | string | RepositoryQuery,
): string {
  const query = parseQuery(rawQuery);
  const href = input.href ?? `/taskgate/${segments(input.owner, input.repo)}`;
  const selected = filterTasks(input.tasks, query);
  const byId = new Map(input.tasks.map((task) => [task.id, task]));
  const body = [
    section("filters", "Filter", filterForm(input, query, href)),
    section("tasks", `Tasks (${selected.length} of ${input.tasks.length})`, tasksContent(input, selected, query, href)),
    section("blocked", "Who waits on whom", blockedContent(selected, byId)),
    section("review", "Waiting for review", reviewContent(selected) + notesOf(input.teamNotes)),
  ].join("\n");
  return layout({
    title: `Tasks of ${input.owner}/${input.repo}`,
    kicker: `${input.branch}${input.sha ? ` at ${input.sha.slice(0, 7)}` : ""} · ${input.preset}`,
    crumbs: [
      { label: `${input.owner}/${input.repo}`, ...(input.githubLinks !== false && { href: githubBase(input) }) },
      { label: "tasks" },
    ],
    body,
  });
}

function options(values: readonly string[], chosen: string | undefined, any?: string): string {
  const items = any === undefined ? [] : [`<option value="">${text(any)}</option>`];
  for (const value of values) {
    items.push(`<option ${attr("value", value)}${value === chosen ? " selected" : ""}>${text(value)}</option>`);
  }
  return items.join("");
}

function distinct(values: readonly (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => !!value))].sort();
}

function filterForm(input: RepositoryPageInput, query: RepositoryQuery, href: string): string {
  const board = input.preset === "board";
  const fields = [
    `<label>State <select name="state">${options(distinct(input.tasks.map((task) => task.state)), query.state, "any state")}</select></label>`,
  ];
  if (board) {
    fields.push(
      `<label>Owner <input type="text" name="owner" list="owners" ${attr("value", query.owner ?? "")}></label>` +
        `<datalist id="owners">${options(distinct(input.tasks.map((task) => task.owner)), undefined)}</datalist>`,
      `<label>Role <select name="role">${options(distinct(input.tasks.map((task) => task.role)), query.role, "any role")}</select></label>`,
    );
  }
  return (
    `<form class="filters" method="get" ${attr("action", href)} role="search" aria-label="Filter tasks">` +
    `${fields.join("")}<button type="submit">Filter</button> ${link(href, "Clear filters")}</form>` +
    stateCounts(input, query, href)
  );
}

/** The tasks grouped by state: one link per state with its count. */
function stateCounts(input: RepositoryPageInput, query: RepositoryQuery, href: string): string {
  const counts = new Map<string, number>();
  for (const task of filterTasks(input.tasks, { ...query, state: undefined })) {
    counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
  }
  const items = [...counts].map(([state, count]) => {
    const target = `${href}${queryString({ state, owner: query.owner, role: query.role })}`;
    return `<li>${link(target, `${state}: ${count}`)}</li>`;
  });
  return `<nav aria-label="Tasks by state"><ul class="items">${items.join("")}</ul></nav>`;
}

function taskRow(input: RepositoryPageInput, task: TaskView): string[] {
  const cells = [`<code>${text(task.id)}</code>`, text(task.title ?? ""), text(task.state)];
  if (input.preset === "board") cells.push(text(task.owner ?? "—"), text(task.role ?? ""), text(task.stage ?? ""));
  return cells;
}

function tasksContent(
  input: RepositoryPageInput,
  selected: readonly TaskView[],
  query: RepositoryQuery,
  href: string,
): string {
  const paged = pageOf(selected, query.page);
  const headers =
    input.preset === "board" ? ["id", "title", "state", "owner", "role", "stage"] : ["id", "title", "state"];
  const caption = `Tasks ${paged.rows.length === 0 ? 0 : (paged.page - 1) * PAGE_SIZE + 1}–${(paged.page - 1) * PAGE_SIZE + paged.rows.length} of ${selected.length}`;
  const table = dataTable(
    caption,
    headers,
    paged.rows.map((task) => taskRow(input, task)),
  );
  return table + pager(paged.page, paged.pages, query, href);
}

function pager(current: number, pages: number, query: RepositoryQuery, href: string): string {
  if (pages <= 1) return "";
  const wanted = new Set([1, pages, current - 2, current - 1, current, current + 1, current + 2]);
  const items: string[] = [];
  let last = 0;
  for (let page = 1; page <= pages; page++) {
    if (!wanted.has(page)) continue;
    if (page > last + 1) items.push('<li><span aria-hidden="true">…</span></li>');
    last = page;
    const target = `${href}${queryString({ state: query.state, owner: query.owner, role: query.role, page })}`;
    items.push(
      page === current
        ? `<li><span aria-current="page">${page}</span></li>`
        : `<li><a ${attr("href", target)} ${attr("aria-label", `Page ${page}`)}>${page}</a></li>`,
    );
  }
  return `<nav class="pages" aria-label="Pages of tasks"><ul>${items.join("")}</ul></nav>`;
}

function who(task: TaskView | undefined, id: string): string {
  const owner = task?.owner ? ` (${task.owner})` : "";
  return `<code>${text(id)}</code>${text(owner)}`;
}

function blockedContent(selected: readonly TaskView[], byId: ReadonlyMap<string, TaskView>): string {
  const waiting = selected.filter((task) => (task.waitsOn ?? []).length > 0);
  const items = waiting.slice(0, MAX_LISTED).map((task) => {
    const on = (task.waitsOn ?? []).map(
      (id) => `${who(byId.get(id), id)} <span class="muted">${text(byId.get(id)?.state ?? "unknown task")}</span>`,
    );
    return `${who(task, task.id)} waits on ${on.join(", ")}`;
  });
  const edges: Edge[] = [];
  for (const task of waiting) {
    for (const id of task.waitsOn ?? []) if (edges.length < MAX_GRAPH_EDGES) edges.push({ from: task.id, to: id });
  }
  const more =
    waiting.length > MAX_LISTED
      ? `<p class="muted">${text(`${waiting.length - MAX_LISTED} more not listed; filter to narrow.`)}</p>`
      : "";
  const graph =
    edges.length === 0
      ? ""
      : `<figure>${waitsOnGraph(edges, "Who waits on whom")}<figcaption>${text(
          `An arrow goes from a task to the task it waits on${edges.length >= MAX_GRAPH_EDGES ? ` (first ${MAX_GRAPH_EDGES} waits only)` : ""}.`,
        )}</figcaption></figure>`;
  return itemList(items, "No task waits on another.") + more + graph;
}

function reviewContent(selected: readonly TaskView[]): string {
  const waiting = selected.filter((task) => task.reviewers !== undefined);
  const items = waiting.slice(0, MAX_LISTED).map((task) => {
    const people =
      task.reviewers!.length > 0
        ? task.reviewers!.map((login) => `<span class="mono">${text(login)}</span>`).join(", ")
        : text("nobody: the role has no members");
    return `${who(task, task.id)} ${text(task.title ?? "")}<p><strong>May review:</strong> ${people}</p>`;
  });
  const more =
    waiting.length > MAX_LISTED
      ? `<p class="muted">${text(`${waiting.length - MAX_LISTED} more not listed; filter to narrow.`)}</p>`
      : "";
  return itemList(items, "No task waits for review.") + more;
}

/** Notes under a list of people (teams whose members are unknown), each as muted text. */
export function notesOf(notes: readonly string[] | undefined): string {
  return (notes ?? []).map((note) => `<p class="muted">${text(note)}</p>`).join("");
}
