/**
 * Comparing the task store at two commits of a pull request by content: each `RevisionView` lists
 * the paths that differ from the head with their content id, so any two views can be compared path by
 * path without reading project files, whatever the commit topology between them.
 */
import type { RevisionView, Snapshot } from "./types.js";

/** Stands for "the same content as the head" in comparisons. */
const AS_HEAD = "\u0000head";

/** The view of the head itself: nothing differs from it. */
export function headView(sha: string, snapshot: Snapshot): RevisionView {
  return { sha, snapshot, changed: new Map() };
}

function idAt(view: RevisionView, path: string): string {
  const changed = view.changed;
  if (!changed.has(path)) return AS_HEAD;
  return changed.get(path) ?? "\u0000absent";
}

/** Paths whose content differs between two views. */
export function differingPaths(a: RevisionView, b: RevisionView): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const map of [a.changed, b.changed]) {
    for (const path of map.keys()) {
      if (seen.has(path)) continue;
      seen.add(path);
      if (idAt(a, path) !== idAt(b, path)) out.push(path);
    }
  }
  return out;
}
