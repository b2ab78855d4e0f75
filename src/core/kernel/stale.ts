/**
 * Staleness of rendered status files: which files differ from what rendering the same state gives,
 * which are missing, and which cards belong to no task any more.
 */
import { fileStartsWith } from "./files.js";
import { compareIds } from "./markdown.js";
import type { Snapshot, Violation } from "./types.js";
import { violation } from "./violations.js";

export interface Staleness {
  /** Files whose content differs from the rendering, or that do not exist. */
  readonly stale: readonly string[];
  /** Files under the cards folder that rendering no longer produces. */
  readonly extra: readonly string[];
}

export function staleness(rendered: ReadonlyMap<string, string>, snapshot: Snapshot, root: string): Staleness {
  const stale: string[] = [];
  for (const [path, content] of rendered) {
    const entry = snapshot.files.get(path);
    if (!entry || entry.kind !== "file" || entry.text !== content) stale.push(path);
  }
  const cards = `${root}/cards/`;
  const extra = [...snapshot.files.keys()].filter((path) => path.startsWith(cards) && !rendered.has(path)).sort();
  return { stale: stale.sort(), extra };
}

export interface RenderPlan {
  /** The first line of every rendered file: names the state it was rendered from. */
  readonly stamp: string;
  /** The rendered files other than the cards (the matrix, the stages), in the order they are reported. */
  readonly files: readonly string[];
  /** The ids of the tasks that have a card, `<root>/cards/<id>.md` (a set, or the keys of a map). */
  readonly cards: { has(id: string): boolean; readonly size: number; keys(): IterableIterator<string> };
}

const SHOWN = 10;

/**
 * `matrix-stale` for a repository that renders (its matrix exists): a rendered file is stale when it
 * is missing, when its stamp names another state than the current one, or when it is the card of a
 * task that no longer exists. Judged from the stamps alone, so an audit never re-renders;
 * `taskgate render --check` compares whole contents. Problems come in the plan's order: its other
 * files, then the cards by task id (people's order: T2 before T10), then cards of no task, sorted.
 *
 * The snapshot is walked once for the cards, without a path built per task: a card path names its
 * task, so only when fewer cards exist than tasks are the missing ones looked for.
 */
export function staleViolations(planOf: () => RenderPlan, snapshot: Snapshot, root: string): Violation[] {
  if (!snapshot.files.has(`${root}/matrix.md`)) return [];
  const plan = planOf();
  const stampLine = `${plan.stamp}\n`;
  const problems: { path: string; message: string }[] = [];
  for (const path of plan.files) {
    const entry = snapshot.files.get(path);
    if (!entry) problems.push({ path, message: `${path} is missing` });
    else if (!fileStartsWith(entry, stampLine)) problems.push({ path, message: staleMessage(path) });
  }
  const cards = `${root}/cards/`;
  const cardProblems: { id: string; path: string; message: string }[] = [];
  const orphans: string[] = [];
  let present = 0;
  snapshot.files.forEach((entry, path) => {
    if (!path.startsWith(cards)) return;
    const id = path.endsWith(".md") ? path.slice(cards.length, -".md".length) : "";
    if (id === "" || !plan.cards.has(id)) {
      orphans.push(path);
      return;
    }
    present++;
    if (!fileStartsWith(entry, stampLine)) cardProblems.push({ id, path, message: staleMessage(path) });
  });
  if (present < plan.cards.size) {
    for (const id of plan.cards.keys()) {
      const path = `${cards}${id}.md`;
      if (!snapshot.files.has(path)) cardProblems.push({ id, path, message: `${path} is missing` });
    }
  }
  cardProblems.sort((a, b) => compareIds(a.id, b.id));
  for (const { path, message } of cardProblems) problems.push({ path, message });
  for (const path of orphans.sort()) problems.push({ path, message: `${path} belongs to no task any more` });
  const out = problems.slice(0, SHOWN).map((problem) => violation("matrix-stale", problem));
  if (problems.length > SHOWN) {
    out.push(
      violation("matrix-stale", {
        path: root,
        message: `${problems.length - SHOWN} more rendered file(s) under ${root}/ are out of date`,
      }),
    );
  }
  return out;
}

function staleMessage(path: string): string {
  return `${path} was rendered from another state than the current one`;
}
