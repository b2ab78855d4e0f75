/**
 * Staleness of rendered status files: which files differ from what rendering the same state gives,
 * which are missing, and which cards belong to no task any more.
 */
import { fileStartsWith } from "./files.js";
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
  readonly paths: readonly string[];
}

const SHOWN = 10;

/**
 * `matrix-stale` for a repository that renders (its matrix exists): a rendered file is stale when it
 * is missing, when its stamp names another state than the current one, or when it is the card of a
 * task that no longer exists. Judged from the stamps alone, so an audit never re-renders;
 * `taskgate render --check` compares whole contents.
 */
export function staleViolations(planOf: () => RenderPlan, snapshot: Snapshot, root: string): Violation[] {
  if (!snapshot.files.has(`${root}/matrix.md`)) return [];
  const plan = planOf();
  const expected = new Set(plan.paths);
  const stampLine = `${plan.stamp}\n`;
  const problems: { path: string; message: string }[] = [];
  for (const path of plan.paths) {
    const entry = snapshot.files.get(path);
    if (!entry) problems.push({ path, message: `${path} is missing` });
    else if (!fileStartsWith(entry, stampLine)) {
      problems.push({ path, message: `${path} was rendered from another state than the current one` });
    }
  }
  const cards = `${root}/cards/`;
  const orphans = [...snapshot.files.keys()].filter((path) => path.startsWith(cards) && !expected.has(path));
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
