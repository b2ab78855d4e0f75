/**
 * Makes text that comes from a repository (task ids, messages, paths, owners, review bodies) inert
 * wherever taskgate writes it on GitHub: no mention notifies anyone, no link or image points
 * anywhere, no issue or pull request gets a cross-reference, no HTML is rendered. And the last step
 * before any text leaves: redact secrets, then cut it to GitHub's limit without uncovering a token.
 *
 * The mention, link and reference rules put U+200B ZERO WIDTH SPACE inside the trigger (after `@`,
 * after the `:` of `scheme://`, after `www`, after `#`, after `GH-`), as Renovate and Dependabot do:
 * the text reads the same, and GitHub no longer recognises it. Every rule leaves behind nothing it
 * would act on again, so applying a function twice still gives inert text.
 */
import { redactSecrets } from "../core/index.js";

const ZWSP = "\u200b";

/** What `redactSecrets` puts in place of a secret; a cut never splits it. */
const REDACTED = "[redacted]";

/**
 * The GitHub triggers, for plain text and Markdown alike: `@user`, `@org/team` and `a@b.com`;
 * `scheme://` (http, https, ftp, anything); `www.` where a word starts; `#12`, `owner/repo#12`;
 * `GH-12`.
 */
function neutralise(text: string): string {
  return text
    .replace(/@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
    .replace(/:(?=\/\/)/g, `:${ZWSP}`)
    .replace(/(?<![A-Za-z0-9])(www)(?=\.)/gi, `$1${ZWSP}`)
    .replace(/#(?=[0-9])/g, `#${ZWSP}`)
    .replace(/(GH-)(?=[0-9])/gi, `$1${ZWSP}`);
}

/**
 * Secrets go first, while they still have their shape: a neutralised `https://hooks.slack.com/…`
 * or an escaped value would no longer be recognised by a later `redactSecrets`.
 */
function clean(text: string | number | null | undefined): string {
  if (text === null || text === undefined || text === "") return "";
  return redactSecrets(String(text));
}

/**
 * Text for a Markdown context: a table cell or a list item in a comment, a check run summary, an
 * issue body or a step summary. Does what `cell()` does (`&`, `<`, `>` as entities, so no HTML and
 * no entity such as `&#64;` can spell a trigger; `|` escaped; line breaks, `\r` included, become
 * spaces) and more:
 * - backslash-escapes `\` itself (so a user's backslash cannot cancel an escape), `` ` `` (no code
 *   span can open, or pair with one taskgate writes), `[` and `]` (no link, image, reference,
 *   footnote or task box: `!` and `(…)` do nothing without them, so they stay as they are) and `$`
 *   (no math);
 * - escapes a block marker at the very start (`# `, `- `, `1. `, `---`, `~~~`), which would make
 *   a heading, list, rule or fence of a list item's text;
 * - neutralises mentions, URLs and references with U+200B.
 * The result is meant for running text, not for the inside of a code span (escapes do not work
 * there).
 */
export function inertMarkdown(text: string | number | null | undefined): string {
  const escaped = clean(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`[\]|$]/g, "\\$&")
    .replace(/\r\n?|\n/g, " ")
    .replace(/^([ \t]*)(#{1,6}(?=[ \t]|$)|[-+*](?=[ \t]|$)|(?:[-*_][ \t]*){3,}$|~{3,})/, "$1\\$2")
    .replace(/^([ \t]*[0-9]{1,9})([.)])(?=[ \t]|$)/, "$1\\$2");
  return neutralise(escaped);
}

/**
 * Text for a plain context that GitHub does not render as Markdown but may still scan for
 * mentions, links and references: a check run title, an annotation's title and message, a commit
 * status description, an issue title, a commit message. Neutralises those with U+200B and nothing
 * else: no entities, no backslashes, line breaks kept.
 */
export function inertPlain(text: string | number | null | undefined): string {
  return neutralise(clean(text));
}

/** The default note at the end of a cut text. */
function cutNote(limit: number): string {
  return `\n\n_Cut short: GitHub shows at most ${limit.toLocaleString("en-US")} characters here. Run \`taskgate check\` locally for every finding._\n`;
}

/**
 * The first `room` characters of `text` or fewer: up to the last line break that fits, or, in a
 * single long line, before a `[redacted]` that would be split and never between the two halves of
 * a surrogate pair.
 */
function cutAt(text: string, room: number): string {
  if (room <= 0) return "";
  const line = text.lastIndexOf("\n", room);
  if (line > 0) return text.slice(0, line);
  let end = room;
  const marker = text.lastIndexOf(REDACTED, end - 1);
  if (marker >= 0 && marker + REDACTED.length > end) end = marker;
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * The last step before any text goes to GitHub. Redacts secrets in the whole text first, so that a
 * token across the cut is replaced whole and no recognisable prefix of it is left; then, when the
 * text is longer than `limit`, cuts it at a line boundary and appends `note` (by default one saying
 * it was cut); then redacts the result once more, in case the cut made a secret of what was not one
 * (a `password=<placeholder>` that lost its `>`). The result is at most `limit` characters and ends
 * with the (redacted) note whenever it was cut and the note fits at all.
 */
export function finalText(text: string, limit: number, note?: string): string {
  const whole = redactSecrets(text);
  if (whole.length <= limit) return redactSecrets(whole);
  const tail = redactSecrets(note ?? cutNote(limit));
  let room = limit - tail.length;
  if (room <= 0) return room === 0 ? tail : tail.replace(/^\n+/, "").slice(0, Math.max(0, limit));
  for (;;) {
    const body = cutAt(whole, room);
    if (body === "") return tail;
    const result = redactSecrets(body + tail);
    if (result.length <= limit && result.endsWith(tail)) return result;
    // Redaction grew the text, or took the note in with the end of the body: keep less. Once no
    // body is left the result is `tail`, which fits, so this ends.
    const excess = Math.max(1, result.length - limit);
    room = Math.max(0, Math.min(room - excess, body.length - 1));
  }
}
