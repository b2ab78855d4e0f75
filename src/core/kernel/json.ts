/**
 * JSON files validated by zod, with errors that name the JSON path and the line. Lines come from a
 * YAML parse of the same text (JSON is YAML), done only on the error path, so valid files cost one
 * `JSON.parse`.
 */
import { LineCounter, isNode, parseDocument } from "yaml";
import type * as z from "zod";

export interface JsonIssue {
  /** `$.tasks[3].id` style path; `$` for the whole document. */
  readonly path: string;
  readonly line?: number;
  readonly message: string;
}

export type JsonResult<T> = { ok: true; value: T } | { ok: false; issues: JsonIssue[] };

/** Deeper JSON or YAML than this is refused before it is parsed: no file taskgate reads needs 10 levels. */
export const MAX_NESTING = 64;

/**
 * Where a JSON text first nests deeper than `max` arrays and objects (strings skipped), as
 * `{depth, line}`, or `undefined`. One linear scan, no recursion, so it is safe on any input.
 */
export function tooDeep(text: string, max = MAX_NESTING): { line: number } | undefined {
  let depth = 0;
  // Jump from one structural character to the next: the text between them is never looked at.
  const structure = /["[\]{}]/g;
  for (let match = structure.exec(text); match !== null; match = structure.exec(text)) {
    const char = match[0];
    if (char === '"') structure.lastIndex = stringEnd(text, match.index) + 1;
    else if (char === "[" || char === "{") {
      if (++depth > max) return { line: lineByCounting(text, match.index) };
    } else depth--;
  }
  return undefined;
}

/** Where the string opened at `open` ends (its closing quote), or the text's length. */
function stringEnd(text: string, open: number): number {
  for (let at = open + 1; ; ) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c && quote - 1 - backslashes > open) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** The message for a text nested too deeply. */
export function nestingMessage(max = MAX_NESTING): string {
  return `nested more than ${max} levels deep; taskgate reads no deeper structure`;
}

export function parseJsonFile<S extends z.ZodType>(text: string, schema: S, maxIssues = 5): JsonResult<z.infer<S>> {
  const deep = tooDeep(text);
  if (deep) return { ok: false, issues: [{ path: "$", line: deep.line, message: nestingMessage() }] };
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = lineOfSyntaxError(text, message);
    return {
      ok: false,
      issues: [{ path: "$", ...(line !== undefined && { line }), message: `invalid JSON: ${message}` }],
    };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.slice(0, maxIssues);
  const locate = lineLocator(text);
  return {
    ok: false,
    issues: issues.map((issue) => {
      const line = locate(issue.path as PropertyKey[]);
      return {
        path: jsonPath(issue.path as PropertyKey[]),
        ...(line !== undefined && { line }),
        message: issue.message,
      };
    }),
  };
}

export function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("")}`;
}

/** The line of a JSON syntax error: from the engine's position when it gives one, else from a scan. */
export function lineOfSyntaxError(text: string, message: string): number | undefined {
  const position = /position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : syntaxErrorOffset(text);
  return offset === undefined ? undefined : text.slice(0, offset).split("\n").length;
}

/**
 * Where a JSON text first goes wrong, by a small recursive-descent scan (the engine's messages do
 * not always say). `undefined` when the scan finds nothing wrong.
 */
export function syntaxErrorOffset(text: string): number | undefined {
  const scan = new JsonScan(text);
  try {
    scan.value(0);
    scan.space();
    return scan.at < text.length ? scan.at : undefined;
  } catch (error) {
    if (error instanceof ScanStop) return Math.min(scan.at, text.length);
    throw error;
  }
}

/** Thrown where the scan finds the text wrong; `JsonScan.at` is the offset. */
class ScanStop extends Error {}

/** The recursive-descent scan of `syntaxErrorOffset`: one method per kind of JSON value. */
class JsonScan {
  at: number;

  constructor(private readonly text: string) {
    this.at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  space(): void {
    const text = this.text;
    while (this.at < text.length && " \t\n\r".includes(text[this.at]!)) this.at++;
  }

  private fail(): never {
    throw new ScanStop();
  }

  value(depth: number): void {
    if (depth > 2000) this.fail();
    this.space();
    const char = this.text[this.at];
    if (char === "{") return this.object(depth);
    if (char === "[") return this.array(depth);
    if (char === '"') return this.string();
    if (char === "t") return this.literal("true");
    if (char === "f") return this.literal("false");
    if (char === "n") return this.literal("null");
    return this.number();
  }

  private object(depth: number): void {
    const text = this.text;
    this.at++;
    this.space();
    if (text[this.at] === "}") return void this.at++;
    for (;;) {
      this.space();
      if (text[this.at] !== '"') this.fail();
      this.string();
      this.space();
      if (text[this.at] !== ":") this.fail();
      this.at++;
      this.value(depth + 1);
      this.space();
      if (text[this.at] === ",") this.at++;
      else if (text[this.at] === "}") return void this.at++;
      else this.fail();
    }
  }

  private array(depth: number): void {
    const text = this.text;
    this.at++;
    this.space();
    if (text[this.at] === "]") return void this.at++;
    for (;;) {
      this.value(depth + 1);
      this.space();
      if (text[this.at] === ",") this.at++;
      else if (text[this.at] === "]") return void this.at++;
      else this.fail();
    }
  }

  private string(): void {
    const text = this.text;
    this.at++;
    while (this.at < text.length && text[this.at] !== '"') {
      if (text.charCodeAt(this.at) < 0x20) this.fail();
      this.at += text[this.at] === "\\" ? 2 : 1;
    }
    if (this.at >= text.length) this.fail();
    this.at++;
  }

  private literal(word: string): void {
    if (!this.text.startsWith(word, this.at)) this.fail();
    this.at += word.length;
  }

  private number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!match) this.fail();
    this.at += match[0].length;
  }
}

/** Finds the line of the deepest existing node on a path, parsing the text once. */
export function lineLocator(text: string): (path: readonly PropertyKey[]) => number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  return (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as unknown[], true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return undefined;
  };
}

/** Structural equality of parsed JSON values, without serialising them or allocating key lists. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!deepEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !deepEqual(left[key], right[key])) return false;
    keys++;
  }
  for (const key in right) if (Object.hasOwn(right, key)) keys--;
  return keys === 0;
}

/** A key for a JSON path in `jsonPositions`. */
export function positionKey(path: readonly (string | number)[]): string {
  return path.map((part) => (typeof part === "number" ? `\u0000#${part}` : `\u0000.${part}`)).join("");
}

