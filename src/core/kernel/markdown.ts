/** Small pure helpers for the rendered status files: tables, escaping, links, Mermaid ids, stamps. */

export const RENDER_MARKER = "<!-- taskgate:rendered";

/** The first line of every rendered file: what it was rendered from. Same input, same bytes. */
export function stamp(source: string): string {
  return `${RENDER_MARKER} from ${source}; edit the sources, not this file -->`;
}

/** Escapes text for a Markdown table cell (pipes, newlines, HTML). */
export function cell(text: string | number | null | undefined): string {
  if (text === null || text === undefined || text === "") return "";
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "\\|")
    .replace(/\r?\n/g, " ");
}

export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const out = [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`];
  for (const row of rows) out.push(`| ${row.map((value) => String(value)).join(" | ")} |`);
  return out.join("\n");
}

/** A relative link from a file in `fromDir` to a repository path. */
export function relativeLink(fromDir: string, target: string): string {
  const from = fromDir.split("/").filter(Boolean);
  const to = target.split("/").filter(Boolean);
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  const up = from.length - common;
  return [...Array<string>(up).fill(".."), ...to.slice(common)].map(encodeURIComponent).join("/");
}

/** A Mermaid-safe node id for any string. */
export function mermaidId(prefix: string, index: number): string {
  return `${prefix}${index}`;
}

/** A Mermaid label in double quotes, with quotes and brackets neutralised. */
export function mermaidLabel(text: string): string {
  return `"${text.replace(/"/g, "#quot;").replace(/[<>]/g, "")}"`;
}

/** FNV-1a over a string: a short, stable fingerprint of a state (not a security hash). */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

const collator = new Intl.Collator("en", { numeric: true });

/** Orders ids as people do: T2 before T10. */
export function compareIds(a: string, b: string): number {
  return collator.compare(a, b);
}
