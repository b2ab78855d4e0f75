/**
 * Text helpers both models use: how to name a file entry that is not readable text, a short quote
 * of user text, and the known name nearest to a typo.
 */
import type { FileEntry } from "./types.js";

export function describeKind(entry: FileEntry): string {
  switch (entry.kind) {
    case "symlink":
      return "a symlink";
    case "binary":
      return "a binary file";
    case "oversized":
      return `too large to read (${entry.size} bytes)`;
    case "submodule":
      return "a submodule";
    default:
      return "a file";
  }
}

export function truncate(text: string, max = 60): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** The known name nearest to a typo, when it is near enough to suggest. */
export function closest(value: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const distance = editDistance(value.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(value.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 10) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
