/**
 * `Co-authored-by:` trailers of a commit message, found as git finds trailers: only in the message's
 * last paragraph, never in its title, and only when that paragraph is all trailers (continuation
 * lines included) or holds a git-generated one (`Signed-off-by: `) among at least 25% trailers.
 * Pure: no I/O.
 */

/** A person named in git: a name and an e-mail address, either possibly unknown. */
export interface GitIdentity {
  readonly name: string | null;
  readonly email: string | null;
}

/** Trailer lines git itself writes: a paragraph holding one needs only 25% trailers. */
const GIT_GENERATED = ["Signed-off-by: ", "(cherry picked from commit "];

/** Where git's default separator `:` ends a trailer's key (`Key:`, `Key :`), or -1. */
function separatorAt(line: string): number {
  const match = /^[A-Za-z0-9-]+[ \t]*:/.exec(line);
  return match ? match[0].length - 1 : -1;
}

const isBlank = (line: string) => line.trim() === "";
const isComment = (line: string) => line.startsWith("#");
const isContinuation = (line: string) => /^[ \t]/.test(line);

/** The lines of the trailer block (the last paragraph), or none when the message has no trailers. */
function trailerBlock(message: string): string[] {
  const lines = message.replace(/\r\n?/g, "\n").split("\n");
  // The first paragraph is the title and is never trailers.
  let title = 0;
  while (title < lines.length && (isComment(lines[title]!) || !isBlank(lines[title]!))) title++;
  let trailers = 0;
  let others = 0;
  let continuations = 0;
  let recognized = false;
  let onlySpaces = true;
  for (let at = lines.length - 1; at >= title; at--) {
    const line = lines[at]!;
    if (isComment(line)) {
      others += continuations;
      continuations = 0;
    } else if (isBlank(line)) {
      if (onlySpaces) continue;
      others += continuations;
      const block = (recognized && trailers * 3 >= others) || (trailers > 0 && others === 0);
      return block ? lines.slice(at + 1) : [];
    } else {
      onlySpaces = false;
      if (GIT_GENERATED.some((prefix) => line.startsWith(prefix))) {
        trailers++;
        continuations = 0;
        recognized = true;
      } else if (separatorAt(line) >= 1) {
        trailers++;
        continuations = 0;
      } else if (isContinuation(line)) continuations++;
      else {
        others += 1 + continuations;
        continuations = 0;
      }
    }
  }
  return [];
}

/** The trailers of a message as key and value (continuation lines unfolded), in order. */
export function trailersOf(message: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  let current: { key: string; value: string } | undefined;
  for (const line of trailerBlock(message)) {
    if (isComment(line)) continue;
    if (isContinuation(line) && current) {
      current.value = `${current.value} ${line.trim()}`.trim();
      continue;
    }
    const separator = separatorAt(line);
    current =
      separator >= 1 ? { key: line.slice(0, separator).trim(), value: line.slice(separator + 1).trim() } : undefined;
    if (current) out.push(current);
  }
  return out;
}

/** `Name <e-mail>` (the name may be empty) as a git identity; `undefined` when malformed. */
export function parseIdentity(value: string): GitIdentity | undefined {
  const match = /^([^<>]*?)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(value.trim());
  if (!match) return undefined;
  return { name: match[1] === "" ? null : match[1]!, email: match[2]! };
}

/** The people a message names in `Co-authored-by:` trailers (key in any case); malformed ones are ignored. */
export function coAuthorsOf(message: string): GitIdentity[] {
  return trailersOf(message)
    .filter((trailer) => trailer.key.toLowerCase() === "co-authored-by")
    .map((trailer) => parseIdentity(trailer.value))
    .filter((identity): identity is GitIdentity => identity !== undefined);
}

/**
 * The login a GitHub no-reply address encodes (`12345+login@users.noreply.github.com` or
 * `login@users.noreply.github.com`), or `undefined` for any other address.
 */
export function noreplyLogin(email: string | null | undefined): string | undefined {
  const match = /^(?:\d+\+)?([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?)@users\.noreply\.github\.com$/i.exec(
    email?.trim() ?? "",
  );
  return match?.[1];
}