/**
 * A cursor over a JSON text that steps over whitespace, strings and whole values without building
 * them and without recursion. It assumes valid JSON (it is used after `JSON.parse` succeeded) and
 * never throws or loops on anything else.
 */
class JsonCursor {
  at: number;

  constructor(readonly text: string) {
    this.at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  space(): void {
    const { text } = this;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      this.at++;
    }
  }

  skipString(): void {
    this.at = stringEnd(this.text, this.at) + 1;
  }

  /** Skips one value of any depth, jumping from one structural character to the next. */
  skipValue(): void {
    const { text } = this;
    this.space();
    const first = text[this.at];
    if (first === '"') return this.skipString();
    if (first !== "{" && first !== "[") {
      while (this.at < text.length && !',:]} \t\r\n"'.includes(text[this.at]!)) this.at++;
      return;
    }
    const structure = /["[\]{}]/g;
    structure.lastIndex = this.at;
    let depth = 0;
    for (let match = structure.exec(text); match !== null; match = structure.exec(text)) {
      const char = match[0];
      if (char === '"') structure.lastIndex = stringEnd(text, match.index) + 1;
      else if (char === "{" || char === "[") depth++;
      else if (--depth === 0) {
        this.at = match.index + 1;
        return;
      }
    }
    this.at = text.length;
  }

  /** At an object member (or its end): reads the key and steps past the ':'; `undefined` at "}". */
  key(): { key: string; start: number } | undefined {
    const { text } = this;
    for (;;) {
      this.space();
      if (text[this.at] === "}" || this.at >= text.length) {
        this.at++;
        return undefined;
      }
      if (text[this.at] !== ",") break;
      this.at++;
    }
    const start = this.at;
    const close = text.indexOf('"', start + 1);
    this.skipString();
    let key = text.slice(start + 1, Math.max(start + 1, this.at - 1));
    if (key.includes("\\")) {
      try {
        key = JSON.parse(text.slice(start, this.at)) as string;
      } catch {
        key = text.slice(start + 1, Math.max(start + 1, close));
      }
    }
    this.space();
    this.at++; // ':'
    return { key, start };
  }

  /** At an array element (or its end): steps to the element; `false` at "]". */
  element(): boolean {
    const { text } = this;
    for (;;) {
      this.space();
      if (text[this.at] === "]" || this.at >= text.length) {
        this.at++;
        return false;
      }
      if (text[this.at] !== ",") return true;
      this.at++;
    }
  }
}

/**
 * Where each value of a valid JSON text starts, for every path up to `maxDepth` deep (an object
 * member at the offset of its key): one linear scan, deeper values skipped without recording.
 * Used to name lines in messages without a parse that keeps positions.
 */
export function jsonPositions(text: string, maxDepth: number): Map<string, number> {
  const out = new Map<string, number>();
  const cursor = new JsonCursor(text);
  const value = (path: (string | number)[], start: number): void => {
    cursor.space();
    out.set(positionKey(path), start >= 0 ? start : cursor.at);
    if (path.length >= maxDepth) return cursor.skipValue();
    const char = text[cursor.at];
    if (char === "{") {
      cursor.at++;
      for (let member = cursor.key(); member; member = cursor.key()) value([...path, member.key], member.start);
      return;
    }
    if (char === "[") {
      cursor.at++;
      for (let index = 0; cursor.element(); index++) value([...path, index], -1);
      return;
    }
    cursor.skipValue();
  };
  value([], -1);
  return out;
}

/**
 * Where the deepest existing part of `path` starts in a valid JSON text (an object member at its
 * key; of duplicate keys the last, as `JSON.parse` keeps), scanning only the objects and arrays on
 * the way: their other members and elements are skipped without being recorded. `undefined` when
 * not even the first part exists.
 */
export function jsonPositionOf(text: string, path: readonly (string | number)[]): number | undefined {
  const cursor = new JsonCursor(text);
  let found: number | undefined;
  for (const part of path) {
    cursor.space();
    const char = text[cursor.at];
    let start: number | undefined;
    if (char === "{" && typeof part === "string") {
      // JSON.parse keeps the last of duplicate keys: so does this, to point at the one that counts.
      cursor.at++;
      let valueAt: number | undefined;
      for (let member = cursor.key(); member; member = cursor.key()) {
        if (member.key === part) {
          start = member.start;
          valueAt = cursor.at;
        }
        cursor.skipValue();
      }
      if (valueAt !== undefined) cursor.at = valueAt;
    } else if (char === "[" && typeof part === "number") {
      cursor.at++;
      for (let index = 0; cursor.element(); index++) {
        if (index === part) {
          start = cursor.at;
          break;
        }
        cursor.skipValue();
      }
    }
    if (start === undefined) return found;
    found = start;
  }
  return found;
}

/** Lookups a `jsonLines` locator answers by scanning before it indexes the whole text once. */
const TARGETED_LOOKUPS = 16;

/**
 * The line of the deepest existing part of a JSON path (at most `maxDepth` parts), for messages.
 * The first few lookups scan only up to what they look for; past `TARGETED_LOOKUPS`, one scan
 * indexes every position, so many lookups stay linear in the text rather than in text × lookups.
 * Nothing is computed until a message needs a line.
 */
export function jsonLines(text: string, maxDepth: number): (path: readonly (string | number)[]) => number | undefined {
  let lookups = 0;
  let positions: Map<string, number> | undefined;
  let lines: LineIndex | undefined;
  return (path) => {
    const wanted = path.slice(0, maxDepth);
    let offset: number | undefined;
    if (positions === undefined && ++lookups <= TARGETED_LOOKUPS) offset = jsonPositionOf(text, wanted);
    else {
      positions ??= jsonPositions(text, maxDepth);
      for (let depth = wanted.length; depth > 0 && offset === undefined; depth--) {
        offset = positions.get(positionKey(wanted.slice(0, depth)));
      }
    }
    if (offset === undefined) return undefined;
    if (positions === undefined) return lineByCounting(text, offset);
    lines ??= new LineIndex(text);
    return lines.lineAt(offset);
  };
}

/** The line of an offset, counting the line feeds before it. */
function lineByCounting(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

/** Line starts of a text, for lines of many offsets by binary search. */
class LineIndex {
  private readonly starts = [0];

  constructor(text: string) {
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) this.starts.push(at + 1);
  }

  lineAt(offset: number): number {
    const { starts } = this;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}
