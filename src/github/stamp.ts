/**
 * What a result on GitHub was computed from. Every check run, commit status and comment taskgate
 * writes carries the stamp of its facts (GitHub's time of the read, and how many review events it
 * showed); a result computed from older facts than the one in place is never written over it.
 */
import type { FactsStamp } from "./api.js";

export type { FactsStamp };

const PATTERN = /taskgate:facts (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\+(\d+)/;

/** The stamp as text: `2026-12-01T10:00:00Z+3`. */
export function stampText(stamp: FactsStamp): string {
  return `${stamp.at}+${stamp.seen}`;
}

/** The stamp as a hidden line of a check run summary or a comment. */
export function stampMarker(stamp: FactsStamp): string {
  return `<!-- taskgate:facts ${stampText(stamp)} -->`;
}

/** The stamp as the end of a commit status's description (which has no room for hidden lines). */
export function stampSuffix(stamp: FactsStamp): string {
  return ` (taskgate:facts ${stampText(stamp)})`;
}

/** The stamp a text carries, if any. */
export function readStamp(text: string | null | undefined): FactsStamp | undefined {
  const match = PATTERN.exec(text ?? "");
  return match ? { at: match[1]!, seen: Number(match[2]) } : undefined;
}

/** The text without its stamp: two results that differ only in their stamps say the same. */
export function withoutStamp(text: string | null | undefined): string {
  return (text ?? "").replace(/<!-- taskgate:facts [^>]*-->\n?/g, "").replace(/ \(taskgate:facts [^)]*\)$/, "");
}

/** Were the facts of `a` read before those of `b`? Equal stamps are not older. */
export function isOlder(a: FactsStamp, b: FactsStamp): boolean {
  if (a.at !== b.at) return a.at < b.at;
  return a.seen < b.seen;
}
