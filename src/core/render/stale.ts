/**
 * Staleness of rendered status files: which files differ from what rendering the same state gives,
 * which are missing, and which cards belong to no task any more.
 */
import type { Snapshot, Violation } from "../types.js";
import { violation } from "../violations.js";

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

const SHOWN = 10;

/** `matrix-stale` for a repository that renders (its matrix exists) and whose files are out of date. */
export function staleViolations(rendered: ReadonlyMap<string, string>, snapshot: Snapshot, root: string): Violation[] {
  if (!snapshot.files.has(`${root}/matrix.md`)) return [];
  const { stale, extra } = staleness(rendered, snapshot, root);
  const all = [...stale, ...extra];
  const out = all.slice(0, SHOWN).map((path) =>
    violation("matrix-stale", {
      path,
      message: extra.includes(path)
        ? `${path} belongs to no task any more`
        : snapshot.files.has(path)
          ? `${path} does not match the current state`
          : `${path} is missing`,
    }),
  );
  if (all.length > SHOWN) {
    out.push(
      violation("matrix-stale", {
        path: root,
        message: `${all.length - SHOWN} more rendered file(s) under ${root}/ are out of date`,
      }),
    );
  }
  return out;
}
